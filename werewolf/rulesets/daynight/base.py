"""The moderator's base: what every part of the day-and-night moderator shares, and the few methods one
part calls on a part built above it.

The moderator is one chain of classes, each part built on the one below and importing only it:
``ModeratorBase`` → ``Wins`` → ``Deaths`` → ``ClassicResolution`` → ``NightSteps`` → ``DaySteps`` →
``Moderator``. A part calls what is below it directly; the few calls that go up the chain are declared
here (``ABOVE``) and defined where they belong. No part imports the moderator it is part of.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from werewolf.core.decisions import Decision
from werewolf.roles import ROLES
from werewolf.rulesets.daynight.state import DayNightTable, Player, Votes

Gen = Generator[list[Decision], list[Any], Any]
# A step takes the moderator of its ruleset (a Moderator subclass) and the acting player.
# A step that may ask someone is a generator; one that never asks anybody is a plain function (None).
StepFn = Callable[[Any, "Player | None"], "Gen | None"]


@dataclass(frozen=True)
class Step:
    """One line of a night-order table."""

    code: str  # the rule book's step letter
    role: str  # whose step it is; "" for the moderator's own steps
    run: StepFn | None  # None: the role is only located (woken, no action)
    first_night_only: bool = False


class Night:
    """What was chosen tonight: nothing until a step sets it (most nights set few of these)."""

    guard: int | None = None
    swap: tuple[int, int] | None = None
    dream: int | None = None
    wolf: int | None = None
    charm: int | None = None
    save: int | None = None  # the label the antidote was used on
    poison: int | None = None
    check: int | None = None
    silence: int | None = None
    shield: int | None = None
    infect = False
    curse: int | None = None
    same_guard_save_death: int | None = None  # the seat that died to 同守同救 (its death's precise rule)

    def __init__(self, k: int) -> None:
        self.k = k
        self.extra_kills: list[tuple[str, int]] = []

    def copy(self) -> Night:
        """The day still reads the night's choices (a checkpoint at dawn keeps a copy)."""
        n = Night(self.k)
        n.extra_kills = list(self.extra_kills)
        n.guard, n.swap, n.dream, n.wolf, n.charm = self.guard, self.swap, self.dream, self.wolf, self.charm
        n.save, n.poison, n.check, n.silence, n.shield = self.save, self.poison, self.check, self.silence, self.shield
        n.infect, n.curse, n.same_guard_save_death = self.infect, self.curse, self.same_guard_save_death
        return n

    def eff(self, label: int | None) -> int | None:
        """σ(label): whom a choice of ``label`` affects tonight (the magician's swap)."""
        if label is None or self.swap is None:
            return label
        a, b = self.swap
        return b if label == a else a if label == b else label


class ModeratorBase:
    """The moderator's state, and the methods its lower parts call on its upper ones."""

    def __init__(self, t: DayNightTable, night_order: Sequence[Step], stop_after_day: int | None) -> None:
        self.t = t
        self.night_order = night_order
        self.stop_after_day = stop_after_day
        self.n = Night(0)

    def is_wolf_card(self, role: str) -> bool:
        return ROLES[role].faction == "wolf"

    # -- defined above (``DaySteps``, ``Deaths``): declared here for the parts below them -------------------
    def flush_night_deaths(self) -> None:
        """``Deaths``: log the night's deaths."""
        raise NotImplementedError

    def vote_weight(self, seat: int) -> Votes:
        """``DaySteps``: what a seat's ballot counts."""
        raise NotImplementedError

    def silent_reason(self, seat: int) -> str | None:
        """``DaySteps``: why a seat may not speak now, or None."""
        raise NotImplementedError

    def speak(self, seat: int, part: str) -> Gen:
        """``DaySteps``: one speaking turn."""
        raise NotImplementedError

    def transform_wild_child(self) -> None:
        """``DaySteps``: the wild child turns wolf."""
        raise NotImplementedError


# The methods the lower parts call on an upper one (``tests/test_core.py`` checks each is defined above).
ABOVE = ("flush_night_deaths", "vote_weight", "silent_reason", "speak", "transform_wild_child")
