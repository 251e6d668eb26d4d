"""The PettingZoo AEC environment: one seat acts at a time."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from werewolf import i18n
from werewolf.agents import Host, statement_act, statement_event
from werewolf.agents.speech import Act, render
from werewolf.core.decisions import Decision
from werewolf.core.game import Game, Setup
from werewolf.env.actions import ActionSpace, _key, action_space, max_seats
from werewolf.env.encoding import (
    ENCODING_VERSION,
    PRIVATE_TYPES,
    PUBLIC_TYPES,
    DecisionEncoder,
    PrivateEncoder,
    PublicEncoder,
    size,
    state_size,
    true_state,
)
from werewolf.env.speech import HOOKS, MAX_STATEMENTS, SpeechSpace, SpeechTurn, decode
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
                 players: int | None, speech: bool = False, max_statements: int = MAX_STATEMENTS) -> None:
        self.ruleset = ruleset
        self.speech = bool(speech)
        if speech and not 1 <= max_statements <= 20:
            raise ValueError(f"max_statements must be from 1 to 20, not {max_statements!r}")
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
        self._acts = self.decisions._made  # its encodings, by (act, interrupt)
        self.no_mask = np.zeros(self.space.n, dtype=np.int8)
        self.wait_mask = np.zeros(self.space.n, dtype=np.int8)
        self.wait_mask[0] = 1
        self.no_mask.flags.writeable = self.wait_mask.flags.writeable = False
        self.max_seats = max_seats(ruleset)
        self.state_size = state_size(ruleset)
        self.talk = SpeechSpace(ruleset, self.space.index, self.space.n, max_statements)
        # Who plays the seats the environment does not (the single-agent wrapper's opponents): a
        # ``Host`` fed the log as far as the environment has read it (no further: a speaking turn the
        # environment serves comes before what follows it), and their statements.
        self.hosted = False  # set before a game (``werewolf.env.single``): a host per game from then on
        self.host: Host | None = None

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
            self._private_block()
        else:  # the same buffers, cleared: a reset per game costs no allocation
            self.public.buf[:] = 0.0
            # zeros and each seat's one-hot (the first field of its part) in one copy, not a fill and a scatter
            np.copyto(self.privates, self._blank)
            for enc in self.by_seat:
                enc.current = enc.current_i = None
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
        if self.speech:  # the roles of the deck (public: the box on the table), for the claims' mask
            center = getattr(self.game.table, "center", None) or ()
            self.deck = self.talk.for_deck({*self.game.dealt, *center})
        self.turns: list[tuple[int, str]] = []  # the speaking turns opened by the last hook read, in order
        self.turn: SpeechTurn | None = None  # the speaking turn open now (speech=True)
        self.statements: list[Act] = []  # every statement said at this table, in order (a transcript)
        if self.hosted:
            self.host = Host(self.game)
        self.sync()

    def sync(self) -> None:
        """Read the game's new events into the encoders (each event once). With speech, reading stops
        after an event that opens speaking turns: the turns are served before what follows is read."""
        events = self.game.events
        n = len(events)
        if self.speech and self.cursor < n:
            n = self._next_hook(events, n)
        if self.cursor < n:
            public, private = self.public.update, self.by_seat
            if self.lang is None:
                # Only the events an encoder reads (most of a log, the night's steps and the turns, are not).
                apply = self.public.apply
                for e in events[self.cursor:n]:
                    to, t = e.to, e.type
                    if to is None:
                        if t in PUBLIC_TYPES:
                            apply(t, e.data)
                    elif t in PRIVATE_TYPES:
                        for s in to:  # a seat of the audience is a seat of the game (never 0)
                            private[s].apply(t, e.data)
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
        if self.turns:
            self._open_turn()
            return
        game = self.game
        if game.request is not self.request:
            request = self.request = game.request
            n = len(request)
            if n == 1:
                self.queue = [0]
            else:  # seat order: most often the engine's own (everyone's vote), kept without a sort
                seats = [d.seat for d in request]
                queue = list(range(n))
                if seats != sorted(seats):
                    queue.sort(key=seats.__getitem__)
                self.queue = queue
            self.at = 0

    def _private_block(self, old: dict[int, PrivateEncoder] | None = None) -> None:
        """Every seat's private part as the rows of one block (zeroed at once at each reset); ``old``: the
        encoders to take the contents of (an unpickled table's)."""
        seats = range(1, self.players + 1)
        self.privates = np.zeros((self.players, self.cut[1] - self.cut[0]), dtype=np.float32)
        self.private = {s: PrivateEncoder(self.ruleset, s, self.privates[s - 1]) for s in seats}
        self._blank = self.privates.copy()  # the block as a game starts: each seat's one-hot, zeros elsewhere
        if old is not None:
            for s, enc in self.private.items():
                enc.buf[:] = old[s].buf
                enc.current, enc.current_i = old[s].current, old[s].current_i
        self.by_seat = [self.private[1], *self.private.values()]  # by seat number (index 0: unused)

    def _next_hook(self, events: list[Any], n: int) -> int:
        """How far to read now: up to and including the next event that opens speaking turns (its turns
        are queued in ``turns``), or to ``n``."""
        for i in range(self.cursor, n):
            e = events[i]
            if e.to is None and e.type in HOOKS:
                d = e.data
                if e.type == "discussion":  # one-night: every seat speaks, in seat order
                    self.turns = [(s, "discussion") for s in range(1, self.players + 1)]
                else:
                    self.turns = [(int(d["seat"]), str(d.get("part", "last_words")))]
                return i + 1
        return n

    def _open_turn(self) -> None:
        seat, part = self.turns.pop(0)
        self.turn = SpeechTurn(seat, part)

    def end_turn(self) -> None:
        self.turn = None
        if self.turns:
            self._open_turn()
        else:
            self.sync()

    def current(self) -> Decision | None:
        """The next open decision in seat order, or the speaking turn open now (None: the game is over)."""
        if self.turn is not None:
            return self.turn
        if self.game.over or self.at >= len(self.queue):
            return None
        return self.request[self.queue[self.at]]

    def legal(self, d: Decision) -> tuple[np.ndarray, dict[int, Any], list[str]]:
        """``d``'s mask, the engine value of each legal action (a speaking turn: none) and the legal ids."""
        if isinstance(d, SpeechTurn):
            public = self.public
            sheriff = np.flatnonzero(public.sheriff)
            mask = self.talk.mask(d, self.players, public.alive, int(sheriff[0]) + 1 if len(sheriff) else None,
                                  self.deck)
            ids = self.space.ids
            return mask, {}, [ids[i] for i in np.flatnonzero(mask)]
        return self.space.legal(d)

    def say(self, seat: int, acts: list[Act]) -> None:
        """Put statements of ``seat`` into every seat's public encoding (and the opponents' views)."""
        if not acts:
            return
        host = self.host
        if host is not None:
            self.feed_host()
            acts = host.post(seat, acts)
            made = host.public[-len(acts):]
        else:
            phase = self.game.phase
            made = [statement_event(a, a.phase or phase) for a in acts]
        self.statements += acts
        for e in made:
            self.public.update(e)
            if self.lang is not None:
                for lst in self.seen.values():
                    lst.append(e)

    def feed_host(self) -> None:
        """Bring the opponents' host to the events read so far (and no further)."""
        assert self.host is not None
        self.host.sync(self.cursor)

    def answer(self, d: Decision, value: Any) -> None:
        """Answer the engine's decision ``d`` with a legal ``value`` (an opponent's, checked by the caller)."""
        self.at += 1
        self.game.answer_value(d, value)
        self.sync()

    def play(self, d: Decision, action: int | None,
             legal_now: tuple[np.ndarray, dict[int, Any], list[str]] | None = None) -> None:
        if type(d) is SpeechTurn:
            self._speak(d, action, legal_now)
            return
        mask, values, legal = legal_now or self.space.legal(d)
        i = -1 if action is None else int(action)
        if i not in values:  # the legal actions, and the engine's value of each
            name = self.space.ids[i] if 0 <= i < self.space.n else action
            raise ValueError(f"action {action} ({name}) is not legal for seat {d.seat}'s {d.act!r} decision "
                             f"(legal: {', '.join(f'{self.space.index[x]}={x}' for x in legal)})")
        self.at += 1
        self.game.answer_value(d, values[i])
        self.sync()

    def _speak(self, turn: SpeechTurn, action: int | None,
               legal_now: tuple[np.ndarray, dict[int, Any], list[str]] | None) -> None:
        mask = (legal_now or self.legal(turn))[0]
        i = -1 if action is None else int(action)
        if not (0 <= i < self.space.n and mask[i]):
            name = self.space.ids[i] if 0 <= i < self.space.n else action
            raise ValueError(f"action {action} ({name}) is not legal for seat {turn.seat}'s speaking turn "
                             f"(legal: {', '.join(self.legal(turn)[2])})")
        if i == self.talk.done:
            self.end_turn()
            return
        act = decode(self.space.ids[i], turn.seat)
        assert act is not None
        turn.said.append(i)
        self.say(turn.seat, [act])
        if len(turn.said) >= self.talk.max_statements:
            self.end_turn()

    def vector(self, seat: int, d: Decision | None) -> np.ndarray:
        # Three slice copies into a new array: half the time of np.concatenate for these sizes.
        out = np.empty(self.size, dtype=np.float32)
        a, b = self.cut
        out[:a] = self.public.buf
        out[a:b] = self.by_seat[seat].buf
        # ``self.decisions.encode(d)``'s cache read inline (every step); made there on a miss
        part = self._acts.get((d.act, d.interrupt)) if d is not None else None
        out[b:] = self.decisions.encode(d) if part is None else part
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
            block[:, a:b] = self.privates
            block[:, b:] = self.decisions.encode(None)
            self.handed = [False] * (n + 1)
        if self.handed[seat]:  # (its row is the policy's now, changed or not)
            return self.vector(seat, None)
        self.handed[seat] = True
        return block[seat - 1]

    def state(self) -> np.ndarray:
        """The whole hidden state, encoded (``encoding.state_layout``): for centralised critics at training
        time only. It holds every seat's role and private knowledge: never a policy's input at play."""
        out = np.zeros(self.state_size, dtype=np.float32)
        a, b = self.cut
        out[:a] = self.public.buf
        q = b - a
        out[a:a + self.players * q] = self.privates.ravel()
        true_state(self.game, self.ruleset, out[a + self.max_seats * q:])
        return out

    # -- pickling: a game's open decisions are the engine's objects, made again when it is unpickled --
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        # Whether the game's request was read yet (a speaking turn holds the reading back): a read one is
        # the unpickled game's request, one not read yet is read there as here, at the turn's end.
        state["request"] = hasattr(self, "game") and self.request is self.game.request
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.request = self.game.request if state["request"] else []
        if "private" in state:  # the encoders were pickled apart from the block: made its rows again
            self._private_block(state["private"])

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
            if e.type == "statement":  # said at the table: the sentence, as the bots' speech renders it
                lines.append(render(statement_act(e), lang, speaker=True))
            else:
                lines.append(narrate(e.as_json(), lang, seat))  # None: nothing to show this seat
        out = "\n".join(line for line in lines[:n] if line)
        if d is not None:
            legal = self.legal(d)[2]
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

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (), None, None, iter(dict(self, text=self.get("text")).items()))  # the text made now

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
        self.state_space = spaces.Box(0.0, np.inf, (table.state_size,), np.float32)

    def state(self) -> np.ndarray:
        """The whole hidden state of the game, encoded (``werewolf.env.encoding.state_layout``): every seat's
        role and private view. For centralised critics (CTDE) at training time ONLY: a policy that acts
        must be given its seat's observation, never this."""
        return self.t.state()

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
                 players: int | None = None, render_mode: str | None = None, speech: bool = False,
                 max_statements: int = MAX_STATEMENTS) -> None:
        super().__init__()
        self.set_table(Table(ruleset, deck, options, seed, lang, players, speech, max_statements), render_mode)
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
        self._rewards_out = False  # the rewards of the end are in ``rewards`` (zeroed as the first seat leaves)
        self._decision: Decision | None = None
        self._select()

    def _select(self) -> None:
        t = self.t
        # ``t.current()`` and ``t.legal(d)``, inlined: this runs at every step.
        turn = t.turn
        if turn is not None:
            d: Decision | None = turn
            legal = t.legal(turn)
        elif t.game.over or t.at >= len(t.queue):
            d = None
        else:
            d = t.request[t.queue[t.at]]
            space = t.space  # ``space.legal(d)``'s cache read inline; made there on a miss
            key = _key(d)
            hit = space._cache.get(key) if key is not None else None
            legal = space.legal(d) if hit is None else hit
        if d is None:  # the end: every seat's reward, and every seat terminated (``_accumulate_rewards`` inlined)
            names = self._names
            final = self.final_rewards = {names[s]: r for s, r in t.rewards().items()}
            rewards, terminations, cumulative = self.rewards, self.terminations, self._cumulative_rewards
            for a, r in final.items():
                rewards[a] = r
                terminations[a] = True
                cumulative[a] += r
            self.agent_selection = self.agents[0]
            self._decision = None
            self._rewards_out = True
            return
        a = self._names[d.seat]
        self.agent_selection = a
        self._decision = d
        self._legal = legal
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
        t = self.t
        values = self._legal[1]
        if t.turn is None and action in values and type(action) is int:  # ``t.play``, inlined: every step
            t.at += 1
            t.game.answer_value(d, values[action])
            t.sync()
        else:  # a speaking turn, an action of another type (numpy's), or an illegal one (refused there)
            t.play(d, action, self._legal)
        self._select()  # rewards come at the end only: accumulated there

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_decision"] = state["_legal"] = None  # the engine's objects: found again in the unpickled game
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if hasattr(self.t, "game"):  # reset before it was pickled: the selected seat's decision, as ``_select``
            d = self._decision = self.t.current()
            if d is not None:
                self._legal = self.t.legal(d)

    def _step_out(self, a: str, action: int | None) -> None:
        """A seat leaves the finished game (PettingZoo's ``_was_dead_step``, for a game whose seats
        all end at once: the next to leave is simply the first one left)."""
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        del self.terminations[a], self.truncations[a], self.rewards[a], self._cumulative_rewards[a], self.infos[a]
        agents = self.agents
        if agents[0] == a:
            del agents[0]
        else:
            agents.remove(a)
        if agents:
            self.agent_selection = agents[0]
        if self._rewards_out:  # given once, at the end (``_cumulative_rewards`` keeps them for ``last``)
            self._rewards_out = False
            rewards = self.rewards
            for k in rewards:
                rewards[k] = 0.0

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``, with the selected seat's observation made inline (every step reads it)."""
        a = self.agent_selection
        obs: Any = None
        if observe:
            d = self._decision
            t = self.t
            if d is not None:
                obs = {"observation": t.vector(self._seat[a], d), "action_mask": self._legal[0]}
            elif t.game.over and t.turn is None:  # the seats leaving the finished game
                obs = {"observation": t.final(self._seat[a]), "action_mask": t.no_mask}
            else:
                obs = self.observe(a)
        return obs, self._cumulative_rewards[a], self.terminations[a], self.truncations[a], self.infos[a]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        d = self._decision if agent == self.agent_selection else None
        if d is not None:
            return {"observation": self.t.vector(seat, d), "action_mask": self._legal[0]}
        t = self.t  # the masks are read-only arrays, shared
        ended = t.game.over and t.turn is None
        return {"observation": t.final(seat) if ended else t.vector(seat, None), "action_mask": t.no_mask}

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        lang = self.t.lang or "en"
        return "\n".join(line for e in self.t.game.events if e.to is None
                         for line in [narrate(e.as_json(), lang, None)] if line)

    def close(self) -> None:
        pass
