"""The game driver: runs a ruleset's flow, asks decisions, takes answers.

A rules flow is a generator that yields a *request* (a list of decisions that
are open at the same time) and receives the list of their values. The driver
never blocks: it holds the open request until every decision is answered, by
whoever answers whenever they answer (a script, a bot, a phone minutes later),
and then resumes the flow; a decision ``heard_at_once`` (a statement) resumes it at
its answer, with the others' values ``OPEN``, and the flow asks those again.
Everything is a function of the setup and the recorded answers, so ``replay``
rebuilds any game exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from werewolf.core.decisions import OPEN, Decision
from werewolf.core.errors import IllegalMove
from werewolf.core.events import Event
from werewolf.core.registry import get_ruleset
from werewolf.core.setup import Flow, Setup
from werewolf.core.table import OVER, Checkpoint, GameOver, Table

Answer = tuple[int, str, Any]  # (seat, act, value)


class Game:
    """One game. Ask ``pending()``, answer with ``answer()``, read ``events``."""

    def __init__(self, setup: Setup, keep_checkpoints: bool = False,
                 resume: tuple[Checkpoint, list[list[Any]]] | None = None) -> None:
        """The game of ``setup``. ``keep_checkpoints``: keep one at every phase boundary from the start,
        so that even the first ``clone`` is cheap (search does; a game turns it on at its first clone).
        ``resume``: ``clone``'s, a checkpoint of the game and the lists of values sent before it."""
        self.setup = setup
        self.rules = get_ruleset(setup.ruleset)
        if resume is None:
            self.table: Table = self.rules.new_table(setup)
            self.table.keep_checkpoints = keep_checkpoints
            self._flow: Flow = self.rules.play(self.table)
        elif resume[0].at == OVER:
            self.table = resume[0].table.copy(resume[0].rng())
            self._flow = _ended()
        else:
            self.table, self._flow = self.rules.resume(resume[0])
            self.table.checkpoint = resume[0]
        if resume is not None:
            # A copy keeps none until it is copied itself: a search's play-outs pay nothing for them.
            self.table.keep_checkpoints = False
        self.events: list[Event] = self.table.events
        self._answers: list[Answer] = []
        # Requests answered at once (``answer_all``) and not yet written into ``answers``:
        # a simulation only counts its answers, so they are listed when first read.
        self._unlisted: list[tuple[tuple[Decision, ...], tuple[Any, ...]]] = []
        self.answered = 0  # how many answers so far (``len(answers)`` without listing them)
        self.request: list[Decision] = []
        # The values of the open request, ``OPEN`` where not answered yet; None while
        # nothing is answered (a request answered at once never needs the list).
        self._values: list[Any] | None = None
        self._left = 0
        self._next = 0  # where an answer in request order is expected
        self.over = False
        # Every list of values the flow was sent, in order: what ``clone`` feeds a new flow.
        self._sent: list[list[Any]] = [] if resume is None else list(resume[1])
        # The table's latest checkpoint and how many lists of values had been sent before it
        # (``clone``; kept only once the game is copied: ``Table.keep_checkpoints``).
        self._mark: tuple[Checkpoint, int] | None = None
        if resume is not None:
            self._mark = (resume[0], len(self._sent))
        self._resume(None)

    # -- reading ---------------------------------------------------------------
    @property
    def phase(self) -> str:
        return self.table.phase

    @property
    def result(self) -> tuple[list[str], list[int]] | None:
        return self.table.result

    @property
    def dealt(self) -> tuple[str, ...]:
        """The role dealt to each seat, in seat order (seat 1 first): ``Setup.seats`` when the setup
        names them, else the deck's deal (``Setup.seats`` stays None: it is the setup, not the deal).

        For the engine's side only (the harness, statistics, tests): it holds every seat's card, so
        no agent is ever given it; an agent learns its own role from its seat view.
        """
        if self.setup.seats is not None:
            return tuple(self.setup.seats)
        dealt = {int(e.data["seat"]): str(e.data["role"]) for e in self.events
                 if e.type == "role" and e.phase == "setup"}
        return tuple(dealt[s] for s in sorted(dealt))

    @property
    def answers(self) -> list[Answer]:
        """Every answer so far, in the order given: (seat, act, value)."""
        if self._unlisted:
            out = self._answers
            for request, values in self._unlisted:
                out += [(d.seat, d.act, v) for d, v in zip(request, values)]
            self._unlisted.clear()
        return self._answers

    def pending(self, seat: int | None = None) -> list[Decision]:
        """The open decisions (of one seat, if given)."""
        values = self._values
        return [d for i, d in enumerate(self.request)
                if (values is None or values[i] is OPEN) and (seat is None or d.seat == seat)]

    def _is_open(self, i: int) -> bool:
        return self._values is None or self._values[i] is OPEN

    # -- answering -------------------------------------------------------------
    def answer(self, seat: int, move: Any) -> None:
        """Apply a player's move; an illegal one raises IllegalMove and changes nothing.

        ``move`` should be a ``Move`` (a dict); anything else is refused here, not by a type check.
        """
        act = move.get("act") if isinstance(move, dict) else None
        if not isinstance(act, str):
            raise IllegalMove(self.phase, seat, None, "a move needs an 'act'")
        if self.over:
            raise IllegalMove(self.phase, seat, act, "the game is over")
        mine = [i for i, d in enumerate(self.request) if d.seat == seat and self._is_open(i)]
        for i in mine:
            d = self.request[i]
            if d.accepts(move):
                reason = d.check(move)
                if reason:
                    raise IllegalMove(self.phase, seat, act, reason)
                self._take(i, d.value(move))
                return
        if mine:
            asked = ", ".join(sorted({a for i in mine for a in self.request[i].acts}))
            raise IllegalMove(self.phase, seat, act, f"not asked for this now (asked: {asked})")
        raise IllegalMove(self.phase, seat, act, "this seat is not asked for anything now")

    def answer_value(self, decision: Decision, value: Any) -> None:
        """Apply an already-legal value (trusted agents, replays): no checks."""
        request, i = self.request, self._next
        if not (i < len(request) and request[i] is decision and self._is_open(i)):
            # Not the next one in request order (the usual way to answer): look it up.
            for i, d in enumerate(request):
                if d is decision and self._is_open(i):
                    break
            else:
                raise IllegalMove(self.phase, decision.seat, decision.act, "this decision is not open")
        self._next = i + 1
        self._take(i, value)

    def answer_all(self, values: list[Any]) -> None:
        """Answer every decision of the open request at once (trusted values, in request order).

        The fast path of simulations: one resume of the flow per request.
        """
        if self._left != len(self.request):
            raise IllegalMove(self.phase, None, None, "answer_all needs a request with no answers yet")
        self._unlisted.append((tuple(self.request), tuple(values)))
        self.answered += len(self.request)
        self._resume(list(values))

    def play_out(self, rng: random.Random) -> None:
        """Answer every decision from now to the end with a random legal value (``Decision.random_value``).

        Random agents on every seat, and rollouts: the simulations' fast path, one request at a time.
        """
        while not self.over:
            self.answer_all([d.random_value(rng) for d in self.request])

    def decline(self, decision: Decision) -> None:
        """Give the decision its default (no answer, or a timeout)."""
        self.answer_value(decision, decision.default_value())

    def _take(self, i: int, value: Any) -> None:
        d = self.request[i]
        values = self._values
        if values is None:
            values = self._values = [OPEN] * len(self.request)
        values[i] = value
        self._left -= 1
        self.answers.append((d.seat, d.act, value))
        self.answered += 1
        if self._left == 0 or d.heard_at_once():
            self._resume(values)

    def _resume(self, values: list[Any] | None) -> None:
        try:
            if values is None:
                req = next(self._flow)
            else:
                self._sent.append(values)
                req = self._flow.send(values)
            while not req:  # an empty request needs no answers
                req = self._flow.send([])
        except StopIteration:
            self.over = True
            self.request, self._values, self._left = [], None, 0
            return
        finally:
            if self.table.keep_checkpoints:
                self._note_checkpoint()
        self.request = req
        self._values = None
        self._left = len(req)
        self._next = 0

    # -- copies ----------------------------------------------------------------
    def clone(self) -> Game:
        """An independent copy of this game at this moment, open request and answers included.

        A flow is a generator, which cannot be copied. The copy takes up the rules at the latest
        checkpoint (the fall of the night or the break of the day: ``Table.boundary``) from a copy
        of the table as it was then, and sends its new flow the lists of values this game's flow was
        sent since. A finished game is a copy of its table. The first copy of a game in play has no
        checkpoint yet (unless the game was made with ``keep_checkpoints``): it runs the rules from
        the deal, keeping them, and from then on this game keeps them. A copy keeps none until it is
        copied in turn (then from the checkpoint it was taken up at): keeping them costs its play
        (scripts/bench.py prints how much, and a clone's cost beside a replay's).
        """
        mark = self._mark
        if self.over:
            if mark is None or mark[0].at != OVER:  # this game's end, kept for its next copies
                t = self.table
                mark = self._mark = (Checkpoint(t.copy(t.rng), t.rng.getstate(), OVER), len(self._sent))
            return self._copy(Game(self.setup, resume=(mark[0], self._sent)))
        self.table.keep_checkpoints = True  # copied once, likely again: keep them from now on
        if mark is None:  # no checkpoint yet: the copy plays from the deal, keeping them
            copy = self._copy(Game(self.setup, keep_checkpoints=True))
            copy.table.keep_checkpoints = False
            self._mark = copy._mark
            return copy
        checkpoint, sent = mark
        return self._copy(Game(self.setup, resume=(checkpoint, self._sent[:sent])))

    def _copy(self, copy: Game) -> Game:
        """Make ``copy``, a new game of this setup taken up after some of this game's lists of
        values, this game: send it the rest, and copy the answers and the open request."""
        flow, sent = copy._flow, copy._sent
        req = copy.request
        keep = copy.table.keep_checkpoints
        try:
            for i in range(len(sent), len(self._sent)):
                values = self._sent[i]
                sent.append(values)
                req = flow.send(values)
                while not req:
                    req = flow.send([])
                if keep:
                    copy._note_checkpoint()
        except StopIteration:
            req = []
            if keep:
                copy._note_checkpoint()
        copy._answers = list(self.answers)
        copy._unlisted = []
        copy.answered = self.answered
        copy.over = self.over
        copy.request = req
        open_values = self._values
        copy._values = None if open_values is None else list(open_values)
        copy._left = self._left
        copy._next = self._next
        return copy

    def _note_checkpoint(self) -> None:
        checkpoint = self.table.checkpoint
        if checkpoint is not None and (self._mark is None or self._mark[0] is not checkpoint):
            self._mark = (checkpoint, len(self._sent))

    # -- pickling --------------------------------------------------------------
    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """A game pickles as its setup and the lists of values its flow was sent (a flow is a generator,
        which cannot be pickled): unpickled, the rules run again from the deal on those values, as
        ``clone`` does from a checkpoint, and the copy continues exactly as this game would (for
        multiprocessing and checkpoints of training runs; the engine's determinism makes it exact)."""
        return (_unpickled, (self.setup, self._sent, self.answers, self._values, self._left, self._next,
                             self.answered, self.over))

    # -- replay ----------------------------------------------------------------
    @classmethod
    def replay(cls, setup: Setup, answers: Iterable[Sequence[Any]]) -> Game:
        """The game of ``setup`` given ``answers``: (seat, act, value) tuples, or lists as JSON has them."""
        game = cls(setup)
        for seat, act, value in answers:
            for d in game.pending(seat):
                if d.act == act:
                    game.answer_value(d, _from_json(value))
                    break
            else:
                raise IllegalMove(game.phase, seat, act, "replay does not match this game")
        return game


def _unpickled(setup: Setup, sent: list[list[Any]], answers: list[Answer], values: list[Any] | None, left: int,
               next_: int, answered: int, over: bool) -> Game:
    """The game ``Game.__reduce__`` pickled: its rules run again on the values sent, its open request as it was."""
    game = Game(setup)
    flow, req = game._flow, game.request
    try:
        for v in sent:
            game._sent.append(v)
            req = flow.send(v)
            while not req:
                req = flow.send([])
    except StopIteration:
        req = []
    game._answers = list(answers)
    game.answered = answered
    game.over = over
    game.request = req
    game._values = None if values is None else list(values)
    game._left = left
    game._next = next_
    return game


def _ended() -> Flow:
    """The flow of a finished game: nothing left to ask."""
    return
    yield


def _from_json(value: Any) -> Any:
    # Values went through JSON (lists); the flows unpack pairs either way.
    if isinstance(value, list):
        return tuple(_from_json(v) for v in value)
    return value


__all__ = ["Game", "Setup", "GameOver", "Answer", "OPEN"]
