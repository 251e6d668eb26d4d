"""The voice: in a face-to-face room the moderator device (the host's page that speaks) is the table's clock.

A human judge calls each role ("Witch, open your eyes"), waits, dismisses it ("Witch, close your eyes")
and only then calls the next; by day she calls each speaker and the vote in turn. The server keeps the
same *script* (``Voice.lines``): the lines a judge says, made only of what the public may know:

- every public event released by the pacer (``werewolf.web.pacing``), narrated as the public reads it;
- after each night step, once the pacer has ended it, the judge's "… close your eyes" (the rule books'
  「…請閉眼」, 000 §夜晚 A–U and 001's script), for a dead or absent role exactly as for a living one;
- each speaking turn, once: an open turn is called ("Seat 3 speaks."), and the ``speech`` event that
  closes it takes that same line's place (a typed statement is read after it); last words are called by
  their own event, never again by the turn;
- each call to the table to decide (run for sheriff, vote: ``ASKS``, asked of everyone alike), once: the
  open request is called, and the event that ends it (``candidates``, ``votes``) comes after that line.

The script only grows (a line's number never changes), so the device acknowledges lines by number:
``heard`` lines are spoken. While the device is there (``present``: it said so, or acknowledged a line,
within ``LEASE`` seconds) and lags behind the script, nothing moves: the pacer releases nothing and its
clock stands still (a step's time counts from the moment its call was heard), no decision is offered on
any phone and no bot answers. So a phone offers a night decision only after its role was called, and
"Run for sheriff" only once the night is over aloud. A room with no device (or one silent for ``LEASE``
seconds, or stuck on one line for ``STALL`` seconds unless paused) is paced by the phones, as online.

Nothing here reads a hidden fact: the lines are public events and the pacer's public state, and when the
device is heard depends only on those lines. ``heard`` is stored with the answers and the pacer's
``released`` (``Store.progress``), so a restart neither repeats nor skips a line.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from werewolf.core.events import Event
from werewolf.i18n import has, narrate, normalize_lang, role_name, t

if TYPE_CHECKING:
    from werewolf.core.game import Game, Setup
    from werewolf.web.pacing import Pacer
    from werewolf.web.store import RoomRecord


class Room(Protocol):
    """A room as its voice reads it (``werewolf.web.room.Room``): its mode, its game and what is out."""

    @property
    def rec(self) -> RoomRecord: ...
    @property
    def setup(self) -> Setup: ...
    @property
    def game(self) -> Game: ...
    @property
    def pacer(self) -> Pacer: ...
    @property
    def status(self) -> str: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    def phase(self) -> str: ...


LEASE = 15.0  # seconds the device counts as there after its last word (it speaks up every few seconds)
STALL = 90.0  # seconds the table waits on one line before it goes on without the voice (unless paused)
FACE_TO_FACE = "face_to_face"
ONE_NIGHT = ("onuw", "onenight")  # everyone talks at once: no turns are called
RECALL = 8  # lines back a voice switched on mid-game may start (from the fall of night, say)
ASKS = ("run", "sheriff_vote", "sheriff_pk_vote", "vote", "pk_vote", "second_vote")  # called as "ask.<act>"
AHEAD = 40  # lines a view carries at most (the device asks for more by saying them)
QUIET = frozenset({"game_start"})  # said before the night, on the lobby's screen; not worth a voice line


class VoiceAck(BaseModel):
    """The moderator device's word: on or off, how many lines it has spoken, paused or not."""

    model_config = ConfigDict(strict=True, extra="forbid")
    on: bool = Field(True, description="false: the device stops leading (the phones pace the game)")
    heard: int | None = Field(None, ge=0, le=10**6, description="lines spoken so far (null: start at the current "
                                                               "line)")
    paused: bool = Field(False, description="the voice is paused: the table waits for it")


class VoiceHeard(BaseModel):
    """The answer to the device: where the server has it (a device switched on starts there)."""

    ok: bool = True
    heard: int = Field(description="lines of the script said so far, as the server counts them")


@dataclass(frozen=True)
class Line:
    """One line of the script: a public event to narrate, or the close of a step (``close``)."""

    event: dict[str, Any]
    close: bool = False

    def text(self, lang: str) -> str:
        if self.event.get("type") == "ask":
            return t(f"ask.{self.event.get('act')}", lang)
        if not self.close:
            # A vote is read as its tally, not ballot by ballot (the ballots stay on the screens' log).
            event = {k: v for k, v in self.event.items() if k != "ballots"} if self.event.get("type") == "votes" \
                else self.event
            try:
                return narrate(event, lang, None) or ""
            except Exception:  # noqa: BLE001 - a missing message must not stop the voice
                return ""
        role, code = self.event.get("role"), self.event.get("step")
        if self.event.get("copied"):
            return t("close.copied", lang)
        for key in (f"close.{role}.{code}", f"close.{role}"):
            if has(key, lang):
                return t(key, lang)
        try:
            name = role_name(str(role), lang)
        except KeyError:
            name = str(role)
        return t("close.open", lang, role=name)


def _ask(act: Any) -> Line:
    return Line({"type": "ask", "act": act})


def _turn(seat: Any, part: Any, phase: str) -> dict[str, Any]:
    """A speaking turn's call: the ``speech`` event without text, as its answer will log it."""
    return {"type": "speech", "phase": phase, "seat": seat, "part": part}


class Voice:
    """A face-to-face room's script and how much of it the moderator device has spoken."""

    def __init__(self, room: Room, heard: int | None) -> None:
        # A weak reference: the room holds its voice, and a strong one back would put every room in a cycle,
        # which only the garbage collector's rare full collections free (``werewolf.web.runtime``): a
        # finished room must leave memory by its reference count (scripts/memory.py).
        self._room: weakref.ReferenceType[Room] = weakref.ref(room)
        self.face_to_face = room.rec.mode == FACE_TO_FACE
        self.turns = room.setup.ruleset not in ONE_NIGHT
        self.heard = heard or 0
        self.stored = heard  # what the database holds
        self.present_until = 0.0  # the device is there until then (renewed by each of its words)
        self.paused = False
        self.behind_since: float | None = None  # since when the table has waited on the line now said
        self._reset()

    @property
    def room(self) -> Room:
        room = self._room()
        if room is None:  # only a room's own calls reach its voice, and they hold the room
            raise RuntimeError("the voice's room has left memory")
        return room

    def _reset(self) -> None:
        self._fixed: list[Line] = []  # the lines of the events scanned so far
        self._at: list[int] = []  # for each of them, the event it comes with (its index in the game's log)
        self._shown = 0  # the events the phones were shown so far (``said``: it never goes back)
        self._scanned = 0
        self._open: dict[str, Any] | None = None  # a step whose close is not yet said

    def replayed(self) -> None:
        """The room's game was replayed (put back after a failure): its events are new objects."""
        self._reset()

    # -- the script ---------------------------------------------------------------------------
    def lines(self) -> list[Line]:
        """The whole script so far (see the module's docstring)."""
        room = self.room
        events = room.game.events
        released = room.pacer.released
        if self._scanned > released:  # the room was put back: start again
            self._reset()
        self._scan(events, released)
        out = list(self._fixed)
        if self._open is not None and room.pacer.step is None:
            out.append(Line(self._open, close=True))  # the step is over, nothing after it yet
        return out + self._asked()

    def _asked(self) -> list[Line]:
        """The calls of the open request: each speaking turn, each decision asked of the table (once)."""
        room = self.room
        if room.status != "playing" or not room.pacer.settled(room.game.events):
            return []
        out: list[Line] = []
        asked: set[str] = set()
        for d in room.game.pending():
            part = getattr(d, "part", None)
            if d.act == "speak" and part != "last_words" and self.turns:
                out.append(Line(_turn(d.seat, part, room.phase())))
            elif d.act in ASKS and d.act not in asked:
                asked.add(d.act)
                out.append(_ask(d.act))
        return out

    def count(self) -> int:
        """``len(self.lines())``, without making them (asked at every view of every phone)."""
        room = self.room
        events = room.game.events
        released = room.pacer.released
        if self._scanned > released:
            self._reset()
        self._scan(events, released)
        return len(self._fixed) + (self._open is not None and room.pacer.step is None) + len(self._asked())

    def _scan(self, events: Sequence[Event], released: int) -> None:
        for i in range(self._scanned, released):
            e = events[i]
            if e.to is not None or e.type in QUIET:
                continue
            j = e.as_json(with_audience=False)
            if self._open is not None:  # anything public after a step: the step was over
                self._fixed.append(Line(self._open, close=True))
                self._open = None
            if e.type == "step":
                self._fixed.append(Line(j))
                self._open = j
            elif e.type in ("candidates", "votes"):  # the call to decide came first
                act = "run" if e.type == "candidates" else e.data.get("round", "vote")
                if act in ASKS:
                    self._fixed.append(_ask(act))
                self._fixed.append(Line(j))
            elif e.type == "speech" and self.turns:
                self._fixed.append(Line(_turn(e.data.get("seat"), e.data.get("part"), e.phase)))
                if e.data.get("text") or e.data.get("passed"):  # what was said (or that the turn was passed)
                    self._fixed.append(Line(j))
            else:
                self._fixed.append(Line(j))
            self._at.extend([i] * (len(self._fixed) - len(self._at)))
        self._scanned = max(self._scanned, released)

    def said(self, events: Sequence[Event], now: float) -> Sequence[Event]:
        """The released ``events`` the screens may show: face to face, while the device leads the table,
        only those the voice has said or is saying (the line after the last one heard), with the private
        events that came before the next line; so the phones and the moderator screen never show an event,
        the game's end above all, before the voice says it. The cut is made of the public script alone and
        is the same for every seat; it never moves back (a voice switched on mid-game starts a little back)."""
        if not self.face_to_face:
            return events
        stalled = not self.paused and self.behind_since is not None and now >= self.behind_since + STALL
        if self.present(now) and not stalled:
            if self._scanned > len(events):  # the room was put back: start again
                self._reset()
            self._scan(self.room.game.events, len(events))
            nxt = self.heard + 1  # the line after the one being said
            cut = self._at[nxt] if nxt < len(self._at) else len(events)
        else:
            cut = len(events)
        self._shown = min(max(self._shown, cut), len(events))
        return events if self._shown >= len(events) else events[:self._shown]

    # -- the device -----------------------------------------------------------------------------
    def present(self, now: float) -> bool:
        return self.face_to_face and now < self.present_until

    def waits(self, now: float) -> bool:
        """Whether the table waits for the voice now: the device is there and has lines left to say."""
        if not self.present(now):
            return False
        if self.heard >= self.count():
            self.behind_since = None
            return False
        if self.behind_since is None:  # a new line to say: the table waits from now
            self.behind_since = now
        # Stuck on one line (a device that speaks up but never finishes): the game goes on without it.
        return self.paused or now < self.behind_since + STALL

    def until(self) -> float:
        """When the waiting ends by itself (the device gone silent, or stuck)."""
        if self.paused or self.behind_since is None:
            return self.present_until
        return min(self.present_until, self.behind_since + STALL)

    def hear(self, ack: VoiceAck, now: float) -> None:
        """The device's word (see ``VoiceAck``)."""
        if not self.face_to_face:
            return
        if not ack.on:
            self.present_until = 0.0
            self.paused = False
            return
        if ack.heard is None:
            if not self.present(now):  # switched on: from the call of this night or day, not the backlog
                self.heard = max(self.heard, self._recent_start())
                self.behind_since = None
        elif ack.heard > self.heard:
            self.heard = min(ack.heard, self.count())
            self.behind_since = None  # the next line (if any) is waited for from now
        if not self.present(now) or self.paused != ack.paused:
            self.behind_since = None
        self.paused = ack.paused
        self.present_until = now + LEASE

    def _recent_start(self) -> int:
        """Where a voice switched on starts: the fall of night or the break of day, if among the last
        ``RECALL`` lines, else the last line."""
        lines = self.lines()
        for i in range(len(lines) - 1, max(-1, len(lines) - 1 - RECALL), -1):
            if not lines[i].close and lines[i].event.get("type") in ("night", "day"):
                return i
        return max(0, len(lines) - 1)

    # -- what the moderator screen shows ----------------------------------------------------------
    def view(self, now: float) -> dict[str, Any] | None:
        if not self.face_to_face:
            return None
        return {"on": self.present(now), "heard": self.heard, "lines": self.count(), "paused": self.paused,
                "waiting": self.waits(now)}

    def signature(self, now: float) -> tuple[Any, ...]:
        if not self.face_to_face:
            return ()
        return (self.present(now), self.heard, self.count(), self.paused)

    def words(self, lang: str) -> dict[str, Any] | None:
        """The lines the device has still to say (and the last one said, to repeat), and its buttons."""
        if not self.face_to_face:
            return None
        lang = normalize_lang(lang)
        lines = self.lines()
        # Led: from the last line said on (a page that comes back finds its place); not led: the latest ones.
        led = self.present(self.room.clock())
        start = max(0, min(self.heard, len(lines)) - 1) if led else max(0, len(lines) - 1 - RECALL)
        end = min(len(lines), start + AHEAD)
        return {"lines": [{"n": n, "text": lines[n].text(lang)} for n in range(start, end)],
                "labels": {k: t(f"ui.voice.{k}", lang) for k in LABELS}}


LABELS = ("now", "pause", "resume", "repeat", "waiting", "off", "speaker", "timer")
