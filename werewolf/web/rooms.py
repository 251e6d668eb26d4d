"""Rooms: the digital moderator's memory of every table, between the API and the store.

A ``Room`` holds one game (``werewolf.core.game.Game``), the seats' names and
token hashes, the seats bots play, the sockets watching it and its pacer
(``werewolf.web.pacing``: which of the game's events are out). The ``Hub`` holds
every room and does every change (``Hub._change``) the same way, under the room's lock:

1. apply the change to the game in memory (an illegal move raises and changes nothing),
2. drive the room: the pacer releases what is due by the clock, the bots answer what
   they owe (inside a night step, only once its time is over), again while either moves;
   1 and 2 run in the hub's one worker thread, never on the event loop,
3. commit the new answers and the pacer's released count (``Store.progress``), one
   transaction, and only then
4. publish: bump the room's version and wake every socket, which sends its
   seat's view; and wake the room again when its pacer is next due.

Nobody can read the room between 1 and 3 (views are computed under the same
lock), so nobody is ever told the result of an answer that is not stored. Every
change runs as a task of the hub's, shielded from its caller (a request that
disconnects, the tick that stops): it is never cut between its commit and the
room's record of what is stored (``Commit``), which would leave memory behind the
database and the next change writing over it; and the store checks each commit's
first answer index against the answers it holds. If anything
fails between 1 and 3 (the engine, a bot, the clock, the database), the room is put
back as it was (``Room.restore``: the game replayed from the committed answers) and
the caller gets an ``ApiError``; the database holds nothing of it.

Bots: one kind a room (``BOTS``; heuristic by default, stored with the room).

The one-night discussion (live speech): rounds of statements until every seat
is ready to vote (RULES.md §3.6). Its clock is the server's: it starts at the
``discussion`` event, its end is stored with the room in the same transaction as
the answers that opened the discussion (so a restart keeps it), and once it has
run out every open turn of the discussion is declined as it comes, which ends it.

Timeouts: a decision a person owes gets its default (``Game.decline``: no
action, abstain, or the first legal option where the rules force a choice) once
it has been open for the room's timeout (``--timeout``, or the room's
``timeout``; 0 waits for ever). The clock of a decision starts when the server
first sees it open, so after a restart every open decision has its full time
again.

Lifecycle: memory holds only the rooms in use, so a server that runs for weeks
stays the same size. A finished game leaves memory once no phone watches it
(``UNWATCHED`` seconds after its end, its last request or its last socket's close,
so that a phone that reconnects finds it), or ``keep_finished`` seconds after that
while a socket still watches it; it is dropped from memory, not from the database:
the next request replays it from its stored answers and is answered exactly as before.
A lobby nobody starts is closed ``lobby_idle`` seconds after its creation or its last
join: its row is marked ``closed`` (kept, so that its link answers 410 "expired" rather
than 404), it leaves memory, and it can be neither joined nor started. At start only
lobbies and games on are loaded; idle lobbies are closed first by one UPDATE.
The tick looks only at the rooms in memory.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import hashlib
import hmac
import json
import logging
import math
import random
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError

try:
    import orjson
except ImportError:  # the web extra installs it; without it, the standard library's json
    orjson = None  # type: ignore[assignment]

from werewolf.agents import Agent, Host, RandomAgent
from werewolf.agents.heuristic import ONE_NIGHT, HeuristicAgent
from werewolf.core.decisions import Decision, Move
from werewolf.core.errors import IllegalMove, WerewolfError
from werewolf.core.events import Event
from werewolf.core.game import Game, Setup
from werewolf.web import pacing, timers
from werewolf.web import pack as wolfpack
from werewolf.web.pacing import Pace, Pacer
from werewolf.web.probe import probe
from werewolf.web.routing import Place, new_room_id
from werewolf.web.seats import check_bot_kinds, seat_agents
from werewolf.web.store import PlayerRecord, RoomRecord, StaleWrite, Store
from werewolf.web.voice import Voice, VoiceAck

if TYPE_CHECKING:
    from werewolf.web.cluster import Cluster

log = logging.getLogger("werewolf.web")

def heuristic_bots(rng: random.Random, seats: list[int], setup: Setup, lang: str) -> dict[int, Agent]:
    """One heuristic agent plays every bot seat (their minds share what the table said), speaking ``lang``."""
    agent = HeuristicAgent(rng, seats=seats, ruleset=setup.ruleset, lang=lang)
    return dict.fromkeys(seats, agent)


def random_bots(rng: random.Random, seats: list[int], setup: Setup, lang: str) -> dict[int, Agent]:
    return {s: RandomAgent(rng=random.Random(rng.random())) for s in seats}


def llm_model() -> str | None:
    """The model LLM bots play with: the server's WEREWOLF_LLM_MODEL (none: rooms cannot seat LLMs)."""
    import os

    return os.environ.get("WEREWOLF_LLM_MODEL") or None


def llm_bots(rng: random.Random, seats: list[int], setup: Setup, lang: str) -> dict[int, Agent]:
    """An LLM seat each (werewolf.agents.llm) on the server's OPENAI_BASE_URL, speaking the room's language."""
    from werewolf.agents.llm import LLMAgent

    model = llm_model() or "unset"
    return {s: LLMAgent(model, lang=lang) for s in seats}


# Bot kinds by name: each makes the agents of a room's bot seats from a random generator.
BOTS: dict[str, Callable[[random.Random, list[int], Setup, str], dict[int, Agent]]] = {
    "heuristic": heuristic_bots,
    "random": random_bots,
}
if llm_model():  # rooms may seat LLMs when the server names a model
    BOTS["llm"] = llm_bots
DEFAULT_BOT = "heuristic"
LEGACY_BOT = "random"  # the kind of rooms stored before the kind was

MODES = ("online", "face_to_face")
KEEP_FINISHED = 1800.0  # seconds a finished game a phone watches stays in memory after its end or last request
UNWATCHED = 30.0  # seconds a finished game no phone watches stays (a phone that reconnects finds it in memory)
STRAY = 10.0  # seconds a worker keeps, unwatched and unasked, a room whose home is another (werewolf.web.routing)
LOBBY_IDLE = 86400.0  # seconds a lobby lives after its creation or its last join (0: for ever)
CLOSED = "closed"  # the status of an expired lobby
_UNSHOWN: list[Decision] = []  # the request while the pacer holds it back (one object: its generation stays)
MAX_TALK = 7 * 86400.0  # the longest discussion clock (a longer one is as good as unlimited)
STOP_WAIT = 30.0  # seconds a stopping server waits for the changes under way to be stored
SHUTTING_DOWN = "the server is shutting down: nothing changed, try again in a moment"


def dumps(value: Any) -> str:
    """Compact JSON text, UTF-8 as is (orjson when installed: views are the server's hottest output)."""
    if orjson is not None:
        try:
            return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
        except TypeError:  # an integer beyond 64 bits, say: the standard library takes anything JSON can
            pass
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class ApiError(Exception):
    """An error answered to the client as ``{"error": message}`` with an HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Behind(ApiError):
    """A change refused because another server of the cluster wrote first (the room has caught up since)."""


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def setup_from_json(d: dict[str, Any]) -> Setup:
    """The inverse of ``Setup.as_json`` (fields this engine does not know are an error)."""
    known = {f.name for f in dataclasses.fields(Setup)}
    unknown = set(d) - known
    if unknown:
        raise ValueError(f"setup field(s) {', '.join(sorted(unknown))} unknown to this engine")
    kw: dict[str, Any] = {k: v for k, v in d.items() if v is not None or k in ("seats", "deck")}
    for k in ("seats", "center"):
        if kw.get(k) is not None:
            kw[k] = tuple(kw[k])
    if isinstance(kw.get("deck"), list):
        kw["deck"] = tuple(kw["deck"])
    kw["options"] = dict(kw.get("options") or {})
    return Setup(**kw)


def _talk(d: Decision) -> bool:
    return d.act == "speak" and getattr(d, "part", None) == "discussion"


def yield_to_loop() -> None:
    """Called by the bots' thread between answers: hands the interpreter to the event loop's thread if it
    waits for it (a request came in), instead of making it wait for the switch interval at each wake-up."""
    time.sleep(0)


def series_info(rec: RoomRecord) -> dict[str, Any]:
    """The room's place in its series of games (play again: ``werewolf.web.lobby``) and its speech time."""
    return {"game": rec.game_no, "series": rec.series_id or rec.id, "prev": rec.prev_id, "next": rec.next_id,
            "speech_time": rec.speech_time or None}


def seat_count(game: Game) -> int:
    for e in game.events:
        if e.type == "game_start" and isinstance(e.data.get("players"), int):
            return int(e.data["players"])
    return len(game.table.roles_by_seat())


@dataclass(eq=False)
class Subscriber:
    """One socket watching a room: a seat, the host, or a spectator."""

    seat: int | None
    host: bool
    lang: str | None
    dirty: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    last: tuple[Any, ...] | None = None  # the signature of the last view sent
    # The delta protocol (``?delta=true``): after a full view, each push carries only what changed.
    delta: bool = False
    want_full: bool = False  # the client asked for the full view (it lost track of its version)
    v: int = 0  # the version of the last push (full or delta)
    head: dict[str, Any] | None = None  # the last view sent, without its events
    text_head: dict[str, Any] | None = None  # its words, without the events' narrations
    sent: int = 0  # how many of the seat's visible events it has been sent


@dataclass(eq=False)
class Sight:
    """What one seat (None: the public) may see of the released events, kept up as they come out."""

    scanned: int = 0  # how many released events have been looked at
    index: list[int] = field(default_factory=list)  # the visible ones' places in the game's log
    events: list[Event] = field(default_factory=list)  # and the events themselves
    role: str | None = None  # the seat's role, as it was last told


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
        self.narrations: dict[tuple[int | None, str], list[str | None]] = {}
        # Each event narrated once per language, by its place in the log, for every seat it does not
        # name (key: (spectator?, lang)); ``werewolf.web.text.narrations``.
        self.told: dict[tuple[bool, str], dict[int, str | None]] = {}
        self._sights: dict[int | None, Sight] = {}
        self._encoded: dict[int, str] = {}  # id(event) -> its JSON (events live as long as the game)
        self.info_version = 0
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
            from werewolf.web.lobby import stranger

            raise stranger(self, h)
        return host, seat

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
            "seats": [{"seat": n, "name": self.names.get(n), "bot": n in self.bots,
                       "taken": n in self.names or n in self.bots} for n in range(1, self.n + 1)],
        }

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
        if self.status != "playing" or not self.settled() or self.voice.waits(self.clock()):
            return []
        return self.game.pending(seat)

    def over(self) -> bool:
        return self.game.over and self.settled()

    def phase(self) -> str:
        shown = self.shown()
        return self.game.phase if len(shown) == len(self.game.events) or not shown else shown[-1].phase

    def awake(self, seat: int, role: str | None, events: list[Event]) -> dict[str, Any] | None:
        """The open night step, when it is this seat's role's and asks it nothing (a witch with no potion
        left, a role only woken): the phone shows it, as a judge shows her, with a button that only
        dismisses it. Nobody else is told anything."""
        step = self.pacer.open_step(self.game.events)
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
        shown = self.shown()
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
            sight = self.sight(seat)
            role = sight.role
            decisions = self.pending(seat) if seat is not None else []
            # The end once every event is out (face to face: once the voice says it), to everyone alike.
            result = self.game.result if self.over() and len(self.shown()) == len(self.game.events) else None
            out = {"seat": seat, "role": role, "phase": self.phase(),
                   "pending": [o for d in decisions for o in d.options()] or None,
                   "decisions": [d.describe() for d in decisions] or None,
                   "game_over": {"teams": result[0], "seats": result[1]} if result else None,
                   "awake": self.awake(seat, role, sight.events) if seat is not None else None}
        deadline = None
        if seat is not None and self.status == "playing":
            times = [t for d, t in self.deadlines.values() if d.seat == seat]
            deadline = min(times) if times else None
        out["deadline"] = deadline
        out["host"] = host
        out["room"] = self.info()
        out["speaking"] = sorted({d.seat for d in self.pending() if d.act == "speak"})
        out["discussion"] = self.discussion()
        out.update(wolfpack.view(self, seat))
        out["voice"] = self.voice.view(self.clock()) if seat is None else None
        out.update(self.speech.view())
        return out, sight

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
        from werewolf.web.text import render

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

    def view_json(self, seat: int | None, host: bool, lang: str | None) -> str:
        key = (seat, host, lang)
        hit = self._views.get(key)
        if hit is not None and hit[0] == self.version:
            return hit[1]
        v, sight = self.head(seat, host)
        words = self._words(v, sight, seat, lang)
        if words is not None:
            v["text"] = words
        # The events, the bulk of a view, are encoded once each and spliced in, last.
        text = dumps(v)[:-1] + ',"events":' + self._encode(sight) + "}"
        self._views[key] = (self.version, text)
        return text

    def push_json(self, sub: Subscriber) -> str | None:
        """What the socket ``sub`` is sent now: None if its view did not change; the full view (with
        its version ``v``, for a delta socket) on connect or when asked for; else, for a delta socket,
        ``{"v", "base", "set", "text", "events"}``: the fields that changed (``set``; ``text``: the
        changed fields of its words, with ``events``: the new events' narrations), and the seat's newly
        released visible events (``events``, exactly those: the same rule as the full view's)."""
        sig = self.signature(sub.seat, sub.host, sub.lang)
        if sig == sub.last and not sub.want_full:
            return None
        sub.last = sig
        if not sub.delta:
            return self.view_json(sub.seat, sub.host, sub.lang)
        v, sight = self.head(sub.seat, sub.host)
        words = self._words(v, sight, sub.seat, sub.lang)
        told = words.pop("events") if words is not None else None
        count = len(sight.events) if sight is not None else 0
        sub.v += 1
        full = sub.want_full or sub.head is None or sub.sent > count or \
            (words is not None and sub.text_head is None)
        if full:
            sub.want_full = False
            body = dict(v)
            if words is not None:
                body["text"] = dict(words, events=told)
            text = '{"v":' + str(sub.v) + "," + dumps(body)[1:-1] + ',"events":' + self._encode(sight) + "}"
        else:
            old, old_words = sub.head or {}, sub.text_head or {}
            delta: dict[str, Any] = {"v": sub.v, "base": sub.v - 1,
                                     "set": {k: x for k, x in v.items() if k not in old or old[k] != x}}
            if words is not None and told is not None:
                delta["text"] = {k: x for k, x in words.items() if k not in old_words or old_words[k] != x}
                delta["text"]["events"] = told[sub.sent:]
            text = dumps(delta)[:-1] + ',"events":' + self._encode(sight, sub.sent) + "}"
        sub.head, sub.text_head, sub.sent = v, words, count
        return text

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
        """Changes whenever the view of ``seat`` may have changed (events it sees, its decisions, the room)."""
        events = self.shown()
        if self._scanned > len(events):
            self._reset_counts()
        for e in events[self._scanned:]:
            if e.to is None:
                self._public += 1
            else:
                for s in e.to:
                    self._private[s] = self._private.get(s, 0) + 1
        self._scanned = len(events)
        request = self.game.request if self.settled() else _UNSHOWN
        if request is not self._request:
            self._request = request
            self._generation += 1
        mine: tuple[Any, ...] = ()
        if seat is not None:
            owed = self.pending(seat)
            positions = tuple(i for i, d in enumerate(request) if d.seat == seat and d in owed)
            mine = (self._generation, positions) if positions else ()
        speaking = tuple(d.seat for d in self.pending() if d.act == "speak")
        seen = self._public + (self._private.get(seat, 0) if seat is not None else 0)
        awake = self.pacer.step if seat is not None else None  # the open step (a seat may be woken by it)
        voice = self.voice.signature(self.clock()) if seat is None else ()
        return (self.status, self.info_version, seen, mine, speaking, host, lang, self.over(), awake,
                wolfpack.signature(self, seat), voice)

    def changed(self) -> None:
        """Something everyone may need to see: wake every socket."""
        self.version += 1
        self.touched = self.used = self.clock()
        self.track_deadlines()
        for sub in self.subs:
            if sub.last is None or self.signature(sub.seat, sub.host, sub.lang) != sub.last:
                sub.dirty.set()

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
        return (list(self.game.answers), self.status, set(self.bots), self.talk_ends,
                (p.released, p.step, p.hold_until, p.next_at), dict(self.deadlines), self.pack.copy(),
                self.voice.heard)

    def restore(self, snap: tuple[Any, ...]) -> None:
        """The room exactly as it was at ``snap`` (nothing of the failed change was stored or shown)."""
        answers, self.status, self.bots, self.talk_ends, paced, deadlines, self.pack, self.voice.heard = snap
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
        self._agents = None
        self.narrations.clear()
        self._encoded = {}
        self._views.clear()
        self._reset_counts()
        self.voice.replayed()
        self.info_version += 1

    def write(self, *, started: bool = False, clock: bool = False) -> Commit | None:
        """The store's write of everything changed since the last commit (None: nothing)."""
        rows = self.game.answers[self.committed:]
        over = self.over()
        paced = self.pacer.released
        moved = paced != self.stored_paced
        pack = self.pack.dirty()
        heard = self.voice.heard if self.voice.heard != self.voice.stored else None
        if not (rows or moved or started or clock or pack is not None or heard is not None
                or (over and self.status != "over")):
            return None
        status = "over" if over else "playing" if started else None
        return Commit(Store.progress(self.id, self.committed, rows, status=status,
                                     bots=sorted(self.bots) if started else None, paced=paced if moved else None,
                                     talk_ends=self.talk_ends if clock else None, pack=pack, heard=heard),
                      self.committed + len(rows), paced, over, self.pack.version, self.voice.heard)

    def committed_now(self, commit: Commit | None) -> None:
        """``commit`` is stored: the room's own record of what the database holds (what was written, not
        what the room holds by now)."""
        if commit is None:
            return
        self.committed = commit.answers
        self.stored_paced = commit.paced
        self.pack.stored = commit.pack
        self.voice.stored = commit.heard
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


class Hub:
    """Every room, the store, the bots and the clock."""

    def __init__(self, store: Store, *, timeout: float = 600.0, tick: float = 1.0,
                 keep_finished: float = KEEP_FINISHED, lobby_idle: float = LOBBY_IDLE,
                 clock: Callable[[], float] = time.time, pace: Pace | None = None,
                 rng: random.Random | None = None, timers: bool = True, place: Place | None = None) -> None:
        self.store = store
        self.place = place  # a worker of ``serve --workers``: the rooms whose home it is (werewolf.web.routing)
        self.timeout = timeout
        self.tick = tick
        self.keep_finished = keep_finished
        self.lobby_idle = lobby_idle
        self.clock = clock
        self.pace = pace or pacing.DEFAULT_PACE  # the rooms' pacing unless a room sets its own
        self.rng = rng  # the pacer's randomness (None: the server's secret one); tests pass a seeded one
        self.timers = timers  # wake each room when its pacer is due (tests on a fake clock sweep instead)
        self.rooms: dict[str, Room] = {}
        self.broken: dict[str, str] = {}
        self._ticker: asyncio.Task[None] | None = None
        # The engine and the bots run here, one change at a time, never on the event loop.
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="werewolf-bots")
        self._tasks: set[asyncio.Task[None]] = set()
        self.closing = False  # stopping: no new change is begun, no timer set
        # On PostgreSQL, one server of several (werewolf.web.cluster): the others' changes come in, and the
        # clock of a room (pacer, bots, timeouts) is driven by one server only, its owner.
        self.cluster: Cluster | None = None
        if store.url.startswith("postgresql"):
            from werewolf.web.cluster import Cluster

            self.cluster = Cluster(self)

    # -- life -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Close the idle lobbies, reload every live lobby and unfinished game, start the clock."""
        if self.lobby_idle > 0:
            closed = await self.store.submit(Store.close_idle_lobbies(self.clock() - self.lobby_idle))
            if closed:
                log.info("closed %d lobby(ies) idle for over %g hours", closed, self.lobby_idle / 3600)
        if self.cluster is not None:  # only the rooms no other server holds, claimed
            await self.cluster.start()
            records = await self.cluster.adopt()
        else:
            records = await self.store.submit(Store.load(unfinished=True))
        for rec in records:
            room = self._make(rec)
            if room is not None and room.status == "playing":
                async with room.lock:
                    try:
                        await self._change(room)
                    except ApiError as err:
                        log.error("room %s: could not go on after the restart: %s", room.id, err.message)
        log.info("reloaded %d unfinished room(s)", len(records))
        self._ticker = asyncio.create_task(self._tick())

    async def stop(self) -> None:
        """Stop the clock and the timers first, refuse new work, let the changes under way be stored (a
        change is never cut between its commit and the room's record of it), then close the sockets."""
        self.closing = True
        for room in self.rooms.values():
            if room.wake is not None:
                room.wake.cancel()
                room.wake = None
        if self._ticker is not None:
            self._ticker.cancel()  # its timeouts run as tasks of their own: only its waiting is cut
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        while self._tasks:
            _, late = await asyncio.wait(list(self._tasks), timeout=STOP_WAIT)
            if late:
                log.error("%d change(s) still under way after %g s: cut short", len(late), STOP_WAIT)
                for task in late:
                    task.cancel()
                await asyncio.wait(late)
        for room in self.rooms.values():
            for sub in room.subs:
                sub.closed = True
                sub.dirty.set()
        self._worker.shutdown(wait=True)
        if self.cluster is not None:
            await self.cluster.stop()

    def _room(self, rec: RoomRecord) -> Room:
        return Room(rec, self.timeout, self.clock, self.pace, self.rng)

    def _make(self, rec: RoomRecord) -> Room | None:
        try:
            room = self._room(rec)
        except (WerewolfError, KeyError, ValueError, TypeError) as err:
            log.error("room %s cannot be replayed: %s", rec.id, err)
            self.broken[rec.id] = str(err)
            return None
        self.rooms[rec.id] = room
        if self.place is not None and not self.place.is_home(rec.id):
            log.debug("room %s: read by worker %s; its home is worker %d", rec.id, self.place,
                      self.place.home(rec.id))
        if self.cluster is not None:
            self.cluster.entered(room)
        return room

    def drives(self, room: Room) -> bool:
        """Whether this server moves the room on by its clock (pacer, bots, timeouts): alone, or its owner."""
        return self.cluster is None or self.cluster.owns(room.id)

    async def room(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is not None:
            room.used = room.asked = self.clock()
            if self.cluster is not None and room.status == "lobby":  # seats taken on another server
                await self.cluster.catch_up(room)
            return room
        if room_id in self.broken:
            raise ApiError(410, f"room {room_id} cannot be replayed by this version of the engine: "
                                f"{self.broken[room_id]}")
        if len(room_id) > 32:
            raise ApiError(404, f"no room {room_id!r}")
        records = await self.store.submit(Store.load([room_id]))
        room = self.rooms.get(room_id)  # loaded meanwhile
        if room is not None:
            return room
        if not records:
            raise ApiError(404, f"no room {room_id!r}")
        if records[0].status == CLOSED:
            raise self.expired(room_id)
        made = self._make(records[0])
        if made is None:
            return await self.room(room_id)
        return made

    def expired(self, room_id: str) -> ApiError:
        idle = f" for {self.lobby_idle / 3600:g} hours" if self.lobby_idle > 0 else ""
        return ApiError(410, f"room {room_id} has expired: its game was never started and nobody joined it"
                             f"{idle}. Create a new room.")

    def check_open(self, room: Room) -> None:
        """410 for a lobby that expired while its request waited (the link's later requests get it too)."""
        if room.status == CLOSED:
            raise self.expired(room.id)

    # -- rooms ------------------------------------------------------------------------------
    async def create(self, *, ruleset: str, deck: str | list[str] | None, options: dict[str, Any],
                     bots: Iterable[int], seed: int | None, mode: str, lang: str, players: int | None,
                     timeout: float | None, live_speech: bool = True,
                     bot_kind: str = DEFAULT_BOT, pace: Sequence[float] | None = None,
                     speech_time: float | None = None,
                     bot_kinds: Mapping[int, str] | None = None) -> tuple[Room, str]:
        if mode not in MODES:
            raise ApiError(422, f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if bot_kind not in BOTS:
            raise ApiError(422, f"bot_kind must be one of {', '.join(BOTS)}, not {bot_kind!r}")
        try:
            room_pace = self.pace if pace is None else Pace.parse(pace)
        except ValueError as err:
            raise ApiError(422, str(err)) from None
        fixed_deal = seed is not None  # the creator knows the deal: every screen says so
        if seed is None:
            seed = secrets.randbits(63)  # unguessable, and never shown before the end: the seed decides the deal
        setup = Setup(ruleset=ruleset, deck=tuple(deck) if isinstance(deck, list) else deck, options=options,
                      seed=seed, players=players, live_speech=live_speech)
        try:
            game = Game(setup)
        except WerewolfError as err:
            raise ApiError(422, str(err)) from None
        n = seat_count(game)
        bot_seats = sorted(set(bots))
        bad = [s for s in bot_seats if not 1 <= s <= n]
        if bad:
            raise ApiError(422, f"bots: seat(s) {', '.join(map(str, bad))} do not exist (seats 1 to {n})")
        try:
            kinds = check_bot_kinds(bot_kinds or {}, bot_seats)
        except ValueError as err:
            raise ApiError(422, str(err)) from None
        token = new_token()
        while True:
            room_id = new_room_id(self.rooms, self.place)
            rec = RoomRecord(id=room_id, created=self.clock(), status="lobby", setup=setup.as_json(), mode=mode,
                             lang=lang, bots=bot_seats, host_hash=token_hash(token), timeout=timeout,
                             bot_kind=bot_kind, paced=0, pace=room_pace.as_json(), fixed_deal=fixed_deal,
                             speech_time=timers.default_speech(ruleset) if speech_time is None else speech_time,
                             bot_kinds=kinds or None)
            try:
                await self._shielded(self.store.submit(Store.create_room(rec)))
            except IntegrityError:  # the id of a room that is only in the database (finished, or closed)
                continue
            break
        room = self._room(rec)
        self.rooms[room_id] = room
        if self.cluster is not None:
            self.cluster.entered(room)
        return room, token

    async def join(self, room: Room, name: str, seat: int | None) -> tuple[int, str]:
        from werewolf.web.requests import clean_name

        try:
            name = clean_name(name)
        except ValueError as err:
            raise ApiError(422, f"name: {err}") from None
        return await self._again(room, lambda: self._join(room, name, seat))  # type: ignore[no-any-return]

    async def _join(self, room: Room, name: str, seat: int | None) -> tuple[int, str]:
        from werewolf.web.requests import name_key

        async with room.lock:
            self.check_open(room)
            if room.status != "lobby":
                raise ApiError(409, "the game has started: no more seats can be taken")
            if any(name_key(taken) == name_key(name) for taken in room.names.values()):
                raise ApiError(409, f"the name {name!r} is taken in this room: choose another")
            free = room.free_seats()
            if seat is None:
                if not free:
                    raise ApiError(409, "the room is full")
                seat = free[0]
            elif not 1 <= seat <= room.n:
                raise ApiError(422, f"seat {seat} does not exist (seats 1 to {room.n})")
            elif seat not in free:
                raise ApiError(409, f"seat {seat} is taken")
            token = new_token()
            p = PlayerRecord(seat, name, token_hash(token), self.clock())
            await self.store.submit(Store.add_player(room.id, p))
            room.names[seat] = name
            room.hashes[seat] = p.token_hash
            room.info_version += 1
            room.changed()
        return seat, token

    async def start_game(self, room: Room, fill_with_bots: bool) -> None:
        await self._again(room, lambda: self._start_game(room, fill_with_bots))

    async def _start_game(self, room: Room, fill_with_bots: bool) -> None:
        async with room.lock:
            self.check_open(room)
            if room.status != "lobby":
                raise ApiError(409, "the game has already started")
            free = room.free_seats()
            if free and not fill_with_bots:
                raise ApiError(409, f"seat(s) {', '.join(map(str, free))} are empty: wait for players, "
                                    "or start with {\"fill_with_bots\": true}")
            bots = room.bots | set(free)

            def start() -> None:
                room.bots = bots
                room.status = "playing"

            await self._change(room, start, started=True)

    async def act(self, room: Room, seat: int, move: Move) -> None:
        """A person's answer: apply, let the bots follow, commit, publish."""
        await self._again(room, lambda: self._act(room, seat, move))

    async def _act(self, room: Room, seat: int, move: Move) -> None:
        asked = time.perf_counter()
        async with room.lock:
            if probe:
                probe.since("act: lock wait", asked)
            self.check_open(room)
            if room.status == "lobby":
                raise ApiError(409, "the game has not started yet")
            if room.status == "over" or room.over():
                raise ApiError(409, "the game is over")
            if not room.pending(seat):  # a decision not yet shown is not asked (the same words)
                raise ApiError(409, f"not your turn: seat {seat} is not asked for anything now ({room.phase()})")

            def answer() -> None:
                if not wolfpack.take_act(room, seat, move):  # at the knife, a pick (``werewolf.web.pack``)
                    room.game.answer(seat, move)

            await self._change(room, answer)

    async def voice(self, room: Room, ack: VoiceAck) -> int:
        """The moderator device's word (lines spoken, on, off, paused): the table moves on as far as it may.
        Returns the lines said, as the room counts them."""
        await self._again(room, lambda: self._voice(room, ack))
        return room.voice.heard

    async def _voice(self, room: Room, ack: VoiceAck) -> None:
        async with room.lock:
            self.check_open(room)
            if room.rec.mode != "face_to_face":
                raise ApiError(409, "this room is played online: it has no moderator voice")
            # Switched on before the start: it leads from the first line. Or the game is over and the voice
            # says its end: the screens show the end as it is said (``Voice.said``); nothing more to store.
            if room.status in ("lobby", "over"):
                room.voice.hear(ack, self.clock())
                room.changed()
                return
            if room.status != "playing":
                return
            await self._change(room, lambda: room.voice.hear(ack, self.clock()))

    async def decline(self, room: Room, decisions: list[Decision]) -> None:
        """Give timed-out decisions their defaults (and move the room on by its clock)."""
        await self._again(room, lambda: self._decline(room, decisions))

    async def _decline(self, room: Room, decisions: list[Decision]) -> None:
        async with room.lock:
            if room.status != "playing":
                return

            def take() -> None:
                for d in decisions:  # each still open (a decision may be listed twice, or closed by now)
                    if not room.game.over and any(o is d for o in room.pending(d.seat)) \
                            and not wolfpack.time_up(room, d):  # a wolf's knife: the current pick
                        room.game.decline(d)

            await self._change(room, take)

    async def pack_move(self, room: Room, apply: Callable[[], None]) -> None:
        """A wolf's pick or chat line, or an interrupt button (``werewolf.web.pack``): a change like an answer."""
        await self._again(room, lambda: self._pack_move(room, apply))

    async def _pack_move(self, room: Room, apply: Callable[[], None]) -> None:
        async with room.lock:
            self.check_open(room)
            if room.status != "playing" or room.over():
                raise ApiError(409, "the game is not on")
            await self._change(room, apply)

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        """Run ``coro`` as a task of the hub's (a stopping hub waits for it); refused once the hub stops."""
        if self.closing:
            coro.close()
            raise ApiError(503, SHUTTING_DOWN)
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        """A task of the hub's is over: its error is its caller's, and is logged here if the caller went away
        (an ApiError is an answer: it needs no log)."""
        self._tasks.discard(task)
        if task.cancelled():
            return
        err = task.exception()
        if err is not None and not isinstance(err, ApiError):
            log.error("a change of a room failed: %s", type(err).__name__, exc_info=err)

    async def _shielded(self, work: Any) -> Any:
        """``work`` (a coroutine, or an awaitable already under way) carried out to its end even if its caller
        goes away (a request that disconnects, the tick that stops): a change is never cut between its
        commit and the room's record of it, which would leave memory behind the database."""
        task = self._spawn(work) if asyncio.iscoroutine(work) else asyncio.ensure_future(work)
        return await asyncio.shield(task)

    async def _again(self, room: Room, make: Callable[[], Any]) -> Any:
        """The change ``make()`` makes, shielded; in a cluster, made again on the room brought up to date
        when it was refused because another server had written first (``Cluster.again``)."""
        if self.cluster is None:
            return await self._shielded(make())
        return await self.cluster.again(room, make)

    async def _change(self, room: Room, apply: Callable[[], None] | None = None, *, started: bool = False) -> None:
        """Apply a change (lock held): ``apply`` and the room's drive (the pacer, the bots) in the worker
        thread, then the commit, then the publication. Whatever fails on the way (the engine, a bot, the
        clock, the database), the room is put back exactly as it was, in memory as in the database
        (nothing was committed), and the caller gets an ``ApiError``."""
        if self.closing:
            raise ApiError(503, SHUTTING_DOWN)
        if self.rooms.get(room.id) is not room:  # dropped meanwhile: the next request reloads it
            raise ApiError(503, "this room was reloaded: nothing changed, try again")
        snap = room.snapshot()
        clock_started = False
        drives = self.drives(room)

        def work() -> None:
            began = time.perf_counter()
            if probe:
                probe.since("change: worker queue", queued)
            if apply is not None:
                try:
                    apply()
                except IllegalMove as err:  # refused by the rules before anything changed
                    raise ApiError(422, str(err)) from None
                except wolfpack.Refused as err:  # not now (the pack's moves), before anything changed
                    raise ApiError(err.status, err.message) from None
            if drives:
                room.drive(self.clock())
            if probe:
                probe.since("change: worker run", began)

        try:
            queued = time.perf_counter()
            await asyncio.get_running_loop().run_in_executor(self._worker, work)
            clock_started = drives and room.start_talk_clock()
            write = room.write(started=started, clock=clock_started)
        except ApiError:
            raise
        except Exception as err:
            log.exception("room %s: a change failed; the room is as it was", room.id)
            self._put_back(room, snap)
            raise ApiError(500, f"the server could not apply this ({type(err).__name__}): nothing changed, "
                                "try again") from None
        if write is not None:
            try:
                submitted = time.perf_counter()
                await self.store.submit(write.write)
                if probe:
                    probe.since("change: commit (queue + transaction)", submitted)
            except StaleWrite as err:  # memory does not hold what the database does: the database wins
                if self.cluster is not None:  # another server wrote first: catch up, and the caller tries again
                    self._put_back(room, snap)
                    await self.cluster.catch_up_locked(room)
                    raise Behind(409, "another server changed the room first: try again") from None
                log.error("%s; the room is reloaded from the database", err)
                self._drop(room)
                raise ApiError(503, "the room was out of step with the database: nothing changed, "
                                    "try again") from None
            except Exception:
                log.exception("room %s: commit failed; the room is as it was", room.id)
                self._put_back(room, snap)
                raise ApiError(503, "the database did not store this: nothing changed, try again") from None
        room.committed_now(write)
        if started:
            room.info_version += 1
        try:
            published = time.perf_counter()
            room.changed()
            if probe:
                probe.since("change: publish", published)
        except Exception:  # stored: a view that cannot be made now is made at the next change
            log.exception("room %s: publishing failed", room.id)
        self._schedule(room)

    def _put_back(self, room: Room, snap: tuple[Any, ...]) -> None:
        """The room as it was before a failed change; if even that fails, it leaves memory (its phones
        reconnect, and the next request loads it from the database, which has nothing of the change)."""
        try:
            room.restore(snap)
            room.changed()
        except Exception:
            log.exception("room %s: could not be put back; dropped from memory", room.id)
            room.status = CLOSED if room.status == "lobby" else room.status
            self._drop(room)
            return
        self._schedule(room, not_before=self.tick)  # what failed is tried again, but not in a tight loop

    def _drop(self, room: Room) -> None:
        """The room leaves memory: its phones reconnect and the next request loads it from the database."""
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
        if room.wake is not None:
            room.wake.cancel()
            room.wake = None
        for sub in room.subs:
            sub.closed = True
            sub.dirty.set()

    def _schedule(self, room: Room, not_before: float = 0.0) -> None:
        """Wake the room when its pacer is next due (a step's end, a release)."""
        if room.wake is not None:
            room.wake.cancel()
            room.wake = None
        due = room.pacer.due(room.game.events) if room.status == "playing" and self.drives(room) else None
        if due is None or not self.timers or self.closing:
            return
        delay = max(not_before, due - self.clock())
        room.wake = asyncio.get_running_loop().call_later(delay, self._wake, room)

    def _wake(self, room: Room) -> None:
        room.wake = None
        if not self.closing and self.rooms.get(room.id) is room:
            self._spawn(self.pace_room(room))

    async def pace_room(self, room: Room) -> None:
        """The clock's part of a room's change: release what is due, let held bots answer."""
        async with room.lock:
            if room.status != "playing" or self.rooms.get(room.id) is not room:
                return
            try:
                await self._change(room)
            except ApiError as err:
                if not self.closing and not isinstance(err, Behind):
                    log.warning("room %s: pacing: %s", room.id, err.message)

    def leave(self, room: Room, sub: Subscriber) -> None:
        """A socket closed: the room no longer pushes to it (and a finished game's grace starts again)."""
        room.subs.discard(sub)
        room.used = room.asked = self.clock()

    async def view_json(self, room: Room, seat: int | None, host: bool, lang: str | None) -> str:
        async with room.lock:
            self.check_open(room)
            return room.view_json(seat, host, lang)

    async def push(self, room: Room, sub: Subscriber) -> str | None:
        """The socket's view if it changed since the last one it was sent, else None."""
        asked = time.perf_counter()
        async with room.lock:
            built = time.perf_counter()
            text = room.push_json(sub)
            if probe:
                probe.add("push: lock wait", built - asked)
                probe.since("push: build", built)
            return text

    # -- the clock --------------------------------------------------------------------------
    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            await self.sweep()

    async def sweep(self) -> None:
        """One tick: drop the finished games and expired lobbies, take the defaults that are due."""
        now, wall = self.clock(), time.time()  # the rooms' lives on the clock, the decisions' on the wall
        for room_id, room in list(self.rooms.items()):
            if self.closing:
                return
            if self.cluster is not None and self.place is not None and room.status in ("lobby", "playing") \
                    and not room.subs and now - room.asked > STRAY and not room.lock.locked() \
                    and self.cluster.strays(room):
                # Another worker is this room's home (werewolf.web.routing): the copy leaves, and if this
                # process drove it (its home had died), the lock goes back for the home to take.
                log.debug("room %s: let go by worker %s (its home is worker %d)", room_id, self.place,
                          self.place.home(room_id))
                self._drop(room)
                await self.cluster.let_go(room_id)
                continue
            if room.status == "over":
                # Watched, it stays its grace; unwatched, it leaves almost at once (replayed on demand).
                grace = self.keep_finished if room.subs else min(self.keep_finished, UNWATCHED)
                if now - room.used > grace:
                    # Sockets still open keep their (unchanging) room; the next request replays it.
                    del self.rooms[room_id]
                continue
            if room.status == "lobby":
                if self.lobby_idle > 0 and now - room.touched > self.lobby_idle:
                    await self.expire(room)
                continue
            if room.lock.locked() or not self.drives(room):
                continue  # busy: its change moves it on, and the next tick looks again (or another server's)
            due = [d for d, t in room.deadlines.values() if t <= wall]
            if room.speech.warn(now):  # the speaker's warning: every phone is told
                room.info_version += 1
                room.changed()
            due += room.speech.due(now)
            paced = room.pacer.due(room.game.events)
            if due or room.late_turns() or (paced is not None and paced <= now):
                try:
                    await self.decline(room, due)
                except ApiError as err:
                    if not self.closing:
                        log.warning("room %s: timeout: %s", room.id, err.message)

    async def expire(self, room: Room) -> None:
        """Close an idle lobby in the database, then drop it; its sockets are told on reconnecting."""
        await self._shielded(self._expire(room))

    async def _expire(self, room: Room) -> None:
        async with room.lock:
            if room.status != "lobby" or self.clock() - room.touched <= self.lobby_idle:
                return  # joined or started while the lock was awaited
            try:
                closed = await self.store.submit(Store.close_lobby(room.id))
            except Exception:
                log.exception("room %s: the lobby could not be closed; tried again at the next tick", room.id)
                return
            if closed:
                room.status = CLOSED
                log.info("room %s: lobby closed after %g hours without a join", room.id, self.lobby_idle / 3600)
            else:  # the database has it otherwise (another server?): the next request loads its row
                log.warning("room %s: not a lobby in the database any more; dropped from memory", room.id)
            if self.rooms.get(room.id) is room:
                del self.rooms[room.id]
            for sub in room.subs:
                sub.closed = True
                sub.dirty.set()
