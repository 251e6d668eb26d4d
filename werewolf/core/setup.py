"""What a game is a function of, besides its answers (``Setup``), and the shape of a ruleset's flow (``Flow``)."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

from werewolf.core.decisions import Decision

# A ruleset's flow: yields a request (the decisions open at once), receives their values.
Flow = Generator[list[Decision], list[Any], None]


@dataclass(frozen=True)
class Setup:
    """Everything but the answers that a game is a function of."""

    ruleset: str
    seats: tuple[str, ...] | None = None
    center: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    deck: str | tuple[str, ...] | None = None
    players: int | None = None
    stop_after_day: int | None = None
    # Live play: every speaking turn waits for its speaker (a `speak` answer: text,
    # or "done" at the table), and a wolf may self-destruct before any speech.
    live_speech: bool = False

    def with_seed(self, seed: int) -> Setup:
        """This setup with another seed: ``dataclasses.replace`` without its cost per simulated game."""
        return Setup(self.ruleset, self.seats, self.center, self.options, seed, self.deck, self.players,
                     self.stop_after_day, self.live_speech)

    def as_json(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "seats": list(self.seats) if self.seats else None,
                "center": list(self.center), "options": dict(self.options), "seed": self.seed,
                "deck": list(self.deck) if isinstance(self.deck, tuple) else self.deck,
                "players": self.players, "stop_after_day": self.stop_after_day,
                "live_speech": self.live_speech}
