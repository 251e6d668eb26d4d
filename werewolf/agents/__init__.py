"""Players: anything that answers the engine's decisions.

A person at a terminal, a phone, a script, a bot, an LLM or an RL policy all
implement ``Agent``. An agent sees only its own seat: it is handed a
``SeatView`` (``werewolf.core.views``), never the ``Game``, whose table holds
every role.

``Host`` sits between a game and its agents: it reads the log once, hands each
seat's events to that seat's view, asks the agent of a seat whose turn it is to
speak, and keeps what is said as ``statement`` events of the public log (from
the agents' structured acts, or parsed from the text of live speech), so every
seat hears every other seat's statements whoever made them. Trusted
engine-side players (``RandomAgent``, ``Game.play_out``) skip the views.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from werewolf.agents.speech import Act, Channel, speech_text
from werewolf.core.decisions import Decision, Move, Speak
from werewolf.core.events import Event
from werewolf.core.game import Game
from werewolf.core.views import Log, SeatView
from werewolf.printable import scrub

# A speaking turn's words: text (parsed into statements), structured acts, or nothing.
Said = str | Sequence[Act] | None

# Public events that are a seat's speaking turn in a game without live speech (the log records that it
# spoke; what it says is asked of its agent), and the live events whose text is read as statements.
_HOOKS: Final = frozenset({"speech", "last_words", "discussion", "game_start"})
_LIVE_HOOKS: Final = frozenset({"speech", "last_words_text", "game_start"})


# Compiled with the engine (scripts/compile.py); front ends, tests and users subclass it in Python.
@mypyc_attr(allow_interpreted_subclasses=True)
class Agent:
    """Plays one or more seats, each from its own ``SeatView``.

    ``act`` answers ``view.decision`` with a legal move (a dict, e.g. ``view.move("vote:4")``) or
    None for the decision's default. ``speak`` is called at the seat's speaking turns (and for a
    live ``speak`` decision): text, a list of ``Act`` statements, or None for silence.
    """

    lang: str = "en"  # the language structured statements are rendered in for live speech

    def act(self, view: SeatView) -> Move | None:
        raise NotImplementedError

    def speak(self, view: SeatView) -> Said:
        return None

    def value_of(self, view: SeatView) -> Any:
        """The engine value of this agent's answer to ``view.decision``, unchecked: for trusted agents
        in fast loops (``Host.values``); a move it returns must be legal."""
        d = view.decision
        assert d is not None
        move = self.act(view)
        return d.default_value() if move is None else d.value(move)


class RandomAgent(Agent):
    """The ``random`` agent kind: each decision's value drawn by ``Decision.random_value``, as its rules weigh
    the choices (uniform among seats and options, an interrupt such as a wolf's self-destruct taken only
    3% of the times it is offered); it never speaks. Trusted: answers without views. Not the RL
    environments' ``uniform`` policy, uniform over the legal actions (``werewolf.env.baselines``)."""

    def __init__(self, seed: int | None = None, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random(seed)

    def value(self, decision: Decision) -> Any:
        """A random legal value for ``decision``, without a view (the trusted fast path)."""
        return decision.random_value(self.rng)

    def value_of(self, view: SeatView) -> Any:
        d = view.decision
        assert d is not None
        return d.random_value(self.rng)

    def act(self, view: SeatView) -> Move | None:
        """The move of the value ``value`` draws (one meaning of ``random`` whichever way it is asked)."""
        d = view.decision
        if d is None:
            return None
        value = choice_key(d.random_value(self.rng))
        for m in d.options():
            if choice_key(d.value(m)) == value:
                return m
        return None  # a value no option gives (none known): the decision's default


def choice_key(v: Any) -> Any:
    """A choice of seats compared as a set (a pair drawn in either order is one move)."""
    if isinstance(v, tuple) and all(isinstance(x, int) for x in v):
        return tuple(sorted(v))
    return v


_RANDOM_OWN: Final = ("act", "speak", "value", "value_of")


def plain_random(agent: Agent | None) -> bool:
    """Whether ``agent`` is a ``RandomAgent`` as it is, so that its fast path (a random value, no view,
    no speech) plays as it would: a subclass that overrides ``act``, ``speak``, ``value`` or
    ``value_of`` is asked through its own methods, as any agent is."""
    if not isinstance(agent, RandomAgent):
        return False
    for cls in type(agent).__mro__:
        if cls is RandomAgent:
            return True
        if any(name in cls.__dict__ for name in _RANDOM_OWN):
            return False
    return True


def statement_event(act: Act, phase: str) -> Event:
    """A statement as an event of the public log: ``seat``, ``kind`` and whichever of ``target``,
    ``role`` and ``result`` it has."""
    data: dict[str, Any] = {"seat": act.seat, "kind": act.kind}
    if act.target is not None:
        data["target"] = act.target
    if act.role is not None:
        data["role"] = act.role
    if act.result is not None:
        data["result"] = act.result
    return Event("statement", phase, data)


def statement_act(e: Event) -> Act:
    """The ``Act`` of a ``statement`` event."""
    d = e.data
    return Act(d["seat"], d["kind"], d.get("target"), d.get("role"), d.get("result"), e.phase)


class _Seat:
    """What the host keeps of one seat: its private log, its role, how much it had seen at its last view."""

    __slots__ = ("events", "at", "log", "public_seen", "private_seen", "role")

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.at: list[int] = []  # each private event's position in the merged order
        self.log = Log(self.events, self.at, 0)
        self.public_seen = 0
        self.private_seen = 0
        self.role: str | None = None


class Host:
    """Hands seat views to the agents of one game and keeps the table's statements.

    ``agents`` maps seats to their agents (``default`` for the rest; None: nobody plays them
    here, e.g. the people of a web room). Call ``sync`` after the game moved (``ask`` and
    ``run`` do), then ``view``/``ask``. Statements said at a seat's turn are that seat's: the
    host asks only the speaker's agent and signs the statements with its seat.
    """

    def __init__(self, game: Game, agents: Mapping[int, Agent] | None = None, default: Agent | None = None,
                 talk: Channel | None = None, free_speech: bool = True) -> None:
        self.game = game
        # Free speech (a game without live speech): a text an agent said goes into the public log verbatim,
        # as a ``said`` event, before the statements parsed from it (marked ``parsed``): a model reads the
        # words, a bot the statements. Off: the statements alone (structured-only).
        self.free_speech = free_speech
        # Anything with ``asked(host, decision)``, ``answered(host, decision)`` and ``said(host, seat, said,
        # acts, at)``: told of every decision and speaking turn (``werewolf.sim.dataset``'s records). A hook,
        # not a subclass: this class is compiled with the engine.
        self.recorder: Any = None
        self.agents: dict[int, Agent] = dict(agents or {})
        self.default = default
        self.talk = talk if talk is not None else Channel()  # every statement, in order (a transcript)
        self.live = bool(game.setup.live_speech)
        self.cursor = 0  # how many of the game's events were read
        self.count = 0  # positions handed out: the merged order of every seat's log
        self.players = 0
        self.public: list[Event] = []
        self.public_at: list[int] = []
        self.seats: dict[int, _Seat] = {}
        self.after: list[int] = []  # each statement's (and said text's) place: how many of the game's events were out
        self.texts: list[tuple[int, str, str]] = []  # (seat, phase, text) of every text said, free speech on
        self.ruleset = game.setup.ruleset
        self._public_log = Log(self.public, self.public_at, 0)

    # -- reading the log ---------------------------------------------------------------------
    def sync(self, upto: int = -1) -> None:
        """Read the game's new events into the seats' logs; at a speaking turn of a game without
        live speech, ask the speaker's agent what it says (live: read the text it said). ``upto``: read
        no further than the first ``upto`` events (an RL environment holding its reading back at a
        speaking turn it serves itself: what is said there must come before what follows)."""
        events = self.game.events
        i, n = self.cursor, len(events)
        if 0 <= upto < n:
            n = upto
        if i >= n:
            return
        public, public_at, seats = self.public, self.public_at, self.seats
        hooks = _LIVE_HOOKS if self.live else _HOOKS
        count = self.count
        while i < n:
            e = events[i]
            i += 1
            to = e.to
            if to is None:
                public.append(e)
                public_at.append(count)
                count += 1
                if e.type in hooks:  # a speaking turn, a text said, the number of players
                    self.cursor, self.count = i, count
                    self._hook(e)
                    count = self.count
            elif to:
                for s in to:
                    st = seats.get(s)
                    if st is None:
                        st = seats[s] = _Seat()
                    st.events.append(e)
                    st.at.append(count)
                    if (e.type == "role" or e.type == "took") and e.data.get("seat") == s:
                        st.role = str(e.data["role"])
                count += 1
        self.cursor, self.count = i, count

    def _hook(self, e: Event) -> None:
        t = e.type
        if t == "game_start":
            self.players = int(e.data["players"])
        elif self.live:
            text = e.data.get("text")
            if isinstance(text, str) and text:
                self.post(int(e.data["seat"]), text)
        elif t == "discussion":  # one-night: everyone speaks, in seat order
            for s in range(1, self.players + 1):
                self._turn(s, "discussion")
        else:
            self._turn(int(e.data["seat"]), str(e.data.get("part", "last_words")))

    def _public(self, e: Event) -> None:
        self.public.append(e)
        self.public_at.append(self.count)
        self.count += 1

    def _turn(self, seat: int, part: str) -> None:
        agent = self.agents.get(seat, self.default)
        if agent is None or plain_random(agent):
            return
        self.post(seat, agent.speak(self.view(seat, part=part)))

    def post(self, seat: int, said: Said) -> list[Act]:
        """Put what ``seat`` said into the public log as statements (text is parsed); returns them."""
        if not said:
            return []
        at = self.cursor
        phase = self.game.phase
        verbatim = False
        if isinstance(said, str):
            from werewolf.agents.parse import parse

            acts = parse(said, seat)
            if self.free_speech and not self.live:
                verbatim = True
                self.texts.append((seat, phase, said))
                self.after.append(self.cursor)
                self._public(Event("said", phase, {"seat": seat, "text": said}))
        else:
            acts = [a if a.seat == seat else Act(seat, a.kind, a.target, a.role, a.result, a.phase) for a in said]
        for a in acts:
            self.talk.post(a)
            self.after.append(self.cursor)
            e = statement_event(a, a.phase or phase)
            if verbatim:
                e.data["parsed"] = True
            self._public(e)
        if self.recorder is not None:
            self.recorder.said(self, seat, said, acts, at)
        return acts

    # -- views -------------------------------------------------------------------------------
    def view(self, seat: int, decision: Decision | None = None, part: str | None = None) -> SeatView:
        """``seat``'s view now (call ``sync`` first); its ``*_since`` count from its previous view."""
        st = self.seats.get(seat)
        if st is None:
            st = self.seats[seat] = _Seat()
        np = len(self.public)
        pub = self._public_log
        if pub.stop != np:  # one prefix for every seat's view until the log grows
            pub = self._public_log = Log(self.public, self.public_at, np)
        priv = st.log
        nq = len(st.events)
        if priv.stop != nq:
            priv = st.log = Log(st.events, st.at, nq)
        if part is None and isinstance(decision, Speak):
            part = decision.part
        table = self.game.table
        v = SeatView(seat, self.ruleset, self.players, st.role, table.phase, pub, priv, st.public_seen,
                     st.private_seen, decision, self.game.over, table.result, part, self.live)
        st.public_seen, st.private_seen = np, nq
        return v

    def agent(self, seat: int) -> Agent | None:
        return self.agents.get(seat, self.default)

    def ask(self, decision: Decision) -> Move | None:
        """The move of the seat's agent for ``decision`` (None: the default)."""
        self.sync()
        agent = self.agent(decision.seat)
        if agent is None:
            return None
        v = self.view(decision.seat, decision)
        if decision.act == "speak":
            said = agent.speak(v)
            if said is None or isinstance(said, str):
                text = said
            else:
                acts = [a if a.seat == decision.seat else Act(decision.seat, a.kind, a.target, a.role, a.result)
                        for a in said]
                text = speech_text(acts, agent.lang)
            # An agent with nothing to say passes its turn (the log says so; in a one-night
            # discussion a pass is "ready to vote").
            # (A model's words are scrubbed like stored text: what a person sends is refused instead.)
            text = scrub(text)[:Speak.MAX] if text else None
            return {"act": "speak", "text": text} if text else {"act": "speak", "pass": True}
        return agent.act(v)

    def answer(self, decision: Decision) -> None:
        """Let the seat's agent answer ``decision`` (checked by the engine; None: the default)."""
        recorder = self.recorder
        if recorder is None:
            self._answer(decision)
            return
        self.sync()
        recorder.asked(self, decision)
        self._answer(decision)
        recorder.answered(self, decision)

    def _answer(self, decision: Decision) -> None:
        agent = self.agent(decision.seat)
        if plain_random(agent):
            assert isinstance(agent, RandomAgent)
            self.game.answer_value(decision, agent.value(decision))
            return
        move = self.ask(decision)
        if move is None:
            self.game.decline(decision)
        else:
            self.game.answer(decision.seat, move)

    def values(self, agent: Agent) -> list[Any]:
        """``agent``'s values for every decision of the open request, each from its seat's view, unchecked
        (``Agent.value_of``): the simulations' loop, answered at once with ``Game.answer_all``."""
        self.sync()
        value_of = agent.value_of
        # ``view`` inlined (one view per decision of every simulated game): the request's views share
        # the public log's prefix, and each seat's private one.
        np = len(self.public)
        pub = self._public_log
        if pub.stop != np:
            pub = self._public_log = Log(self.public, self.public_at, np)
        g = self.game
        table, ruleset, players, live, seats = g.table, self.ruleset, self.players, self.live, self.seats
        phase, result = table.phase, table.result
        out: list[Any] = []
        for d in g.request:
            seat = d.seat
            st = seats.get(seat)
            if st is None:
                st = seats[seat] = _Seat()
            priv = st.log
            nq = len(st.events)
            if priv.stop != nq:
                priv = st.log = Log(st.events, st.at, nq)
            v = SeatView(seat, ruleset, players, st.role, phase, pub, priv, st.public_seen, st.private_seen, d,
                         False, result, d.part if isinstance(d, Speak) else None, live)
            st.public_seen, st.private_seen = np, nq
            out.append(value_of(v))
        return out

    def run(self) -> Game:
        """Play the game to its end."""
        game = self.game
        while not game.over:
            self.sync()
            for d in list(game.request):
                self.answer(d)
        self.sync()
        return game


def seat_view(game: Game, seat: int, decision: Decision | None = None) -> SeatView:
    """A one-off view of ``seat`` now (a new ``Host`` reads the whole log: for tests and tools, not loops)."""
    host = Host(game)
    host.sync()
    return host.view(seat, decision)


def play(game: Game, agents: Mapping[int, Agent], default: Agent | None = None) -> Game:
    """Run ``game`` to its end, asking each seat's agent (``default`` for the rest)."""
    if default is not None and plain_random(default) and not agents:
        assert isinstance(default, RandomAgent)
        # Every seat draws at random: answer each request in one go.
        game.play_out(default.rng)
        return game
    return Host(game, agents, default).run()
