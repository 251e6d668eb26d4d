"""The digital moderator (法官) of the day-and-night rulesets.

It runs night and day in turn until a win check ends the game. The rules live
in the mixins: ``night`` (the steps of each role), ``resolve`` (who dies at
night), ``day`` (election, speeches, votes), ``deaths`` (chains and
follow-ups), ``wins``.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

from werewolf.core.decisions import Decision
from werewolf.core.table import GameOver
from werewolf.roles import ROLES
from werewolf.rulesets.daynight.day import DayEnds, DaySteps
from werewolf.rulesets.daynight.deaths import Deaths
from werewolf.rulesets.daynight.night import Night, NightSteps, Step
from werewolf.rulesets.daynight.resolve import ClassicResolution
from werewolf.rulesets.daynight.state import DayNightTable, Player
from werewolf.rulesets.daynight.wins import Wins

Gen = Generator[list[Decision], list[Any], Any]


class Moderator(Deaths, NightSteps, ClassicResolution, DaySteps, Wins):
    def __init__(self, t: DayNightTable, night_order: Sequence[Step], stop_after_day: int | None) -> None:
        self.t = t
        self.night_order = night_order
        self.stop_after_day = stop_after_day
        self.n = Night(0)

    def play(self) -> Gen:
        """The game: the deal is told, then nights and days follow one another (``rounds``)."""
        t = self.t
        t.say("game_start", ruleset=t.ruleset, players=t.n, custom_deck=t.custom_deck)
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

    def after_first_night(self) -> None:
        """What Night-1 setup fixes for the rest of the game."""
        t = self.t
        # 屠邊 categories as dealt (after the thief's choice): an empty one never counts.
        t.start_categories = frozenset(self.category(p) for p in t.players)
        t.last_words_left = sum(1 for p in t.players if p.wolf)

    def lovers_formed(self) -> None:
        """Hook: a ruleset reacts to the lovers being linked (wechat factions)."""

    def is_wolf_card(self, role: str) -> bool:
        return ROLES[role].faction == "wolf"

    def has_last_words(self, p: Player, like: Player | None = None) -> bool:
        """RULES.md §3.2.7, §3.3 (6, 7): by the time of death, not its cause."""
        t = self.t
        rule = t.opts.last_words
        if rule == "wolf_quota":
            if t.last_words_left <= 0:
                return False
            t.last_words_left -= 1
            return True
        phase = (like or p).death_phase
        if phase.startswith("day") or phase == "night1":
            return True
        if rule == "ff_standard" and phase == "night2":
            return t.dawn_count == 1
        return False
