"""One seat against the others: a single-agent gymnasium environment (``werewolf.env.single``).

The policy plays one seat, chosen by number or by side (``seat_or_side``: ``3``, ``"wolves"``,
``"village"``, ``"others"``: a seat dealt a card of that side, drawn from the game's seed; a deal
with no such seat, a one-night game's werewolves all in the centre, is passed for the next game of
the same seeded stream); every
other seat is played by an agent kind of ``werewolf.agents.kinds`` (``random``, ``heuristic``,
``llm:MODEL``, ``module.path:Class``), all one kind (``opponents="heuristic"``) or by seat and side
as ``--agent`` has them (``opponents={"wolves": "random", "village": "heuristic"}``; the policy's
seat is never theirs). The opponents see only their own seats' views, through a ``Host``, and
hear what the policy's seat says; their statements reach its observation as any seat's.

Observations are the seat's encoding (``werewolf.env.encoding``, a float32 vector); the legal
actions are ``info["action_mask"]`` (int8, the masked-action convention of gymnasium:
``env.action_space.sample(mask=info["action_mask"])``) and ``info["legal"]`` (their ids). The reward
is +1 / −1 at the end (0 when nobody won). ``info`` also holds ``seat`` and ``side`` (the policy's),
and at the end ``sides`` (every seat's side, by its dealt card), ``winners`` and ``teams``: for the
statistics of a training run, never for the policy's input (they are the engine's knowledge).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from werewolf.agents import Agent, RandomAgent
from werewolf.agents.kinds import SIDES, build, check_kind, kinds_by_seat
from werewolf.core.errors import SetupError
from werewolf.env.aec import Table
from werewolf.env.encoding import ENCODING_VERSION, side_of
from werewolf.env.speech import MAX_STATEMENTS, SpeechTurn

Opponents = str | Mapping[int | str, str]
DEALS = 100  # deals tried for one with a seat of the side asked (a one-night werewolf may lie in the centre)


def _rules(opponents: Opponents) -> tuple[tuple[tuple[str, ...], str], ...]:
    if isinstance(opponents, str):
        return ((("all",), check_kind(opponents)),)
    out = []
    for who, kind in opponents.items():
        key = str(who).strip()
        if not (key.isdigit() and int(key) >= 1) and key not in (*SIDES, "all"):
            raise SetupError(f"opponents: {who!r} is neither a seat number nor a side ({', '.join(SIDES)}) nor all")
        out.append(((str(int(key)) if key.isdigit() else key,), check_kind(kind)))
    return tuple(out)


class SingleSeatEnv(gymnasium.Env):  # type: ignore[type-arg]
    """One seat of a ruleset's games as a gymnasium environment, the others played by agent kinds."""

    metadata = {"render_modes": ["ansi"], "encoding_version": ENCODING_VERSION}

    def __init__(self, ruleset: str = "classic", deck: str | tuple[str, ...] | list[str] | None = None,
                 seat_or_side: int | str = 1, opponents: Opponents = "heuristic",
                 options: Mapping[str, Any] | None = None, seed: int | None = None, lang: str | None = None,
                 players: int | None = None, speech: bool = False, max_statements: int = MAX_STATEMENTS,
                 render_mode: str | None = None) -> None:
        # The table always reads the speaking turns: the opponents speak whatever ``speech`` says; it
        # only decides whether the policy's seat does (else its turns pass in silence).
        self.t = Table(ruleset, deck, options, seed, lang, players, True, max_statements)
        self.t.hosted = True
        self.speech = speech
        if isinstance(seat_or_side, bool) or not isinstance(seat_or_side, (int, str)):
            raise SetupError(f"seat_or_side must be a seat number or a side, not {seat_or_side!r}")
        if isinstance(seat_or_side, int) and not 1 <= seat_or_side <= self.t.players:
            raise SetupError(f"seat {seat_or_side} is not a seat of this game (1 to {self.t.players})")
        if isinstance(seat_or_side, str) and seat_or_side not in SIDES:
            raise SetupError(f"unknown side {seat_or_side!r} (sides: {', '.join(SIDES)})")
        self.seat_or_side = seat_or_side
        self.rules = _rules(opponents)
        self.render_mode = render_mode
        n = self.t.space.n
        self.action_space = spaces.Discrete(n)
        self.observation_space = spaces.Box(0.0, np.inf, (self.t.size,), np.float32)
        self.state_space = spaces.Box(0.0, np.inf, (self.t.state_size,), np.float32)
        self.action_ids = self.t.space.ids
        self.seat = 0
        self.side = ""
        self.sides: dict[int, str] = {}
        self.agents: dict[int, Agent] = {}

    @property
    def game(self) -> Any:
        """The game (engine side: it holds every role; never hand it to a policy)."""
        return self.t.game

    # -- gymnasium ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        t = self.t
        for _ in range(DEALS):
            t.new_game(seed)
            seed = None  # a deal without the side: the next game of the same seeded stream
            dealt = t.game.dealt
            self.sides = {s: side_of(r) for s, r in enumerate(dealt, 1)}
            if isinstance(self.seat_or_side, int):
                self.seat = self.seat_or_side
                break
            mine = [s for s, side in self.sides.items() if side == self.seat_or_side]
            if mine:
                self.seat = mine[random.Random(t.game.setup.seed).randrange(len(mine))]
                break
        else:
            raise SetupError(f"no seat of {DEALS} deals was on the side {self.seat_or_side!r} "
                             f"(the last deal: {', '.join(sorted(set(dealt)))})")
        game_seed = int(t.game.setup.seed)
        self.side = self.sides[self.seat]
        others = {s: side for s, side in self.sides.items() if s != self.seat}
        kinds = kinds_by_seat(self.rules, {**others, self.seat: self.side}, "random")
        kinds.pop(self.seat)
        self.agents = build(kinds, seed=game_seed, ruleset=t.ruleset, lang=t.lang or "en")
        return self._advance()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        d = self.t.current() if hasattr(self.t, "game") else None
        if d is None or d.seat != self.seat:
            raise RuntimeError("no game in play: call reset()")
        self.t.play(d, action, self._legal)
        obs, info = self._advance()
        if self.t.current() is None:
            reward = self.t.rewards()[self.seat]
            return obs, reward, True, False, info
        return obs, 0.0, False, False, info

    def state(self) -> np.ndarray:
        """The whole hidden state, encoded (``werewolf.env.encoding.state_layout``): for a centralised
        critic at training time ONLY, never the policy's input."""
        return self.t.state()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_legal", None)  # the engine's objects: found again in the unpickled game
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if hasattr(self.t, "game"):
            d = self.t.current()
            if d is not None:
                self._legal = self.t.legal(d)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return self.t.text(self.seat, None) if self.t.lang is not None else None

    # -- the others' moves ---------------------------------------------------------------------
    def _advance(self) -> tuple[np.ndarray, dict[str, Any]]:
        """Let the opponents (and the policy's silent turns) play until the policy's seat owes an answer."""
        t = self.t
        while True:
            d = t.current()
            if d is None:
                return self._ended()
            if d.seat == self.seat:
                if isinstance(d, SpeechTurn) and not self.speech:
                    t.play(d, t.talk.done)
                    continue
                self._legal = legal = t.legal(d)
                info = {"action_mask": legal[0], "legal": legal[2], "seat": self.seat, "side": self.side}
                return t.vector(self.seat, d), info
            self._opponent(d)

    def _opponent(self, d: Any) -> None:
        t = self.t
        agent = self.agents[d.seat]
        host = t.host
        assert host is not None
        if isinstance(d, SpeechTurn):
            if not isinstance(agent, RandomAgent):  # the random kind says nothing (as in simulations)
                t.feed_host()
                said = agent.speak(host.view(d.seat, part=d.part))
                if isinstance(said, str):
                    from werewolf.agents.parse import parse

                    said = parse(said, d.seat)
                t.say(d.seat, list(said or ()))
            t.end_turn()
            return
        if isinstance(agent, RandomAgent):
            t.answer(d, agent.value(d))
            return
        t.feed_host()
        move = agent.act(host.view(d.seat, d))
        if move is None:
            value = d.default_value()
        else:
            reason = d.check(move)
            if reason:
                raise RuntimeError(f"seat {d.seat}'s agent ({type(agent).__name__}) answered {move!r}: {reason}")
            value = d.value(move)
        t.answer(d, value)

    def _ended(self) -> tuple[np.ndarray, dict[str, Any]]:
        t = self.t
        result = t.game.result
        info = {"action_mask": t.no_mask, "legal": [], "seat": self.seat, "side": self.side,
                "sides": dict(self.sides), "winners": list(result[1]) if result else [],
                "teams": list(result[0]) if result else []}
        return t.vector(self.seat, None), info


def single(ruleset: str = "classic", deck: str | tuple[str, ...] | list[str] | None = None,
           seat_or_side: int | str = 1, opponents: Opponents = "heuristic", **kwargs: Any) -> SingleSeatEnv:
    """A single-agent gymnasium environment: the policy plays ``seat_or_side``, ``opponents`` the others
    (``options``, ``seed``, ``lang``, ``players``, ``speech``, ``max_statements``, ``render_mode`` as
    ``SingleSeatEnv`` takes them)."""
    return SingleSeatEnv(ruleset, deck, seat_or_side, opponents, **kwargs)
