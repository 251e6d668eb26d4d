"""Errors the engine raises for bad input. None of them changes any state."""

from __future__ import annotations

from typing import Any

QUOTED = 40  # characters of a value an error quotes back


def quoted(value: Any, limit: int = QUOTED) -> str:
    """A value as an error quotes it: at most a short prefix (a value may be as long as its sender likes)."""
    if isinstance(value, int) and abs(value) >= 10**30:  # and repr() refuses one of over 4,300 digits
        return f"<an integer of {value.bit_length()} bits>"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


class WerewolfError(Exception):
    """Base of every error caused by input (a file, an option, a move)."""


class SetupError(WerewolfError):
    """A game that cannot be set up: unknown ruleset, role, option, bad deck."""


class IllegalMove(WerewolfError):
    """A move the rules do not allow, named by phase, seat, act and rule."""

    def __init__(self, phase: str, seat: int | None, act: str | None, rule: str) -> None:
        self.phase = phase
        self.seat = seat
        self.act = act
        self.rule = rule
        who = f"seat {seat}" if seat is not None else "no seat"
        super().__init__(f"{phase}: {who}, act {act!r}: {rule}")
