"""The speech timer: a person's speaking turn ends when its time is up, with a warning before.

A room may set ``speech_time`` (seconds; stored with the room, chosen on the create page with
a default per ruleset). Each speaking turn of a person (a ``speak`` decision, not the one-night
discussion, which has its own clock) gets its deadline when the server first sees it open, on
the room's clock. It is public: every phone and the moderator screen show the same
``speaker_deadline`` (Unix time) and ``speech_warning`` (seconds before it when the phones
warn the speaker). When the warning is due the server says so once (``speech_warned``, pushed
to every socket); when the time is up the server closes the speech with the decision's
default (``Game.decline``: a speech that ended, as "done" or "pass" would end it), and the room
notes that the timer ended it (``Room.time_out``: its ``speech`` event, stored with the answer, so
that every view, public, says "time!" after it, after a restart too).

The room's decision ``timeout`` still applies to a speech too; whichever ends first ends it.

A restart gives an open speech its full time again, as every open decision gets
(``werewolf.web.hub``): only the room's ``speech_time`` is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from werewolf.core.decisions import Decision

WARNING = 15.0  # seconds before a speech's end when the speaker is warned
MIN_SPEECH = 10.0  # a shorter limit leaves no time to speak (0: no limit)
MAX_SPEECH = 3600.0
SPEECH_DEFAULT = 120.0  # the books are silent; tables usually give one to two minutes a speech
# The one-night games have no speaking turns (their discussion has its own clock).
NO_TURNS = ("onuw", "onenight")


def default_speech(ruleset: str) -> float:
    """The speech time of a room whose creator chose none: 0 (no turns to time) in the one-night games."""
    return 0.0 if ruleset in NO_TURNS else SPEECH_DEFAULT


def warning(seconds: float) -> float:
    """How long before the end the speaker is warned: 15 seconds, a quarter of a short speech."""
    return min(WARNING, seconds / 4)


def is_turn(d: Decision) -> bool:
    """A speaking turn (in a one-night game, a round of the discussion: those rooms have no speech timer)."""
    return d.act == "speak"


@dataclass
class Turn:
    decision: Decision
    deadline: float
    warned: bool = False


class SpeechClock:
    """The open speeches' deadlines of one room (``seconds`` 0: no speech timer)."""

    def __init__(self, seconds: float | None, clock: Callable[[], float], ruleset: str) -> None:
        # The one-night discussion has its own clock (``werewolf.web.room``): no speech timer there.
        self.seconds = 0.0 if ruleset in NO_TURNS else float(seconds or 0.0)
        self.clock = clock
        self.turns: dict[tuple[int, Any, int], Turn] = {}
        self._spoken = (0, 0)  # (answers counted, speeches among them): each answer counted once

    def track(self, open_decisions: Iterable[Decision], answers: list[tuple[int, str, Any]],
              people: Callable[[int], bool]) -> None:
        """Keep the deadline of every speech still open, start one for a speech newly open.

        A speech is known by its seat, its part and the number of speeches answered before it, so
        that a room put back after a failed change (its decisions new objects) keeps its deadlines.
        """
        if self.seconds <= 0:
            self.turns = {}
            return
        counted, spoken = self._spoken
        if counted > len(answers):  # the room was put back: count again
            counted = spoken = 0
        spoken += sum(1 for i in range(counted, len(answers)) if answers[i][1] == "speak")
        self._spoken = (len(answers), spoken)
        now = self.clock()
        old, self.turns = self.turns, {}
        for d in open_decisions:
            if not is_turn(d) or not people(d.seat):
                continue
            key = (d.seat, getattr(d, "part", None), spoken)
            turn = old.get(key)
            if turn is None:
                turn = Turn(d, now + self.seconds)
            turn.decision = d
            self.turns[key] = turn

    def deadline(self) -> float | None:
        """The open speech's end (the earliest, if several speak at once)."""
        return min((t.deadline for t in self.turns.values()), default=None)

    def warned(self) -> bool:
        return any(t.warned for t in self.turns.values())

    def warn(self, now: float) -> bool:
        """Mark the speeches whose warning is due; True if any was marked now (the phones are told)."""
        fresh = False
        for t in self.turns.values():
            if not t.warned and now >= t.deadline - warning(self.seconds):
                t.warned = fresh = True
        return fresh

    def due(self, now: float) -> list[Decision]:
        """The speeches whose time is up."""
        return [t.decision for t in self.turns.values() if now >= t.deadline]

    def view(self) -> dict[str, Any]:
        """The public part of every view: the same for every seat, the host and spectators."""
        return {"speaker_deadline": self.deadline(), "speech_warning": warning(self.seconds) if self.seconds else None,
                "speech_warned": self.warned()}
