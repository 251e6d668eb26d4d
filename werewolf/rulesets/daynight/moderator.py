"""The digital moderator (法官) of the day-and-night rulesets.

It runs night and day in turn until a win check ends the game. The rules live
in the parts it is built on, one chain, each importing only the one below it
(``base``): ``wins``, ``deaths`` (chains and follow-ups), ``resolve`` (who dies
at night), ``night`` (the steps of each role), ``day`` (election, speeches,
votes).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from werewolf.core.decisions import Decision
from werewolf.core.table import GameOver
from werewolf.rulesets.daynight.base import Night
from werewolf.rulesets.daynight.day import DayEnds, DaySteps
from werewolf.rulesets.options import played_with

Gen = Generator[list[Decision], list[Any], Any]


class Moderator(DaySteps):
    def play(self) -> Gen:
        """The game: the deal is told, then nights and days follow one another (``rounds``)."""
        t = self.t
        # The options the table plays with (those that differ from the ruleset's): a log says which rules held.
        t.say("game_start", ruleset=t.ruleset, players=t.n, custom_deck=t.custom_deck,
              options=dict(played_with(t.ruleset, t.opts)))
        for p in t.players:
            t.tell(p.seat, "role", seat=p.seat, role=p.role)
        self.announce_setup()
        self.boundary(1, dawn=False)
        return self.rounds(1, dawn=False)

    def rounds(self, k: int, dawn: bool) -> Gen:
        """Night ``k`` and the day after it, and so on, until a win check ends the game; ``dawn``:
        take up at the start of day ``k`` (a checkpoint's, ``resume``), its night already played."""
        t = self.t
        try:
            while True:
                if not dawn:
                    yield from self.run_night(k)
                    self.start_day(k)
                    self.boundary(k, dawn=True)
                dawn = False
                try:
                    yield from self.day_body(k)
                except DayEnds:
                    pass  # a self-destruct or a duel cut the day short: night falls
                if self.stop_after_day is not None and k >= self.stop_after_day:
                    self.flush_night_deaths()
                    t.stopped = True
                    t.say("stopped")
                    return
                if k >= t.opts.max_days:
                    self.end([], rule="max_days")
                k += 1
                self.boundary(k, dawn=False)
        except GameOver:
            return

    # -- checkpoints (Game.clone) ---------------------------------------------------------------
    # A checkpoint's ``at``: 2k - 1 at the fall of night k, 2k at the dawn of day k (after its "day" line).
    def boundary(self, k: int, dawn: bool) -> None:
        """Night ``k`` falls, or day ``k`` dawns: all the rules need from here on is in the table and
        (by day) the night's choices, ``self.n``, which the day still reads."""
        t = self.t
        if t.keep_checkpoints:
            t.boundary(2 * k if dawn else 2 * k - 1, self.n.copy() if dawn else None)

    def resume(self, at: int, night: Night | None) -> Gen:
        """The rules taken up again at a checkpoint (``boundary``) of this moderator's table."""
        if night is not None:
            self.n = night.copy()
        return self.rounds((at + 1) // 2, dawn=at % 2 == 0)

    def announce_setup(self) -> None:
        """Hook: public facts of the deal a ruleset announces before night 1 (wechat's clans)."""
