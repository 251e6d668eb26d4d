"""The pacer: between a live room's game and its sockets, it decides which events are out.

The engine runs a night as fast as it can: a step whose role nobody plays (its
holder dead, the card in the centre, a witch with nothing left) asks nobody and
passes at once, while a living player's step waits for an answer. Shown as it
comes, that stream would tell every phone and spectator which roles are alive.
The rule books' judge plays every step out instead ("the seer opens her eyes…"
even when she is dead), and so does the pacer:

- The game's events are released in order, never ahead of the engine, up to
  ``released``. A view shows only released events, and a seat's decisions only
  once every event the engine has said is released (``settled``).
- Every night step (a public ``step`` event) is *held*: it lasts a duration drawn
  from the room's ``Pace`` with the server's secret randomness
  (``secrets.SystemRandom``), whoever holds it. A person's step lasts until the
  person has answered and the duration is over; a bot answers when it is over
  (``bots_may_answer``); a step that asks nobody just lasts the duration.
- A person may take longer than the pace's longest step, and a step nobody answers
  never does: a slow seer would show that the seer is alive (issue 25). So in a room
  whose pace hides the timing (not ``Pace.instant``), a step that waits for no person
  (its role dead, in the centre, or a bot's) lasts ``max(drawn, answer)``, where
  ``answer`` is drawn from this room's own people's answer times at that step (the
  role's), else at any step (a card in the centre, a role dead from the start), else
  from this server's people's at that step (``POOL``), else from a model of a person's answer time (log-normal, median
  ``ANSWER_MEDIAN`` s, ``ANSWER_SIGMA``); and every step, a
  person's too, ends at the latest ``Pace.cap`` seconds after it began: a person who
  has not answered by then is declined (``overdue``), as a dead role's step ends. A
  step's length is then drawn from one distribution whoever holds the role
  (``scripts/step_timing.py`` measures it).
- A step's release carries the step's private events up to the next public event
  (the witch woken and shown the victim); private events that follow an answer (the
  seer's result) go out with it; public events after a step (the next step, the
  dawn) only once the step is over, and never in the update that ended it: the next
  release is at least ``Pace.gap`` later.

Face to face, a ``Gate`` (``werewolf.web.voice``: the moderator device, the table's
clock) may hold the pacer: while it holds, nothing is released and the pacer's clock
stands still (a step's time and the pause after it count from the moment the voice
has caught up), and a step is released alone, its private events (the witch shown the
victim) only once its call has been heard. A room whose gate does not hold (no device)
is paced exactly as above.

Everything depends only on the events (deterministic on replay) and the clock, so the
state that must survive a restart is ``released`` alone (stored with the answers; the
voice's ``heard`` beside it); a restart re-paces the step that was open, with a new
duration, and never skips or repeats an event. Scripts and simulations never meet a
pacer: pacing belongs to the live room, not to the rules.
"""

from __future__ import annotations

import math
import random
import secrets
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from werewolf.core.events import Event

MAX_PACE = 120.0  # seconds: the longest a room may hold a step
# Seconds a step must last at the least to hide whether its role is played: less than a person takes to read
# a prompt and tap, and a played-out step (a dead or absent role) ends before any live one could. A room
# whose pace is shorter ("pace": [0, 0] plays the nights at once, for tests and bot tables) is marked
# "instant nights" on every screen, as a fixed deal is (``Pace.instant``; the room's ``instant_nights``).
MIN_HIDING = 2.0
STEP_CAP = 45.0  # seconds: the longest any night step lasts where the pace hides the timing (a person is declined)
# A person's answer time at a night step, before the room has its own (log-normal): a median of 3 s, and one
# answer in twenty over 8 s, as people are timed choosing a seat on a phone they hold ready.
ANSWER_MEDIAN, ANSWER_SIGMA = 3.0, 0.6
SAMPLES = 64  # answer times a room keeps per step
# The answer times of this process's people, by ruleset-independent step (the role): what a step whose role no
# person of the room ever answered (a centre card, a role dead from the start) lasts, before the model.
POOL: dict[str, deque[float]] = {}
POOL_SAMPLES = 1000
GAP = 1.0  # seconds between a step's end and the next release ("…close your eyes.")


@dataclass(frozen=True)
class Pace:
    """A room's pacing: each night step lasts between ``low`` and ``high`` seconds (drawn uniformly)."""

    low: float
    high: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "low", _seconds("low", self.low))
        object.__setattr__(self, "high", _seconds("high", self.high))
        if self.low > self.high:
            raise ValueError(f"pace: the shortest step ({self.low:g} s) is longer than the longest ({self.high:g} s)")

    @classmethod
    def parse(cls, value: object) -> Pace:
        """``[low, high]`` (seconds) as JSON has it; ValueError naming what is wrong."""
        if isinstance(value, Pace):
            return value
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise ValueError(f"pace must be [shortest, longest] in seconds, not {str(value)[:40]}")
        return cls(value[0], value[1])

    def as_json(self) -> list[float]:
        return [self.low, self.high]

    @property
    def gap(self) -> float:
        return min(GAP, self.high / 4)

    @property
    def cap(self) -> float:
        """The longest a step lasts (a person's too) where the pace hides the timing."""
        return max(self.high, STEP_CAP)

    @property
    def instant(self) -> bool:
        """Whether a step may be shorter than ``MIN_HIDING``: then the nights' timing shows who is dead."""
        return self.low < MIN_HIDING

    def draw(self, rng: random.Random) -> float:
        return self.low if self.high <= self.low else rng.uniform(self.low, self.high)


def _seconds(name: str, v: object) -> float:
    """A number of seconds in [0, MAX_PACE] (an integer of any size is compared before it is converted)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
        raise ValueError(f"pace: {name} must be a finite number of seconds, not {str(v)[:40]}")
    if not 0 <= v <= MAX_PACE:
        raise ValueError(f"pace: {name} must be between 0 and {MAX_PACE:g} seconds, not {str(v)[:40]}")
    return float(v)


DEFAULT_PACE = Pace(4.0, 9.0)


def _is_step(e: Event) -> bool:
    return e.type == "step" and e.to is None


def _next_public(events: Sequence[Event], start: int) -> int:
    """The index of the first public event at or after ``start`` (``len(events)`` if none)."""
    for i in range(start, len(events)):
        if events[i].to is None:
            return i
    return len(events)


def _next_step(events: Sequence[Event], start: int) -> int:
    for i in range(start, len(events)):
        if _is_step(events[i]):
            return i
    return len(events)


class Gate(Protocol):
    """What may hold a pacer: the face-to-face voice (``werewolf.web.voice.Voice``)."""

    def present(self, now: float) -> bool: ...  # it leads the table now (a step is released alone)

    def waits(self, now: float) -> bool: ...  # it holds everything now

    def until(self) -> float: ...  # when its holding ends by itself, at the latest


class Pacer:
    """Which of a live game's events are out, and when the next may go (see the module's docstring)."""

    def __init__(self, pace: Pace, events: Sequence[Event], released: int | None, now: float,
                 rng: random.Random | None = None) -> None:
        self.pace = pace
        self.rng = rng if rng is not None else secrets.SystemRandom()
        # A room stored before pacing was (``None``) has shown everything.
        self.released = len(events) if released is None else min(max(released, 0), len(events))
        self.step: int | None = None  # the index of the open step's event
        self.hold_until = now  # the open step's end, at the earliest
        self.next_at = now  # no step starts before this
        # The open step's ``hold_until`` once seen over with everything out: from then on only an answer
        # moves the room on, not the clock (without it, the room would be woken again and again, at once).
        self.spent: float | None = None
        self.gate: Gate | None = None
        self.frozen: float | None = None  # since when the gate has held the pacer's clock
        # Whether the engine's open request asks a person (the room says: ``Room.asks_person``); None: nobody is.
        self.asks_person: Callable[[], bool] | None = None
        self.answers: dict[str, list[float]] = {}  # this room's people's answer times, by step (the role)
        self.started = now  # when the open step began
        self.person = False  # the open step waits for a person (their answer ends it, or the cap)
        self.heard = True  # the open step's answer was seen (or it needs none)
        self.expired = False  # the open step's person was declined at the cap
        last_public = next((i for i in range(self.released - 1, -1, -1) if events[i].to is None), None)
        if last_public is not None and _is_step(events[last_public]):
            # Restarted inside a step: it is played out again, from now, with a new duration.
            self.step = last_public
            self.hold_until = now + pace.draw(self.rng)

    # -- reading --------------------------------------------------------------------------
    def shown(self, events: Sequence[Event]) -> Sequence[Event]:
        return events if self.released >= len(events) else events[:self.released]

    def settled(self, events: Sequence[Event]) -> bool:
        """Whether everything the engine said is out (only then are its decisions shown)."""
        return self.released >= len(events)

    def open_step(self, events: Sequence[Event]) -> Event | None:
        """The step now played out (released, not over), if any."""
        return events[self.step] if self.step is not None and self.step < len(events) else None

    def bots_may_answer(self, events: Sequence[Event], now: float) -> bool:
        """Bots answer what they owe once it is shown and, inside a step, once the step's time is over."""
        if self.held(now):
            return False
        return self.settled(events) and (self.step is None or now >= self.hold_until)

    def held(self, now: float) -> bool:
        """Whether the gate holds everything now (its clock stops from the first moment it is seen to)."""
        if self.gate is None or not self.gate.waits(now):
            self._thaw(now)
            return False
        if self.frozen is None:
            self.frozen = now
        return True

    def _thaw(self, now: float) -> None:
        """The gate let go: the time it held is added to what was still to run (a step, the pause after)."""
        if self.frozen is None:
            return
        since, self.frozen = self.frozen, None
        shift = max(0.0, now - since)
        if self.hold_until > since:
            self.hold_until += shift
        if self.next_at > since:
            self.next_at += shift
        if self.step is not None:
            self.started += shift  # (the step's cap counts its own time, not the voice's)

    def due(self, events: Sequence[Event]) -> float | None:
        """When something may next change by the clock alone (a step's end, a release, a person's step at its
        cap), else None."""
        if self.frozen is not None and self.gate is not None:
            return self.gate.until()  # only the voice (or its absence, once it is too long) moves it on
        if self.step is not None:
            if self.spent == self.hold_until and self.settled(events):
                return self.started + self.pace.cap if self.person and not self.heard and not self.expired else None
            return self.hold_until
        if not self.settled(events):
            return self.next_at
        return None

    def overdue(self, events: Sequence[Event], now: float) -> bool:
        """Whether the open step's person has not answered by its cap: the room declines them now (``expire``)."""
        return (self.step is not None and self.person and not self.heard and not self.expired
                and self.settled(events) and not self.held(now) and now >= self.started + self.pace.cap)

    def expire(self) -> None:
        self.expired = True

    def _key(self, events: Sequence[Event]) -> str:
        return str(events[self.step].data.get("role")) if self.step is not None else ""

    def _heard(self, events: Sequence[Event], now: float) -> None:
        """The open step's person answered (the engine went past the step): their time is one of the room's."""
        if self.heard or self.step is None or _next_public(events, self.step + 1) >= len(events):
            return
        self.heard = True
        if self.person and not self.expired:
            key, took = self._key(events), now - self.started
            times = self.answers.setdefault(key, [])
            times.append(took)
            del times[:-SAMPLES]
            POOL.setdefault(key, deque(maxlen=POOL_SAMPLES)).append(took)

    def _length(self, events: Sequence[Event]) -> float:
        """The open step's drawn length (see the module's docstring)."""
        drawn = self.pace.draw(self.rng)
        if self.pace.instant or self.person:
            return drawn  # a person's own answer makes up the rest, up to the cap
        key = self._key(events)
        seen = self.answers.get(key) or [t for ts in self.answers.values() for t in ts] or POOL.get(key)
        answer = self.rng.choice(seen) if seen else self.rng.lognormvariate(math.log(ANSWER_MEDIAN), ANSWER_SIGMA)
        return min(self.pace.cap, max(drawn, answer))

    # -- moving on -------------------------------------------------------------------------
    def advance(self, events: Sequence[Event], now: float) -> bool:
        """Release the next part of the stream if it is due; True if anything changed.

        One part at a time: the caller publishes between parts, so that no update carries
        both the end of a step and what follows it.
        """
        if self.held(now):
            return False
        self._heard(events, now)
        r, n = self.released, len(events)
        if r >= n:
            if self.step is not None and now >= self.hold_until:
                self.spent = self.hold_until  # over: the bots answer now, a person whenever they do
            return False
        first = events[r]
        if first.to is not None:  # private events (a result told after an answer): out at once
            self.released = _next_public(events, r)
            return True
        if self.step is not None:  # public events after the open step: only once it is over
            if now < self.hold_until:
                return False
            self.step = None
            self.next_at = now + self.pace.gap
            return True
        if now < self.next_at:
            return False
        if _is_step(first):  # a step begins: it and its private events (the holder woken, told)
            self.step = r
            self.started = now
            # The engine stopped inside this step (no public event after it): someone is asked; a person?
            waits = _next_public(events, r + 1) >= n
            self.person = waits and not self.pace.instant and self.asks_person is not None and self.asks_person()
            self.heard, self.expired = not waits, False
            self.hold_until = now + self._length(events)
            # Led by a voice, the step is called before its holder is woken (its private events next).
            alone = self.gate is not None and self.gate.present(now)
            self.released = r + 1 if alone else _next_public(events, r + 1)
            return True
        # Public events between steps (the day, the fall of night): up to the next step.
        self.released = _next_step(events, r + 1)
        self.next_at = now + self.pace.gap
        return True
