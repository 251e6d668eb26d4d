"""The PettingZoo AEC environment: one seat acts at a time."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from werewolf import i18n
from werewolf.core.decisions import Decision
from werewolf.core.game import Game, Setup
from werewolf.env.actions import ActionSpace, action_space
from werewolf.env.encoding import (
    ENCODING_VERSION,
    PRIVATE_TYPES,
    PUBLIC_TYPES,
    DecisionEncoder,
    PrivateEncoder,
    PublicEncoder,
    size,
)
from werewolf.i18n import narrate


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


class Table:
    """What both environments share: the game, its encoders, its queue of open decisions.

    Several decisions may be open at once (every wolf's kill, everyone's vote): they are served
    one at a time in seat order (a seat that owes two answers gives them one after the other).
    """

    def __init__(self, ruleset: str, deck: str | tuple[str, ...] | list[str] | None,
                 options: Mapping[str, Any] | None, seed: int | None, lang: str | None,
                 players: int | None) -> None:
        self.ruleset = ruleset
        self.setup = Setup(ruleset, deck=tuple(deck) if isinstance(deck, list) else deck,
                           options=dict(options or {}), players=players)
        self.space: ActionSpace = action_space(ruleset)
        self.lang = lang
        self.seeds = random.Random(seed)
        self.first_seed = seed
        probe = Game(self.setup)
        self.players = int(next(e.data["players"] for e in probe.events if e.type == "game_start"))
        self.size = size(ruleset)
        public_size = PublicEncoder(ruleset).buf.size
        self.cut = (public_size, public_size + PrivateEncoder(ruleset, 1).buf.size)
        self.decisions = DecisionEncoder(ruleset)
        self.no_mask = np.zeros(self.space.n, dtype=np.int8)
        self.wait_mask = np.zeros(self.space.n, dtype=np.int8)
        self.wait_mask[0] = 1
        self.no_mask.flags.writeable = self.wait_mask.flags.writeable = False

    def new_game(self, seed: int | None) -> None:
        if seed is not None:
            self.seeds = random.Random(seed)
            game_seed = seed
        elif self.first_seed is not None:
            game_seed, self.first_seed = self.first_seed, None
        else:
            game_seed = self.seeds.getrandbits(63)
        self.first_seed = None
        self.game = Game(self.setup.with_seed(game_seed))
        if not hasattr(self, "public"):
            self.public = PublicEncoder(self.ruleset)
            self.private = {s: PrivateEncoder(self.ruleset, s) for s in range(1, self.players + 1)}
            self.by_seat = [self.private[1], *self.private.values()]  # by seat number (index 0: unused)
        else:  # the same buffers, zeroed: a reset per game costs no allocation
            self.public.reset()
            for enc in self.private.values():
                enc.reset()
        self.cursor = 0
        self.ended: np.ndarray | None = None  # the observations of the finished game (``final``)
        self.handed: list[bool] = []
        if self.lang is not None:
            seats = range(1, self.players + 1)
            self.seen: dict[int, list[Any]] = {s: [] for s in seats}  # each seat's events, for the text
            self.lines: dict[int, list[str | None]] = {s: [] for s in seats}  # one per event seen
        self.request: list[Decision] = []
        self.queue: list[int] = []
        self.at = 0
        self.sync()

    def sync(self) -> None:
        """Read the game's new events into the encoders (each event once)."""
        events = self.game.events
        n = len(events)
        if self.cursor < n:
            public, private = self.public.update, self.by_seat
            if self.lang is None:
                # Only the events an encoder reads (most of a log, the night's steps and the turns, are not).
                for e in events[self.cursor:n]:
                    to = e.to
                    if to is None:
                        if e.type in PUBLIC_TYPES:
                            public(e)
                    elif e.type in PRIVATE_TYPES:
                        for s in to:  # a seat of the audience is a seat of the game (never 0)
                            private[s].update(e)
            else:
                seen = self.seen
                for e in events[self.cursor:n]:
                    to = e.to
                    if to is None:
                        public(e)
                        for lst in seen.values():
                            lst.append(e)
                    else:
                        for s in to:
                            private[s].update(e)
                            seen[s].append(e)
            self.cursor = n
        game = self.game
        if game.request is not self.request:
            request = self.request = game.request
            n = len(request)
            self.queue = [0] if n == 1 else sorted(range(n), key=lambda i: request[i].seat)
            self.at = 0

    def current(self) -> Decision | None:
        """The next open decision in seat order (None: the game is over)."""
        if self.game.over or self.at >= len(self.queue):
            return None
        return self.request[self.queue[self.at]]

    def play(self, d: Decision, action: int | None,
             legal_now: tuple[np.ndarray, dict[int, Any], list[str]] | None = None) -> None:
        mask, values, legal = legal_now or self.space.legal(d)
        i = -1 if action is None else int(action)
        if i not in values:  # the legal actions, and the engine's value of each
            name = self.space.ids[i] if 0 <= i < self.space.n else action
            raise ValueError(f"action {action} ({name}) is not legal for seat {d.seat}'s {d.act!r} decision "
                             f"(legal: {', '.join(f'{self.space.index[x]}={x}' for x in legal)})")
        self.at += 1
        self.game.answer_value(d, values[i])
        self.sync()

    def vector(self, seat: int, d: Decision | None) -> np.ndarray:
        # Three slice copies into a new array: half the time of np.concatenate for these sizes.
        out = np.empty(self.size, dtype=np.float32)
        a, b = self.cut
        out[:a] = self.public.buf
        out[a:b] = self.by_seat[seat].buf
        out[b:] = self.decisions.encode(d)
        return out

    def final(self, seat: int) -> np.ndarray:
        """``vector(seat, None)`` once the game is over: every seat's at once, as the rows of one block
        (each seat leaves the finished game with an observation; one copy for all is cheaper). A row
        is handed out once; asked again, the seat gets a new array."""
        block = self.ended
        if block is None:
            n = self.players
            block = self.ended = np.empty((n, self.size), dtype=np.float32)
            a, b = self.cut
            block[:, :a] = self.public.buf
            for s in range(1, n + 1):
                block[s - 1, a:b] = self.by_seat[s].buf
            block[:, b:] = self.decisions.encode(None)
            self.handed = [False] * (n + 1)
        if self.handed[seat]:  # (its row is the policy's now, changed or not)
            return self.vector(seat, None)
        self.handed[seat] = True
        return block[seat - 1]

    def rewards(self) -> dict[int, float]:
        """+1 for the winners, -1 for the others; 0 for all when nobody won (a stopped game)."""
        result = self.game.result
        if not result or not result[1]:
            return {s: 0.0 for s in self.private}
        won = set(result[1])
        return {s: 1.0 if s in won else -1.0 for s in self.private}

    def text(self, seat: int, d: Decision | None, upto: int | None = None) -> str:
        """The seat's view as text in ``lang``: its log (each event narrated once, when first asked
        for), then what it owes; ``upto``: as it was when the seat had seen that many events."""
        lang = self.lang or "en"
        lines, seen = self.lines[seat], self.seen[seat]
        n = len(seen) if upto is None else upto
        for e in seen[len(lines):n]:
            lines.append(narrate(e.as_json(), lang, seat))  # None: nothing to show this seat
        out = "\n".join(line for line in lines[:n] if line)
        if d is not None:
            legal = self.space.legal(d)[2]
            names = " / ".join(i18n.t(f"act.{a}", lang) if i18n.has(f"act.{a}", lang) else a for a in d.acts)
            out += f"\n> {names}: {', '.join(legal)}"
        return out

    def info(self, seat: int, d: Decision | None, legal: list[str]) -> dict[str, Any]:
        """A seat's ``infos`` entry: ``legal``, and with a ``lang`` the ``text`` of its view, made when read."""
        if self.lang is None:
            return {"legal": legal}
        return Info(legal, self, seat, d, len(self.seen[seat]))


class Info(dict):  # type: ignore[type-arg]
    """``{"legal": [...], "text": ...}`` whose text is narrated only if it is read (``info["text"]``,
    ``info.get("text")``): the narration costs more than a step, and most policies never read it."""

    def __init__(self, legal: list[str], table: Table, seat: int, d: Decision | None, upto: int) -> None:
        super().__init__(legal=legal)
        self._text: tuple[Table, int, Decision | None, int] | None = (table, seat, d, upto)

    def __missing__(self, key: str) -> Any:
        if key == "text" and self._text is not None:
            table, seat, d, upto = self._text
            self._text = None
            value = self["text"] = table.text(seat, d, upto)
            return value
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        if key == "text" and self._text is not None:
            return self["text"]
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key) or (key == "text" and self._text is not None)

    def keys(self) -> Any:
        if self._text is not None:
            self["text"]  # noqa: B018 - made now: whoever lists the keys may read them all
        return super().keys()


class SeatSpaces:
    """What both environments share: a table, its seats as agents, one observation and one action space."""

    t: Table

    def set_table(self, table: Table, render_mode: str | None) -> None:
        self.t = table
        self.render_mode = render_mode
        self.possible_agents = [agent_name(s) for s in range(1, table.players + 1)]
        n = table.space.n
        self._action_space = spaces.Discrete(n)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, (table.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (n,), np.int8),
        })
        self.action_ids = table.space.ids  # action i is the option id action_ids[i]

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    @property
    def game(self) -> Game:
        """The game (engine side: it holds every role; never hand it to a policy)."""
        return self.t.game


class WerewolfEnv(SeatSpaces, AECEnv):  # type: ignore[misc]
    """One game of a ruleset as a PettingZoo AEC environment (``werewolf.env.env``).

    Agents are ``seat_1`` … ``seat_n``; the agent selected is the seat of the next open decision
    (seat order when several are open at once). ``observe`` gives ``{"observation": float32 vector
    (werewolf.env.encoding), "action_mask": int8 mask}``; ``infos[agent]`` holds ``legal`` (the ids of
    the legal actions) and, with a ``lang``, ``text``: the seat's view in that language (narrated
    when first read). Every agent
    stays in the game to its end (a dead seat is never selected); then all are terminated with
    rewards +1 (winners) / −1 (the others), or 0 for every seat when nobody won.
    """

    metadata = {"name": "werewolf_v1", "render_modes": ["ansi"], "is_parallelizable": False,
                "encoding_version": ENCODING_VERSION}

    def __init__(self, ruleset: str = "classic", deck: str | tuple[str, ...] | list[str] | None = None,
                 options: Mapping[str, Any] | None = None, seed: int | None = None, lang: str | None = "en",
                 players: int | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        self.set_table(Table(ruleset, deck, options, seed, lang, players), render_mode)
        self._seat = {a: i + 1 for i, a in enumerate(self.possible_agents)}
        self._names = ["", *self.possible_agents]  # by seat number

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.t.new_game(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.final_rewards: dict[str, float] = {}  # every seat's reward, once the game is over
        self._select()

    def _select(self) -> None:
        t = self.t
        d = t.current()
        if d is None:
            self.final_rewards = {agent_name(s): r for s, r in t.rewards().items()}
            for a, r in self.final_rewards.items():
                self.rewards[a] = r
                self.terminations[a] = True
            self.agent_selection = self.agents[0]
            self._decision: Decision | None = None
            self._accumulate_rewards()
            return
        a = self._names[d.seat]
        self.agent_selection = a
        self._decision = d
        self._legal = legal = t.space.legal(d)
        self.infos[a] = {"legal": legal[2]} if t.lang is None else t.info(d.seat, d, legal[2])

    def step(self, action: int | None) -> None:
        a = self.agent_selection
        if self.terminations[a] or self.truncations[a]:
            self._step_out(a, action)
            return
        d = self._decision
        assert d is not None
        self._cumulative_rewards[a] = 0.0
        self.infos[a] = {}
        self.t.play(d, action, self._legal)
        self._select()  # rewards come at the end only: accumulated there

    def _step_out(self, a: str, action: int | None) -> None:
        """A seat leaves the finished game (PettingZoo's ``_was_dead_step``, for a game whose seats
        all end at once: the next to leave is simply the first one left)."""
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        del self.terminations[a], self.truncations[a], self.rewards[a], self._cumulative_rewards[a], self.infos[a]
        self.agents.remove(a)
        if self.agents:
            self.agent_selection = self.agents[0]
        rewards = self.rewards
        for k in rewards:  # given once, at the end (``_cumulative_rewards`` keeps them for ``last``)
            rewards[k] = 0.0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        d = self._decision if agent == self.agent_selection else None
        if d is not None:
            return {"observation": self.t.vector(seat, d), "action_mask": self._legal[0]}
        t = self.t  # the masks are read-only arrays, shared
        return {"observation": t.final(seat) if t.game.over else t.vector(seat, None), "action_mask": t.no_mask}

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        lang = self.t.lang or "en"
        return "\n".join(line for e in self.t.game.events if e.to is None
                         for line in [narrate(e.as_json(), lang, None)] if line)

    def close(self) -> None:
        pass
