"""A player's view: the one place that decides what a seat may see.

Every front end (terminal, phone, bot, RL policy) gets its player's
information from here and only from here.
"""

from __future__ import annotations

from typing import Any

from werewolf.core.events import Event
from werewolf.core.game import Game


def visible_events(events: list[Event], seat: int | None) -> list[Event]:
    """The events ``seat`` may see (``None``: a spectator, public events only)."""
    if seat is None:
        return [e for e in events if e.to is None]
    return [e for e in events if e.to is None or seat in e.to]


def view(game: Game, seat: int | None) -> dict[str, Any]:
    """The JSON view of one seat: its role, what it was told, what it owes now."""
    events = visible_events(game.events, seat)
    role = None
    for e in events:
        if e.type in ("role", "took") and e.data.get("seat") == seat:
            role = e.data.get("role")
    pending = [d.describe() for d in game.pending(seat)] if seat is not None else []
    result = game.result
    return {
        "seat": seat,
        "role": role,
        "phase": game.phase,
        "events": [e.as_json(with_audience=False) for e in events],
        "pending": pending or None,
        "game_over": {"teams": result[0], "seats": result[1]} if result else None,
    }
