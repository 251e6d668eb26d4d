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


class Checkpoint:
    """A game at a phase boundary, from which its rules can take up again (``Game.clone``).

    The rules are generators, which cannot be copied; but at the start of a night or a day everything
    the rules need lives in explicit values: the table, the random stream's state and (``state``)
    whatever the ruleset's moderator keeps across phases. A checkpoint is never changed: every game
    taken up from it works on its own copy (``Ruleset.resume``), so games and their clones share it.
    """

    __slots__ = ("table", "rng_state", "at", "state")

    def __init__(self, table: Table, rng_state: Any, at: int, state: Any = None) -> None:
        self.table = table  # its ``rng`` is not the checkpoint's: ``rng_state`` is
        self.rng_state = rng_state
        self.at = at  # where the rules take up again, in the ruleset's own numbering
        self.state = state

    def rng(self) -> random.Random:
        """A new random stream at the checkpoint's state."""
        rng = random.Random.__new__(random.Random)  # not seeded: the state is set at once
        rng.setstate(self.rng_state)
        return rng


# ``Checkpoint.at`` of a finished game: nothing is left to run, a copy of the table is the whole game.
OVER = -1


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
        # Keep a checkpoint at every phase boundary (``boundary``): on once a game is cloned.
        self.keep_checkpoints = False
        self.checkpoint: Checkpoint | None = None

    def copy(self, rng: random.Random) -> Table:
        """A copy of this table that shares nothing it could change, playing on with ``rng``.

        Each table class copies its own fields (``copy_into``): a compiled build (mypyc) copies no
        object field by field for us.
        """
        raise NotImplementedError

    def copy_into(self, other: Table) -> None:
        """Give ``other`` (new, with its own rng) this table's values of the fields every table has."""
        other.events = list(self.events)  # events are never changed once made: the list is enough
        other.phase = self.phase
        other.result = None if self.result is None else (list(self.result[0]), list(self.result[1]))
        other.stopped = self.stopped
        other.custom_deck = self.custom_deck
        other.keep_checkpoints = self.keep_checkpoints
        other.checkpoint = self.checkpoint

    def boundary(self, at: int, state: Any = None) -> None:
        """A phase boundary: the rules can take up again from here (at ``at``) given this table and
        ``state`` alone. Kept only when asked (``keep_checkpoints``): simulations never copy a game."""
        if self.keep_checkpoints:
            self.checkpoint = Checkpoint(self.copy(self.rng), self.rng.getstate(), at, state)

    def emit(self, type: str, to: Audience = PUBLIC, phase: str | None = None, /, **data: Any) -> None:
        self.events.append(Event(type, phase or self.phase, data, to))

    def coin(self) -> int:
        """The clock rule as a seeded coin: 1 = odd minute = ascending/clockwise."""
        return randbelow(self.rng, 2)

    def roles_by_seat(self) -> dict[int, str]:
        raise NotImplementedError
