"""What every ruleset's game state has: the log, the phase, the seeded rng."""

from __future__ import annotations

import random
from typing import Any

from werewolf.core.draws import randbelow
from werewolf.core.events import PUBLIC, Audience, Event


class GameOver(Exception):
    """Raised inside a rules flow when a win check ends the game at once.

    Ending the game discards everything still pending (RULES.md §0.6), which is
    exactly what unwinding the flow's generators does.
    """


class Table:
    """Base of a ruleset's state. Subclasses add seats, roles and rule state."""

    def __init__(self, seed: int, rng: random.Random | None = None) -> None:
        self.events: list[Event] = []
        self.phase = "setup"
        self.seed = seed
        # One stream for the whole game; a ruleset that dealt with it passes it on.
        self.rng = rng if rng is not None else random.Random(seed)
        self.result: tuple[list[str], list[int]] | None = None
        self.stopped = False
        self.custom_deck = False

    def emit(self, type: str, to: Audience = PUBLIC, phase: str | None = None, /, **data: Any) -> None:
        self.events.append(Event(type, phase or self.phase, data, to))

    def coin(self) -> int:
        """The clock rule as a seeded coin: 1 = odd minute = ascending/clockwise."""
        return randbelow(self.rng, 2)

    def roles_by_seat(self) -> dict[int, str]:
        raise NotImplementedError
