"""Errors the engine raises for bad input. None of them changes any state."""

from __future__ import annotations


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
