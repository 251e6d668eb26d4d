"""Events: what happened, and who may know it.

An event is a cheap record (a class with slots: events are made on the hot path
of simulations). Its audience is fixed when it is emitted: ``PUBLIC`` (every player
and spectator), ``MODERATOR`` (nobody at the table: the log only), or a frozenset
of seats (one player, the wolf pack as it is at that moment, the lovers, ...).
"""

from __future__ import annotations

from typing import Any, Final

Audience = frozenset[int] | None

PUBLIC: Final[Audience] = None
MODERATOR: Final[Audience] = frozenset()


class Event:
    """One event: a record of four fields, made once and never changed."""

    # A class with slots, not a NamedTuple: as cheap to make in CPython, and the
    # compiled engine (mypyc) makes it natively where a tuple subclass costs a generic call.
    __slots__ = ("type", "phase", "data", "to")

    def __init__(self, type: str, phase: str, data: dict[str, Any], to: Audience = PUBLIC) -> None:
        self.type = type
        self.phase = phase
        self.data = data
        self.to = to

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (self.type == other.type and self.phase == other.phase and self.data == other.data
                and self.to == other.to)

    def __repr__(self) -> str:
        return f"Event(type={self.type!r}, phase={self.phase!r}, data={self.data!r}, to={self.to!r})"

    def visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` may see this event; ``None`` is a spectator."""
        if self.to is None:
            return True
        return seat is not None and seat in self.to

    def as_json(self, with_audience: bool = True) -> dict[str, Any]:
        """The log line: ``type``, ``phase`` and the fields (SCRIPTED_GAMES.md)."""
        out: dict[str, Any] = {"type": self.type, "phase": self.phase}
        out.update(self.data)
        if with_audience and self.to is not None:
            out["to"] = sorted(self.to)
        return out


def audience(*seats: int) -> frozenset[int]:
    return frozenset(seats)
