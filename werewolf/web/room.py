"""One room: its game, its seats and tokens, the sockets watching it, its pacer, and the views of it.

A ``Room`` holds one game (``werewolf.core.game.Game``), the seats' names and
token hashes, the seats bots play, the sockets watching it and its pacer
(``werewolf.web.pacing``: which of the game's events are out), and the features'
state (the pack's, ``werewolf.web.pack``; the moderator voice's, ``werewolf.web.voice``;
the speech timer's, ``werewolf.web.timers``), which each feature reads and changes through
the small interface it declares. It makes every seat's view and moves the game on by the
clock and the bots (``Room.drive``); the hub (``werewolf.web.hub``) orders every change of it
under its lock, commits and publishes.

Bots: one kind a room (``werewolf.web.seats.BOTS``; heuristic by default, stored with the room).

The one-night discussion (live speech): rounds of statements until every seat
is ready to vote (RULES.md §3.6). Its clock is the server's: it starts at the
``discussion`` event, its end is stored with the room in the same transaction as
the answers that opened the discussion (so a restart keeps it), and once it has
run out every open turn of the discussion is declined as it comes, which ends it.
"""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import hmac
import logging
import math
import random
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from werewolf.agents import Agent, Host, RandomAgent
from werewolf.agents.heuristic import ONE_NIGHT, HeuristicAgent
from werewolf.core.decisions import Decision
from werewolf.core.errors import IllegalMove
from werewolf.core.events import Event
from werewolf.core.game import Game
from werewolf.web import pacing, timers
from werewolf.web import pack as wolfpack
from werewolf.web.errors import ApiError
from werewolf.web.jsontext import dumps
from werewolf.web.lobby import stranger
from werewolf.web.pacing import Pace, Pacer
from werewolf.web.seats import BOTS, LEGACY_BOT, seat_agents
from werewolf.web.state import Sight, Subscriber, seat_count, series_info, setup_from_json, token_hash
from werewolf.web.store import RoomRecord, Store
from werewolf.web.text import Worded, render
from werewolf.web.voice import Voice

log = logging.getLogger("werewolf.web")

_UNSHOWN: list[Decision] = []  # the request while the pacer holds it back (one object: its generation stays)
MAX_TALK = 7 * 86400.0  # the longest discussion clock (a longer one is as good as unlimited)
_ABSENT = object()  # (a field a view did not have)


def _changed(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``new`` that ``old`` lacks or holds otherwise. The same object is the same value, and is
    not compared (most fields of a view are the objects the room shares between its views, made once a state)."""
    return {k: x for k, x in new.items() if (o := old.get(k, _ABSENT)) is not x and o != x}


def _talk(d: Decision) -> bool:
    return d.act == "speak" and getattr(d, "part", None) == "discussion"


def yield_to_loop() -> None:
    """Called by the bots' thread between answers: hands the interpreter to the event loop's thread if it
    waits for it (a request came in), instead of making it wait for the switch interval at each wake-up."""
    time.sleep(0)


@dataclass(eq=False)
class Frame:
    """What every seat's view and socket signature share in one state of the room, made once for all of
    them (``Room.frame``): the released events, the open decisions as the table sees them, the phase, the
    speakers, the knife's voices, the open night step, the end."""

    key: tuple[Any, ...]
    shown: Sequence[Event]
    settled: bool
    pending: list[Decision]  # ``Room.pending()``
    over: bool
    phase: str
    speaking: tuple[int, ...]  # the seats asked to speak, in the request's order
    knife: list[Decision]  # the open knife the table sees (``wolfpack.sync``: the pack's state follows it)
    voices: frozenset[int]  # its seats
    step: Event | None  # the pacer's open night step
    result: tuple[Any, Any] | None  # the end, once every event is out
    moves: dict[int, tuple[list[dict[str, Any]], dict[str, Any]]] = field(default_factory=dict)
    memo: dict[str, Any] = field(default_factory=dict)  # what else is derived from this state, made on first use

    def options(self, d: Decision) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The decision's moves and description (made once: every push of its seat shows them)."""
        got = self.moves.get(id(d))
        if got is None:
            got = self.moves[id(d)] = (d.options(), d.describe())
        return got

    def asked(self, seat: int) -> list[Decision]:
        """``Room.pending(seat)``."""
        return [d for d in self.pending if d.seat == seat]


class Room:
    def __init__(self, rec: RoomRecord, default_timeout: float, clock: Callable[[], float] = time.time,
                 pace: Pace | None = None, rng: random.Random | None = None) -> None:
        self.rec = rec
        self.clock = clock
        self.id = rec.id
        self.setup = setup_from_json(rec.setup)
        self.game = Game.replay(self.setup, rec.answers)
        # The live room's pacing (``werewolf.web.pacing``): which events are out, when the next go.
        self.pace = Pace.parse(rec.pace) if rec.pace is not None else pace or pacing.DEFAULT_PACE
        self.rng = rng
        # A room stored before pacing has shown everything so far (None), unless it is still a lobby.
        paced = rec.paced if rec.paced is not None or rec.status != "lobby" else 0
        self.pacer = Pacer(self.pace, self.game.events, paced, clock(), rng)
        self.voice = Voice(self, rec.heard)  # face to face: the moderator device leads (werewolf.web.voice)
        self.pacer.gate = self.voice
        # By a weak reference: the room holds its pacer, and a cycle would keep a finished room in memory until a
        # full collection, which serve runs rarely (werewolf.web.runtime).
        me = weakref.ref(self)
        self.pacer.asks_person = lambda: (room := me()) is not None and any(
            d.seat not in room.bots for d in room.game.pending())
        self.stored_paced = rec.paced
        self.fixed_deal = rec.fixed_deal
        self.wake: asyncio.TimerHandle | None = None
        self.n = seat_count(self.game)
        self.names: dict[int, str] = {p.seat: p.name for p in rec.players}
        self.hashes: dict[int, str] = {p.seat: p.token_hash for p in rec.players}
        self.bots: set[int] = set(rec.bots)
        self.status = rec.status
        self.committed = len(rec.answers)
        self.timeout = rec.timeout if rec.timeout is not None else default_timeout
        self.lock = asyncio.Lock()
        self.version = 0
        self.subs: set[Subscriber] = set()
        self.deadlines: dict[int, tuple[Decision, float]] = {}
        self._views: dict[tuple[int | None, bool, str | None], tuple[int, str]] = {}
        self._frame: Frame | None = None
        # The frame every part of one view or one wake-up reads (``pin``): one state of the room, whose key
        # is not made again at each of the few dozen calls a push makes (a view's parts, its signature).
        self._pinned: Frame | None = None
        self.narrations: dict[tuple[int | None, str], list[str | None]] = {}
        # Each event narrated once per language, by its place in the log, for every seat it does not
        # name (key: (spectator?, lang)); ``werewolf.web.text.narrations``.
        self.told: dict[tuple[bool, str], dict[int, str | None]] = {}
        self.worded: dict[tuple[int, str], Worded] = {}  # each seat's open decisions in words (text.render)
        self._sights: dict[int | None, Sight] = {}
        self._encoded: dict[int, str] = {}  # id(event) -> its JSON (events live as long as the game)
        self.info_version = 0
        self._info: tuple[tuple[Any, ...], dict[str, Any]] | None = None  # (its key, ``info()``): shared_info
        # The last change (a lobby's from the database, so that a restart does not prolong it), and the
        # last change or request: a lobby expires after the first, a finished game after the second.
        self.touched = rec.active() if rec.status == "lobby" else clock()
        self.used = clock()
        self.asked = clock()  # a request's or a socket's last word about the room (not the game moving on)
        self._reset_counts()
        self.bot_kind = rec.bot_kind or LEGACY_BOT
        self.bot_kinds = dict(rec.bot_kinds or {})  # a kind per bot seat, over ``bot_kind`` (werewolf.web.seats)
        self._agents: dict[int, Agent] | None = None  # made once the bot seats are known (the start)
        self._host: Host | None = None  # hands the bots their seat views (made with the agents)
        self.talk_ends = rec.talk_ends
        self.pack = wolfpack.PackState.from_json(rec.pack)  # the wolves' picks and chat, interrupt intents
        self.speech = timers.SpeechClock(rec.speech_time, clock, self.setup.ruleset)  # the speaking turns' timer
        # The speeches the speech timer ended (the indices of their ``speech`` events): public, every log says
        # "time!" after them; stored with the answers that ended them (a decline reads as a "done").
        self.timed_out: list[int] = list(rec.timed_out or [])
        self.stored_timed_out = len(self.timed_out)
        self.track_deadlines()

    # -- who is asking -----------------------------------------------------------------------
    def who(self, token: str | None) -> tuple[bool, int | None]:
        """``(is_host, seat)`` of a token; raises 401 (missing) or 403 (unknown)."""
        if not token:
            raise ApiError(401, "missing token: send 'Authorization: Bearer <token>'")
        h = token_hash(token)
        host = hmac.compare_digest(h, self.rec.host_hash)
        seat = None
        for s, sh in self.hashes.items():
            if hmac.compare_digest(h, sh):
                seat = s
        if not host and seat is None:
            raise stranger(self, h)
        return host, seat

    def holds(self, seat: int, h: str) -> bool:
        """Whether ``seat`` is still held by the token whose hash is ``h`` (a socket's moves: checked once
        at its connect by ``who``, and at each move by this)."""
        return hmac.compare_digest(self.hashes.get(seat, ""), h)

    # -- state ------------------------------------------------------------------------------
    def info(self) -> dict[str, Any]:
        """The room as everyone may see it."""
        s = self.setup
        return {
            "id": self.id, "status": self.status, "ruleset": s.ruleset,
            "deck": list(s.deck) if isinstance(s.deck, tuple) else s.deck,
            "options": dict(s.options), "mode": self.rec.mode, "lang": self.rec.lang, "players": self.n,
            "timeout": self.timeout or None, "bot_kind": self.bot_kind,
            "bot_kinds": {str(s): k for s, k in sorted(self.bot_kinds.items())},
            # A deal its creator chose (a seed) is known to the creator: every screen says so.
            "fixed_deal": self.fixed_deal, "pace": self.pace.as_json(), **series_info(self.rec),
            # Steps shorter than a person's answer: a dead role's ends at once, and every screen says so.
            "instant_nights": self.pace.instant,
            "seats": [{"seat": n, "name": self.names.get(n), "bot": n in self.bots,
                       "taken": n in self.names or n in self.bots} for n in range(1, self.n + 1)],
        }

    def shared_info(self) -> dict[str, Any]:
        """``info()`` made once for every view until it changes (every change of it bumps ``info_version``,
        which the sockets' signatures watch too); the same object in every seat's view: never changed."""
        key = (self.info_version, self.status, self.rec.next_id)
        if self._info is None or self._info[0] != key:
            self._info = (key, self.info())
        return self._info[1]

    def free_seats(self) -> list[int]:
        return [n for n in range(1, self.n + 1) if n not in self.names and n not in self.bots]

    # -- what is out: the pacer's part of the game -----------------------------------------
    def shown(self) -> Sequence[Event]:
        """The game's events released so far (every view is made of these only); face to face, those the
        voice has said (``Voice.said``)."""
        return self.voice.said(self.pacer.shown(self.game.events), self.clock())

    def settled(self) -> bool:
        return self.pacer.settled(self.game.events)

    def pending(self, seat: int | None = None) -> list[Decision]:
        """The open decisions as the table sees them: none until everything the engine said is out."""
        f = self.frame()
        return f.pending if seat is None else f.asked(seat)

    def over(self) -> bool:
        return self.frame().over

    def phase(self) -> str:
        # (Not the frame's: the voice asks it while the frame is made, face to face.)
        shown = self.shown()
        return self.game.phase if len(shown) == len(self.game.events) or not shown else shown[-1].phase

    def frame(self) -> Frame:
        """The part of the room every view shares now, made once for all the seats' views and signatures
        of one state of the room. Its key moves with every change: ``changed`` bumps ``version``, an answer
        ``answered``, the pacer ``released`` and ``step``, a failed change puts back a new game (and bumps
        ``info_version``). Face to face the voice moves with the clock alone: no frame is kept (but one view
        is made of one frame: ``pin``)."""
        if self._pinned is not None:
            return self._pinned
        g, p = self.game, self.pacer
        key = (self.version, self.info_version, id(g), len(g.events), g.answered, p.released, p.step, self.status,
               len(self.timed_out), self.talk_ends)
        f = self._frame
        if f is not None and f.key == key and not self.voice.face_to_face:
            return f
        shown = self.shown()
        settled = self.settled()
        playing = self.status == "playing"
        pending = g.pending() if playing and settled and not self.voice.waits(self.clock()) else []
        over = g.over and settled
        phase = g.phase if len(shown) == len(g.events) or not shown else shown[-1].phase
        knife = wolfpack.sync(self) if playing else []
        result = g.result if over and len(shown) == len(g.events) else None
        f = self._frame = Frame(key, shown, settled, pending, over, phase,
                                tuple(d.seat for d in pending if d.act == "speak"), knife,
                                frozenset(d.seat for d in knife), p.open_step(g.events), result)
        return f

    def awake(self, seat: int, role: str | None, events: list[Event]) -> dict[str, Any] | None:
        """The open night step, when it is this seat's role's and asks it nothing (a witch with no potion
        left, a role only woken): the phone shows it, as a judge shows her, with a button that only
        dismisses it. Nobody else is told anything."""
        step = self.frame().step
        if step is None or role is None or step.data.get("role") != role or self.pending(seat):
            return None
        if self.voice.waits(self.clock()):  # face to face: woken once the voice has called the role
            return None
        if any(e.type == "death" and e.data.get("seat") == seat for e in events):
            return None
        return {"step": step.data.get("step"), "role": role}

    def sight(self, seat: int | None) -> Sight:
        """The released events ``seat`` may see, brought up to date with what came out since."""
        sight = self._sights.get(seat)
        shown = self.frame().shown
        if sight is None or sight.scanned > len(shown):  # new, or the room was rebuilt
            sight = self._sights[seat] = Sight()
        for i in range(sight.scanned, len(shown)):
            e = shown[i]
            if e.visible_to(seat):
                sight.index.append(i)
                sight.events.append(e)
                if e.type in ("role", "took") and e.data.get("seat") == seat:
                    sight.role = e.data.get("role")
        sight.scanned = len(shown)
        return sight

    def head(self, seat: int | None, host: bool = False) -> tuple[dict[str, Any], Sight | None]:
        """The view of one seat without its events, and what it sees (None in the lobby: nothing)."""
        sight = None
        if self.status == "lobby":
            out: dict[str, Any] = {"seat": seat, "role": None, "phase": "lobby", "pending": None,
                                   "decisions": None, "game_over": None, "awake": None}
        else:
            f = self.frame()
            sight = self.sight(seat)
            role = sight.role
            moves = [f.options(d) for d in f.asked(seat)] if seat is not None else []
            # The end once every event is out (face to face: once the voice says it), to everyone alike.
            result = f.result
            out = {"seat": seat, "role": role, "phase": f.phase,
                   "pending": [o for options, _ in moves for o in options] or None,
                   "decisions": [describe for _, describe in moves] or None,
                   "game_over": {"teams": result[0], "seats": result[1]} if result else None,
                   "awake": self.awake(seat, role, sight.events) if seat is not None else None}
        deadline = None
        if seat is not None and self.status == "playing":
            times = [t for d, t in self.deadlines.values() if d.seat == seat]
            deadline = min(times) if times else None
        out["deadline"] = deadline
        out["host"] = host
        speaking, discussion, speech = self.common()
        out["room"] = self.shared_info()
        out["speaking"] = speaking
        out["discussion"] = discussion
        out.update(wolfpack.view(self, seat))
        out["voice"] = self.voice.view(self.clock()) if seat is None else None
        out.update(speech)
        out["timeouts"] = self.timeouts(sight)
        return out, sight

    def common(self) -> tuple[list[int], dict[str, Any] | None, dict[str, Any]]:
        """The parts of a view that are the same for every seat (who speaks, the one-night discussion, the
        speech timer), made once a state of the room: every view holds the same objects, never changed."""
        f = self.frame()
        got = f.memo.get("common")
        if got is None:
            got = f.memo["common"] = (sorted(set(f.speaking)), self.discussion(), self.speech.view())
        return got  # type: ignore[no-any-return]

    def timeouts(self, sight: Sight | None) -> list[int]:
        """The places in the seat's own events of the speeches the speech timer ended (those it has seen)."""
        if sight is None or not self.timed_out:
            return []
        places = []
        for i in self.timed_out:
            at = bisect.bisect_left(sight.index, i)
            if at < len(sight.index) and sight.index[at] == i:
                places.append(at)
        return places

    def time_out(self, d: Decision) -> None:
        """End the speech ``d`` as its time is up (its default: "done"), and note that the timer ended it."""
        events = self.game.events
        start = len(events)
        self.game.decline(d)
        at = next((i for i in range(start, len(events)) if events[i].type == "speech"
                   and events[i].data.get("seat") == d.seat), None)
        if at is not None:
            self.timed_out.append(at)

    def view(self, seat: int | None, host: bool = False) -> dict[str, Any]:
        """The view of one seat (``None``: spectator or host), as the API sends it."""
        out, sight = self.head(seat, host)
        out["events"] = [e.as_json(with_audience=False) for e in sight.events] if sight is not None else []
        return out

    # -- the one-night discussion -------------------------------------------------------------
    def talking(self) -> bool:
        """Whether the one-night discussion is on: its rounds of statements are asked."""
        request = self.game.request
        return (self.status == "playing" and self.setup.ruleset in ONE_NIGHT and bool(request)
                and self.settled() and all(_talk(d) for d in request))

    def discussion(self) -> dict[str, Any] | None:
        """The discussion as every phone shows it: its length, when it ends, who is ready to vote."""
        if not self.talking():
            return None
        last: dict[int, tuple[str, Any]] = {}
        for s, act, value in self.game.answers:
            last[s] = (act, value)
        # Ready: its last answer is a turn without text, "done" or a pass (this round's, or an earlier round's).
        return {"seconds": self.talk_seconds(), "ends": self.talk_ends,
                "ready": [s for s in range(1, self.n + 1) if last.get(s) in (("speak", None), ("speak", ""))]}

    def talk_seconds(self) -> float | None:
        e = next((e for e in self.shown() if e.type == "discussion"), None)
        return None if e is None else e.data.get("seconds")

    def start_talk_clock(self) -> bool:
        """Start the discussion's clock once its ``discussion`` event is out; True when it starts now."""
        if self.talk_ends is not None or self.setup.ruleset not in ONE_NIGHT or not self.talking():
            return False
        seconds = self.talk_seconds()
        if seconds is None:  # no limit: it ends when everyone is ready
            return False
        try:
            length = float(seconds)
        except (OverflowError, TypeError, ValueError):  # an integer beyond floats: as good as unlimited
            length = MAX_TALK
        if math.isnan(length):
            return False
        self.talk_ends = time.time() + min(max(length, 0.0), MAX_TALK)
        return True

    def talk_up(self) -> bool:
        return self.talk_ends is not None and time.time() >= self.talk_ends

    def late_turns(self) -> list[Decision]:
        """The discussion's open turns once its time is up: each is declined as it comes."""
        if not self.talk_up():
            return []
        return [d for d in self.pending() if _talk(d)]

    def agents(self) -> dict[int, Agent]:
        if self._agents is None:
            rng = random.Random(f"bots:{self.setup.seed}:{self.id}")
            self._agents = seat_agents(BOTS, self.bot_kind, self.bot_kinds, rng, sorted(self.bots), self.setup,
                                       self.rec.lang)
            for agent in set(self._agents.values()):
                if isinstance(agent, HeuristicAgent):  # reloaded mid-discussion: the rounds it has talked
                    for s, act, _ in self.game.answers:
                        if act == "speak" and s in self.bots:
                            agent.rounds[s] = agent.rounds.get(s, 0) + 1
            self._host = Host(self.game, self._agents)
        return self._agents

    def _words(self, v: dict[str, Any], sight: Sight | None, seat: int | None, lang: str | None
               ) -> dict[str, Any] | None:
        if not lang:
            return None
        words = render(self, v, seat, lang, sight.events if sight else [], sight.index if sight else [])
        words["voice"] = self.voice.words(lang) if seat is None else None
        return words

    def _encode(self, sight: Sight | None, start: int = 0) -> str:
        """The seat's visible events from ``start`` on, as a JSON array (each event encoded once)."""
        if sight is None:
            return "[]"
        encoded = self._encoded
        for e in sight.events[start:]:
            if id(e) not in encoded:
                encoded[id(e)] = dumps(e.as_json(with_audience=False))
        return "[" + ",".join(encoded[id(e)] for e in sight.events[start:]) + "]"

    def pin(self) -> Frame | None:
        """Hold the room's frame for every call until ``unpin``: one view (or one wake-up of the sockets) is
        made of one state of the room, and that state is not checked again at each of its parts. Only code
        that changes nothing of the game and the pacer runs while it is held. Returns what to give ``unpin``
        (a frame held already, by a caller: views made inside another's)."""
        held = self._pinned
        self._pinned = self.frame()
        return held

    def unpin(self, held: Frame | None) -> None:
        self._pinned = held

    def view_json(self, seat: int | None, host: bool, lang: str | None) -> str:
        key = (seat, host, lang)
        hit = self._views.get(key)
        if hit is not None and hit[0] == self.version:
            return hit[1]
        held = self.pin()
        try:
            return self._view_json(key, seat, host, lang)
        finally:
            self.unpin(held)

    def _view_json(self, key: tuple[int | None, bool, str | None], seat: int | None, host: bool,
                   lang: str | None) -> str:
        v, sight = self.head(seat, host)
        words = self._words(v, sight, seat, lang)
        if words is not None:
            v["text"] = words
        # The events, the bulk of a view, are encoded once each and spliced in, last.
        text = dumps(v)[:-1] + ',"events":' + self._encode(sight) + "}"
        self._views[key] = (self.version, text)
        return text

    def push_json(self, sub: Subscriber) -> str | None:
        """What the socket ``sub`` is sent now: None if nothing its seat sees changed since the last push;
        the full view (with its version ``v``, for a delta socket) on connect or when asked for; else, for a
        delta socket, ``{"v", "base", "set", "text", "events"}``: the fields that changed (``set``; ``text``:
        the changed fields of its words, with ``events``: the new events' narrations), and the seat's newly
        released visible events (``events``, exactly those: the same rule as the full view's).

        The gate of every push (docs/security.md, "What timing and updates may reveal"): the signature only
        says the view *may* have changed (it moves with the room's inner state: the pacer's open step, the
        engine's request before it is shown, the pack following the game), and when it moves depends on
        hidden facts (a living guard's answer opens the wolves' knife in the engine, a dead one's does not).
        So the view is made and compared with the last one sent; an update that changes nothing the seat
        sees is never sent, and the count, order and timing of a seat's pushes follow its view alone."""
        held = self.pin()
        try:
            return self._push_json(sub)
        finally:
            self.unpin(held)

    def _push_json(self, sub: Subscriber) -> str | None:
        if self.signature(sub.seat, sub.host, sub.lang) == sub.last and not sub.want_full:
            return None
        if not sub.delta:
            text = self.view_json(sub.seat, sub.host, sub.lang)
            sub.last = self.signature(sub.seat, sub.host, sub.lang)  # after the view: making it may move it
            digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
            if digest == sub.digest:
                return None
            sub.digest = digest
            return text
        v, sight = self.head(sub.seat, sub.host)
        words = self._words(v, sight, sub.seat, sub.lang)
        told = words.pop("events") if words is not None else None
        count = len(sight.events) if sight is not None else 0
        sub.last = self.signature(sub.seat, sub.host, sub.lang)
        full = sub.want_full or sub.head is None or sub.sent > count or \
            (words is not None and sub.text_head is None)
        if not full and count == sub.sent and v == sub.head and words == sub.text_head:
            return None  # nothing this seat sees changed
        sub.v += 1
        if full:
            sub.want_full = False
            body = dict(v)
            if words is not None:
                body["text"] = dict(words, events=told)
            text = '{"v":' + str(sub.v) + "," + dumps(body)[1:-1] + ',"events":' + self._encode(sight) + "}"
        else:
            old, old_words = sub.head or {}, sub.text_head or {}
            delta: dict[str, Any] = {"v": sub.v, "base": sub.v - 1,
                                     "set": _changed(old, v)}
            if words is not None and told is not None:
                delta["text"] = _changed(old_words, words)
                delta["text"]["events"] = told[sub.sent:]
            text = dumps(delta)[:-1] + ',"events":' + self._encode(sight, sub.sent) + "}"
        sub.head, sub.text_head, sub.sent = v, words, count
        return text

    def shed(self) -> None:
        """A finished game no socket watches, kept a little while for a phone that comes back: let go of
        what only play and the sockets needed (the bots and their host, each event's JSON, the views, their
        words and the frame), so that the room holds little more than its game; a request meanwhile makes
        again what it asks. (Rooms that end fast were held whole for their grace: issue 29's memory.)"""
        if self._agents is None and self._frame is None and not self._views and not self._encoded:
            return
        self._forget_made()

    def _forget_made(self) -> None:
        """Everything made from the game for its bots and its views: made again from the game on demand."""
        self._agents, self._host = None, None
        self._encoded = {}
        self._views.clear()
        self.narrations.clear()
        self.worded.clear()
        self._frame = None
        self._reset_counts()

    # -- cheap change detection: a socket rebuilds its view only when its signature moved -------
    def _reset_counts(self) -> None:
        self._sights = {}
        self.told = {}
        self._scanned = 0
        self._public = 0
        self._private: dict[int, int] = {}
        self._request: list[Decision] | None = None
        self._generation = 0

    def signature(self, seat: int | None, host: bool, lang: str | None) -> tuple[Any, ...]:
        """Changes whenever the view of ``seat`` may have changed (events it sees, its decisions, the room);
        made once a state of the room (its frame; face to face, where the voice moves with the clock, a
        frame lasts one call)."""
        f = self.frame()
        signed = f.memo.setdefault("signed", {})
        got = signed.get((seat, host, lang))
        if got is None:
            got = signed[(seat, host, lang)] = self._signature(f, seat, host, lang)
        return got  # type: ignore[no-any-return]

    def _signature(self, f: Frame, seat: int | None, host: bool, lang: str | None) -> tuple[Any, ...]:
        table = f.memo.get("table")
        if table is None:
            table = f.memo["table"] = self._table_signature(f)
        shared, mine = table
        if seat is None:  # the voice's state (a spectator's socket is the moderator device's, face to face)
            voice = f.memo.get("voice")
            if voice is None:
                voice = f.memo["voice"] = self.voice.signature(self.clock())
            return (shared, 0, (), host, lang, None, 0, voice, 0)
        # A seat is woken once the voice has called its role (``awake``): whether the table waits for it.
        waits = f.memo.get("waits")
        if waits is None:
            waits = f.memo["waits"] = self.voice.waits(self.clock())
        # A voice of the knife the table sees is shown who has answered (a pick taken when its time is up
        # answers without the pack's own count moving).
        knife = self.game.answered if seat in f.voices else 0
        return (shared, self._private.get(seat, 0), mine.get(seat, ()), host, lang,
                self.pacer.step,  # the open step (a seat may be woken by it)
                wolfpack.signature(self, seat), waits, knife)

    def _table_signature(self, f: Frame) -> tuple[tuple[Any, ...], dict[int, tuple[int, tuple[int, ...]]]]:
        """What every seat's signature shares in one state of the room (the public events seen so far, who
        speaks, the end…), and each asked seat's open decisions: where they stand in the engine's request,
        and the request's generation (a new request with the same shape is a new question)."""
        events = f.shown
        if self._scanned > len(events):
            self._reset_counts()
        for e in events[self._scanned:]:
            if e.to is None:
                self._public += 1
            else:
                for s in e.to:
                    self._private[s] = self._private.get(s, 0) + 1
        self._scanned = len(events)
        request = self.game.request if f.settled else _UNSHOWN
        if request is not self._request:
            self._request = request
            self._generation += 1
        owed = {id(d) for d in f.pending}
        places: dict[int, list[int]] = {}
        for i, d in enumerate(request):
            if id(d) in owed:
                places.setdefault(d.seat, []).append(i)
        mine = {s: (self._generation, tuple(at)) for s, at in places.items()}
        return (self.status, self.info_version, self._public, f.speaking, f.over, len(self.timed_out)), mine

    def changed(self) -> None:
        """Something everyone may need to see: wake every socket."""
        self.version += 1
        self.touched = self.used = self.clock()
        held = self.pin()
        try:
            self.track_deadlines()
            for sub in self.subs:
                if sub.last is None or self.signature(sub.seat, sub.host, sub.lang) != sub.last:
                    sub.dirty.set()
        finally:
            self.unpin(held)

    def track_deadlines(self) -> None:
        self.speech.track(self.pending(), self.game.answers, lambda s: s not in self.bots)
        if self.status != "playing" or self.game.over or self.timeout <= 0:
            self.deadlines = {}
            return
        now = time.time()
        old = self.deadlines
        self.deadlines = {}
        for d in self.pending():
            if d.seat in self.bots:
                continue
            prev = old.get(id(d))
            self.deadlines[id(d)] = prev if prev is not None and prev[0] is d else (d, now + self.timeout)

    # -- changes (callers hold the lock; ``drive`` runs in the bots' worker thread) ----------
    def drive(self, now: float) -> None:
        """Move the game on as far as the clock allows: the pacer's releases, the bots' answers (held
        inside a night step until its time is over), the discussion's turns that came too late."""
        g = self.game
        pacer = self.pacer
        while True:
            if pacer.advance(g.events, now):
                continue
            if g.over or not pacer.settled(g.events):
                return
            if pacer.overdue(g.events, now):  # a person past the step's cap: declined, as a dead role's step ends
                pacer.expire()
                for d in list(g.pending()):
                    if d.seat not in self.bots and not wolfpack.time_up(self, d):
                        g.decline(d)
                continue
            late = self.late_turns()
            for d in late:
                g.decline(d)  # the last one closes the round: the vote follows
            if late:
                continue
            if wolfpack.drive(self):  # a person's interrupt offer, answered at once
                continue
            if not pacer.bots_may_answer(g.events, now) or not self.bot_round():
                return

    def bot_round(self) -> bool:
        """The bots answer every decision they owe in the open request; False if they owe none."""
        g = self.game
        owed = [d for d in g.pending() if d.seat in self.bots and not wolfpack.holds(self, d)
                and not self.bot_listens(d)]
        if not owed:
            return False
        agents = self.agents()
        for d in owed:
            yield_to_loop()
            followed, value = wolfpack.follows(self, d)
            if followed:  # a bot of a pack with people in it names their pick
                g.answer_value(d, value)
                continue
            agent = agents[d.seat]
            if isinstance(agent, RandomAgent):
                g.answer_value(d, agent.value(d))
                continue
            if self._host is None or self._host.game is not g:
                self._host = Host(g, agents)
            move = self._host.ask(d)
            if move is None:
                g.decline(d)
            else:
                try:
                    g.answer(d.seat, move)
                except IllegalMove:
                    log.warning("room %s: bot at seat %s answered illegally; default taken", self.id, d.seat)
                    g.decline(d)
        return True

    def bot_listens(self, d: Decision) -> bool:
        """In the one-night discussion everyone may talk freely (each statement's seat is asked again at
        once): a bot that has had its say keeps its turn open while a person still talks, so that it may
        answer what is said (an accusation) once the people are ready, instead of being ready at once."""
        if not _talk(d) or not any(s == d.seat and act == "speak" for s, act, _ in self.game.answers):
            return False
        return any(_talk(o) and o.seat not in self.bots for o in self.game.pending())

    def snapshot(self) -> tuple[Any, ...]:
        """What a change may touch, to put back if it fails (the game itself is replayed)."""
        p = self.pacer
        answers = self.game.answers  # (the log only grows: its first answers are the snapshot's)
        return ((answers, len(answers)), self.status, set(self.bots), self.talk_ends,
                (p.released, p.step, p.hold_until, p.next_at), dict(self.deadlines), self.pack.copy(),
                self.voice.heard, list(self.timed_out))

    def restore(self, snap: tuple[Any, ...]) -> None:
        """The room exactly as it was at ``snap`` (nothing of the failed change was stored or shown)."""
        (log, n), self.status, self.bots, self.talk_ends, paced, deadlines, self.pack, self.voice.heard, \
            self.timed_out = snap
        answers = log[:n]
        # Replayed even when no answer was added: a failure inside the engine may have left its flow dead.
        self.game = Game.replay(self.setup, answers)
        p = self.pacer
        p.released, p.step, p.hold_until, p.next_at = paced
        # The open decisions are new objects now: each keeps the deadline it had.
        self.deadlines = {}
        for d in self.pending():
            kept = next((t for old, t in deadlines.values() if (old.seat, old.act) == (d.seat, d.act)), None)
            if kept is not None:
                self.deadlines[id(d)] = (d, kept)
        self.committed = len(answers)
        self._forget_made()  # what was made from the game it replaces
        self.voice.replayed()
        self.info_version += 1

    def write(self, *, started: bool = False, clock: bool = False) -> Commit | None:
        """The store's write of everything changed since the last commit (None: nothing)."""
        rows = self.game.answers[self.committed:]
        over = self.game.over and self.settled()  # (not the frame: it is made again once the change is out)
        paced = self.pacer.released
        moved = paced != self.stored_paced
        pack = self.pack.dirty()
        heard = self.voice.heard if self.voice.heard != self.voice.stored else None
        timed_out = list(self.timed_out) if len(self.timed_out) != self.stored_timed_out else None
        if not (rows or moved or started or clock or pack is not None or heard is not None or timed_out is not None
                or (over and self.status != "over")):
            return None
        status = "over" if over else "playing" if started else None
        return Commit(Store.progress(self.id, self.committed, rows, status=status,
                                     bots=sorted(self.bots) if started else None, paced=paced if moved else None,
                                     talk_ends=self.talk_ends if clock else None, pack=pack, heard=heard,
                                     timed_out=timed_out),
                      self.committed + len(rows), paced, over, self.pack.version, self.voice.heard,
                      len(self.timed_out))

    def committed_now(self, commit: Commit | None) -> None:
        """``commit`` is stored: the room's own record of what the database holds (what was written, not
        what the room holds by now)."""
        if commit is None:
            return
        self.committed = commit.answers
        self.stored_paced = commit.paced
        self.pack.stored = commit.pack
        self.voice.stored = commit.heard
        self.stored_timed_out = commit.timed_out
        if commit.over and self.status != "over":
            self.status = "over"
            self.info_version += 1


@dataclass(frozen=True)
class Commit:
    """One change's write and what the database holds once it is stored."""

    write: Callable[[Any], None]
    answers: int  # answers stored
    paced: int  # events released
    over: bool  # the game's end is stored
    pack: int = 0  # the pack state's version stored (``werewolf.web.pack``)
    heard: int | None = None  # the voice's lines spoken, as stored
    timed_out: int = 0  # the timed-out speeches stored
