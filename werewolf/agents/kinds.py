"""Agent kinds by name, and which kind plays which seat: what ``--agent SEATS=KIND`` means.

A kind is a string, so that it travels to worker processes (and Ray) as it is and
its agents are built there, game by game:

- ``random``: the engine's random player (``RandomAgent``: ``Decision.random_value``, interrupts
  taken 3% of the times offered, never speaks); the RL environments' masked-uniform policy is
  another baseline, ``uniform`` (``werewolf.env.baselines``);
- ``heuristic``: the heuristic bots (``werewolf.agents.heuristic``); every seat of
  this kind in a game is played by one agent, each seat from its own view;
- ``llm:MODEL``: an ``LLMAgent`` per seat, on ``OPENAI_BASE_URL`` with ``OPENAI_API_KEY``, or
  ``llm:MODEL@URL``, ``llm:MODEL@NAME`` (an ``--endpoints`` file's) and settings after ``?``
  (``werewolf.agents.llmkind``);
- ``module.path:Class``: a user's ``Agent`` subclass, importable; one instance per
  seat, made with no arguments, or with whichever of ``seed``, ``seat``, ``ruleset``
  and ``lang`` its constructor takes (a ``seed`` makes simulations reproducible).

A seating rule is ``SEATS=KIND``: SEATS is seat numbers, ranges and/or sides separated by
commas (``1``, ``1,3``, ``1-3``, ``wolves``, ``village``, ``others``: the side of the card a
seat was dealt, as ``--bots`` has them, or ``all``). A seat number wins over a side,
a side over ``all``, and any rule over ``--bots``; two rules naming the same seat or
side are refused.
"""

from __future__ import annotations

import importlib
import inspect
import random
from collections.abc import Mapping, Sequence
from typing import Any

from werewolf.agents import Agent, RandomAgent
from werewolf.core.errors import SetupError

SIDES = ("wolves", "village", "others")
PLAIN = ("random", "heuristic")
GIVEN = ("seed", "seat", "ruleset", "lang")  # what a user's class is given, if its constructor names it

Rule = tuple[tuple[str, ...], str]  # (seat numbers and sides, kind)


def check_kind(kind: str, endpoints: Any = ()) -> str:
    """``kind`` stripped, if it names a kind (a user's class is imported to check it, an llm: kind's
    endpoint and settings read); else ``SetupError``."""
    kind = kind.strip()
    if kind in PLAIN:
        return kind
    prefix, colon, rest = kind.partition(":")
    if not colon or not prefix or not rest.strip():
        raise SetupError(f"unknown agent kind {kind!r}: use random, heuristic, llm:MODEL or module.path:Class")
    if prefix == "llm":
        from werewolf.agents.llmkind import parse_llm

        parse_llm(f"llm:{rest.strip()}", endpoints)
        return f"llm:{rest.strip()}"
    user_class(kind)
    return kind


def user_class(kind: str) -> type[Agent]:
    """The class a ``module.path:Class`` kind names (imported)."""
    module_name, _, name = kind.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise SetupError(f"agent kind {kind!r}: cannot import {module_name!r} ({e})") from None
    cls = module
    for part in name.split("."):
        cls = getattr(cls, part, None)  # type: ignore[assignment]
        if cls is None:
            raise SetupError(f"agent kind {kind!r}: {module_name!r} has no {name!r}")
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise SetupError(f"agent kind {kind!r}: {name!r} is not a subclass of werewolf.agents.Agent")
    required = [p.name for p in inspect.signature(cls).parameters.values()
                if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                and p.name not in GIVEN]
    if required:
        raise SetupError(f"agent kind {kind!r}: its constructor needs {', '.join(required)}; it is given only "
                         f"{', '.join(GIVEN)} (the ones it names)")
    return cls


def parse_rule(spec: str, endpoints: Any = ()) -> Rule:
    """``SEATS=KIND`` as (seats and sides, kind), checked; ``A-B`` stands for seats A to B."""
    seats, eq, kind = spec.partition("=")
    if not eq:
        raise SetupError(f"bad --agent {spec!r}: use SEATS=KIND, e.g. 3=llm:gpt-4o-mini, 1,4=heuristic or "
                         "wolves=mypackage.bots:MyAgent")
    items: list[str] = []
    for item in seats.split(","):
        item = item.strip()
        lo, dash, hi = item.partition("-")
        if item.isdigit() and int(item) >= 1:
            items.append(str(int(item)))
        elif dash and lo.strip().isdigit() and hi.strip().isdigit() and 1 <= int(lo) <= int(hi):
            items.extend(str(n) for n in range(int(lo), int(hi) + 1))
        elif item in SIDES or item == "all":
            items.append(item)
        else:
            raise SetupError(f"bad seat {item!r} in --agent {spec!r}: seat numbers from 1, a range A-B, "
                             f"or a side ({', '.join(SIDES)}) or all")
    return tuple(items), check_kind(kind, endpoints)


def parse_rules(specs: Sequence[str], endpoints: Any = ()) -> tuple[Rule, ...]:
    rules = tuple(parse_rule(s, endpoints) for s in specs)
    named: set[str] = set()
    for items, _ in rules:
        for item in items:
            if item in named:
                raise SetupError(f"--agent names {'seat ' if item.isdigit() else ''}{item} twice")
            named.add(item)
    return rules


def kinds_by_seat(rules: Sequence[Rule], sides: Mapping[int, str], default: Mapping[str, str] | str
                  ) -> dict[int, str]:
    """Each seat's kind: ``sides`` maps every seat to the side of its card; ``default`` is the kind
    of a seat no rule names (one kind, or one per side)."""
    by: dict[str, str] = {}
    for items, kind in rules:
        for item in items:
            by[item] = kind
    for item in by:
        if item.isdigit() and int(item) not in sides:
            raise SetupError(f"--agent names seat {item}, but the game has {len(sides)} seats")
    out: dict[int, str] = {}
    for seat, side in sides.items():
        base = default if isinstance(default, str) else default.get(side, "random")
        out[seat] = by.get(str(seat)) or by.get(side) or by.get("all") or base
    return out


def build(kinds: Mapping[int, str], *, seed: int, ruleset: str, lang: str = "en", transcript: Any = None,
          endpoints: Any = (), structured_only: bool = False) -> dict[int, Agent]:
    """The agents of one game, seat by seat (``transcript``: where the LLM seats record their calls;
    ``endpoints``: the named servers ``llm:MODEL@NAME`` kinds refer to)."""
    from werewolf.sim.config import stream_seed  # the seeds' derivation is the simulations'

    agents: dict[int, Agent] = {}
    by_kind: dict[str, list[int]] = {}
    for seat, kind in sorted(kinds.items()):
        by_kind.setdefault(kind, []).append(seat)
    for kind, seats in by_kind.items():
        if kind == "random":
            bot: Agent = RandomAgent(rng=random.Random(stream_seed(seed, 1)))
            agents.update(dict.fromkeys(seats, bot))
        elif kind == "heuristic":
            from werewolf.agents.heuristic import HeuristicAgent

            bot = HeuristicAgent(random.Random(stream_seed(seed, 2)), seats=seats, ruleset=ruleset,
                                 lang=lang)
            agents.update(dict.fromkeys(seats, bot))
        elif kind.startswith("llm:"):
            from werewolf.agents.llm import LLMAgent
            from werewolf.agents.llmkind import parse_llm

            spec = parse_llm(kind, endpoints)
            for s in seats:
                agents[s] = LLMAgent(spec.model, lang=lang, transcript=transcript, structured_only=structured_only,
                                     **spec.agent_kwargs())
        else:
            cls = user_class(kind)
            params = inspect.signature(cls).parameters
            for s in seats:
                given = {"seed": stream_seed(seed, 100 + s), "seat": s, "ruleset": ruleset, "lang": lang}
                agents[s] = cls(**{k: v for k, v in given.items() if k in params})
    return agents


def is_llm(kind: str) -> bool:
    return kind.startswith("llm:")
