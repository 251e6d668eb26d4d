"""A room's answers that arrive together are taken together: one change, one commit, one publication.

Every change of a room holds its lock from the engine to the commit and the publication (``Hub._change``),
so when the twelve players of a table answer at once (the sheriff's candidacy, a vote) each answer used
to wait for the commit of the one before: under load the twelfth waited eleven commits, and the server
paid eleven transactions and eleven publications (issue 16: the answer → view tail in the bursts, when
many rooms reach the same phase together).

Now an answer first goes into its room's ``Inbox``, then waits for the lock. Whoever gets the lock takes
every answer waiting (``take``) and ``answer_all`` applies them in the worker thread one after another,
each exactly as if it came alone: the same refusals, in the same words, from the room as the answers
before it left it (a seat not asked, the game over by then), the same illegal-move errors (the engine
refuses an illegal answer before it changes anything), and the room driven on (the pacer's releases, the
bots) after each. The change is then committed once and published once; only then is each caller told
its own outcome. If anything fails on the way, the room is put back as it was before the batch, nothing
of it is stored, and every caller in it gets the change's error. An answer whose caller finds it already
taken by another's batch just returns its outcome, which is ready once that change is stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from werewolf.core.decisions import Move
from werewolf.core.errors import IllegalMove

if TYPE_CHECKING:
    from werewolf.web.rooms import ApiError, Room


@dataclass(eq=False)
class Waiting:
    """One answer waiting for its room: the seat, the move, and its caller's outcome."""

    seat: int
    move: Move
    outcome: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class Inbox:
    """The answers of one room waiting for its lock, in the order they came."""

    def __init__(self) -> None:
        self.waiting: list[Waiting] = []

    def put(self, seat: int, move: Move) -> Waiting:
        w = Waiting(seat, move)
        self.waiting.append(w)
        return w

    def take(self) -> list[Waiting]:
        taken, self.waiting = self.waiting, []
        return taken


def answer_all(room: Room, batch: list[Waiting], refusal: Callable[[Room, int], ApiError | None],
               drive: Callable[[], None]) -> Callable[[], list[ApiError | None]]:
    """The work of a change that applies ``batch`` in order (``refusal``: why a seat may not answer now, or
    None; ``drive``: the room moved on after each answer). It returns each answer's error, or None."""
    from werewolf.web.rooms import ApiError

    def work() -> list[ApiError | None]:
        out: list[ApiError | None] = []
        for i, w in enumerate(batch):
            if i:
                drive()  # as after a change of its own (the change drives the room after the last)
            refused = refusal(room, w.seat)
            if refused is None:
                try:
                    room.game.answer(w.seat, w.move)
                except IllegalMove as err:  # refused by the rules before anything changed
                    refused = ApiError(422, str(err))
            out.append(refused)
        return out

    return work


def settle(batch: list[Waiting], errors: list[ApiError | None] | None, failed: Any = None) -> None:
    """Tell each caller its outcome: its own error or none; or, when the whole change failed (``failed``,
    an ``ApiError``), that error for every one."""
    from werewolf.web.rooms import ApiError

    for i, w in enumerate(batch):
        if w.outcome.done():
            continue
        if failed is not None:
            w.outcome.set_exception(ApiError(failed.status, failed.message))
        elif errors is not None and errors[i] is not None:
            w.outcome.set_exception(errors[i])  # type: ignore[arg-type]
        else:
            w.outcome.set_result(None)
