"""Which agent plays each bot seat of a room: the room's kind (``bot_kind``), or a kind per seat (``bot_kinds``).

A seat's kind is ``heuristic``, ``random``, ``llm`` (the server's model) or ``llm:MODEL``. A room seats an
LLM only when the server offers models: ``WEREWOLF_LLM_MODELS`` (comma-separated), else the one
``WEREWOLF_LLM_MODEL``, on ``OPENAI_BASE_URL`` with ``OPENAI_API_KEY``. The models are the server's to
offer, not the room creator's to pick: every call is paid with the server's key. Never a user's class
(``module:Class``, as ``werewolf simulate`` takes): a request must not make the server import code.

A room's kinds are checked and written out in full when it is made (``llm`` becomes ``llm:MODEL``, the
model offered then), and stored with it, so that a restarted server seats the same agents.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Mapping, Sequence

from werewolf.agents import Agent, RandomAgent
from werewolf.agents.heuristic import HeuristicAgent
from werewolf.core.game import Setup

# Makes the agents of some bot seats (``BOTS``' kinds).
Factory = Callable[[random.Random, list[int], Setup, str], dict[int, Agent]]

PLAIN = ("heuristic", "random")


def offered_models() -> list[str]:
    """The models rooms may seat, the first being the default of ``llm``; none: rooms seat no LLM."""
    listed = [m.strip() for m in os.environ.get("WEREWOLF_LLM_MODELS", "").split(",") if m.strip()]
    if listed:
        return listed
    one = os.environ.get("WEREWOLF_LLM_MODEL", "").strip()
    return [one] if one else []


def check_bot_kinds(kinds: Mapping[int, str], bots: Sequence[int]) -> dict[int, str]:
    """``kinds`` written out in full (``llm`` as ``llm:MODEL``), by seat; ``ValueError`` naming the first
    seat whose kind this server cannot seat, or a seat that no bot plays."""
    out: dict[int, str] = {}
    for seat in sorted(kinds):
        kind = kinds[seat]
        if seat not in bots:
            shown = ", ".join(map(str, sorted(bots))) or "none"
            raise ValueError(f"bot_kinds: seat {seat} is not a bot seat (bots: {shown})")
        if kind in PLAIN:
            out[seat] = kind
            continue
        prefix, _, model = kind.partition(":")
        if prefix != "llm":
            raise ValueError(f"bot_kinds: seat {seat}: unknown kind {kind!r} (heuristic, random, llm or llm:MODEL)")
        offered = offered_models()
        if not offered:
            raise ValueError(f"bot_kinds: seat {seat}: this server seats no LLM (it offers no model: "
                             "WEREWOLF_LLM_MODEL or WEREWOLF_LLM_MODELS)")
        if model and model not in offered:
            raise ValueError(f"bot_kinds: seat {seat}: model {model!r} is not offered by this server "
                             f"(offered: {', '.join(offered)})")
        out[seat] = f"llm:{model or offered[0]}"
    return out


def llm_seats(seats: list[int], model: str, lang: str) -> dict[int, Agent]:
    """An LLM agent per seat (werewolf.agents.llm), on the server's OPENAI_BASE_URL."""
    from werewolf.agents.llm import LLMAgent

    return {s: LLMAgent(model, lang=lang) for s in seats}


def seat_agents(factories: Mapping[str, Factory], bot_kind: str, kinds: Mapping[int, str], rng: random.Random,
                bots: list[int], setup: Setup, lang: str) -> dict[int, Agent]:
    """The agent of every bot seat: ``kinds``' for the seats it names, the room's ``bot_kind`` for the others.

    Seats of one kind are made together, as a room of that kind makes them (the heuristic seats share
    one mind), kind by kind in a fixed order from the same ``rng``; with no ``kinds`` this is exactly a
    room of one kind.
    """
    if not kinds:
        return factories[bot_kind](rng, bots, setup, lang)
    by_kind: dict[str, list[int]] = {}
    for s in bots:
        by_kind.setdefault(kinds.get(s, bot_kind), []).append(s)
    agents: dict[int, Agent] = {}
    for kind in sorted(by_kind):
        seats = by_kind[kind]
        if kind.startswith("llm:"):
            agents.update(llm_seats(seats, kind.partition(":")[2], lang))
        else:
            agents.update(factories[kind](rng, seats, setup, lang))
    return agents


def heuristic_bots(rng: random.Random, seats: list[int], setup: Setup, lang: str) -> dict[int, Agent]:
    """One heuristic agent plays every bot seat (their minds share what the table said), speaking ``lang``."""
    agent = HeuristicAgent(rng, seats=seats, ruleset=setup.ruleset, lang=lang)
    return dict.fromkeys(seats, agent)


def random_bots(rng: random.Random, seats: list[int], setup: Setup, lang: str) -> dict[int, Agent]:
    return {s: RandomAgent(rng=random.Random(rng.random())) for s in seats}


def llm_model() -> str | None:
    """The model LLM bots play with: the server's WEREWOLF_LLM_MODEL (none: rooms cannot seat LLMs)."""
    return os.environ.get("WEREWOLF_LLM_MODEL") or None


def llm_bots(rng: random.Random, seats: list[int], setup: Setup, lang: str) -> dict[int, Agent]:
    """An LLM seat each (werewolf.agents.llm) on the server's OPENAI_BASE_URL, speaking the room's language."""
    from werewolf.agents.llm import LLMAgent

    model = llm_model() or "unset"
    return {s: LLMAgent(model, lang=lang) for s in seats}


# Bot kinds by name: each makes the agents of a room's bot seats from a random generator.
BOTS: dict[str, Factory] = {
    "heuristic": heuristic_bots,
    "random": random_bots,
}
if llm_model():  # rooms may seat LLMs when the server names a model
    BOTS["llm"] = llm_bots
DEFAULT_BOT = "heuristic"
LEGACY_BOT = "random"  # the kind of rooms stored before the kind was
