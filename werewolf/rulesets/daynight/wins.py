"""Win conditions of classic and facetoface (RULES.md §4.1, §4.2, §0.6).

Teams in the log: ``village``, ``wolves``, ``lovers``, ``bomber``. A team's
winners include its dead members.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from werewolf.core.table import GameOver
from werewolf.rulesets.daynight.base import ModeratorBase
from werewolf.rulesets.daynight.state import Player, Votes

TEAM_OF_CONDITION = {"bomber": "bomber", "lovers": "lovers", "wolf": "wolves", "good": "village"}
# The rule that ends the game when a condition holds (the ``rule`` of ``game_over``).
RULE_OF_CONDITION = {"bomber": "bomber_takes_everyone", "lovers": "lovers_wins", "wolf": "wolf_wins",
                     "good": "good_wins"}


class Wins(ModeratorBase):
    """Mixin of the Moderator: checking for a winner, ending the game."""

    def check_win(self, rule: str | None = None) -> None:
        met = self.conditions()
        if met:
            self.decide(met, rule)

    def decide(self, met: set[str], rule: str | None = None) -> None:
        """One winner among the conditions that hold at once, by ``tie_priority`` (RULES.md §0.6, A-57)."""
        for name in self.t.opts.tie_priority:
            if name in met:
                # The check's own rule (狼刀在先: the pack's kill won before the poison) explains a wolves'
                # win only: another side winning at that check wins by its own condition.
                self.end([TEAM_OF_CONDITION[name]], rule=rule if rule and name == "wolf" else RULE_OF_CONDITION[name])

    def conditions(self) -> set[str]:
        """Which teams' win conditions hold now (classic / facetoface)."""
        t = self.t
        mode = t.opts.win_mode
        if mode == "tu_bian" and t.cupid is None:
            return self.two_team_tu_bian()
        living = t.living()
        lt = self.lovers_team()
        wolves = [p for p in living if p.wolf]
        wolfside = wolves + [p for p in living if p.seat == t.cupid and self.cupid_team() == "wolves"]
        met: set[str] = set()
        if not lt:
            if self.wolves_prevail(living, wolfside):
                met.add("wolf")
            if not wolfside:
                met.add("good")
            return met
        # Three teams: a wolf and a good player are lovers (人狼情侶).
        single_wolves = [p for p in wolves if p.seat not in lt]
        single_good = [p for p in living if not p.wolf and p.seat not in lt]
        lovers_dead = all(not t.p(s).alive for s in t.lovers or ())
        lt_alive = [p for p in living if p.seat in lt]
        if single_wolves and lovers_dead and self.wolves_prevail(living, single_wolves):
            met.add("wolf")
        if single_good and not wolves and not lt_alive:
            met.add("good")
        if living and all(p.seat in lt for p in living):
            met.add("lovers")
        elif (lovers_dead and not wolves and len(living) == 2 and t.cupid is not None
              and t.p(t.cupid).alive):
            met.add("lovers")  # 「場上最後僅剩下1好人及丘比特,則丘比特勝出」
        return met

    def two_team_tu_bian(self) -> set[str]:
        """The common case in one pass: 屠邊 against all wolves, no lovers."""
        t = self.t
        living = t.living()
        wolves = "wolf" in {p.faction for p in living}
        if "bomber" in t.in_deck:
            cats = {self.category(p) for p in living}
        else:
            cats = {p.category for p in living}
        met: set[str] = set()
        start = t.start_categories
        if ("god" in start and "god" not in cats) or ("villager" in start and "villager" not in cats):
            met.add("wolf")
        if not wolves:
            met.add("good")
        return met

    def check_vote_lock(self) -> None:
        """綁票 (option vote_lock_win): a known bloc that outvotes everyone else wins (RULES.md §4.1)."""
        t = self.t
        if not t.opts.vote_lock_win:
            return
        living = t.living()

        def weight(p: Player) -> Votes:
            return 0 if p.idiot_revealed else self.vote_weight(p.seat)

        blocs: list[tuple[str, list[Player]]] = [("wolf", [p for p in t.pack()])]
        lt = self.lovers_team()
        if lt and t.lovers and all(t.p(s).alive for s in t.lovers):
            if not [p for p in living if p.wolf and p.seat not in lt]:
                blocs.append(("lovers", [t.p(s) for s in t.lovers]))
        for team, bloc in blocs:
            if not bloc:
                continue
            seats = {p.seat for p in bloc}
            ours = sum(weight(p) for p in bloc)
            theirs = sum(weight(p) for p in living if p.seat not in seats)
            if ours > theirs and not self.vote_changers(seats):
                self.end([TEAM_OF_CONDITION[team]], rule="vote_lock")

    def vote_changers(self, bloc: set[int]) -> bool:
        """「且場上不存在獵人和女巫的毒藥等改變票差的技能」."""
        t = self.t
        for p in t.living():
            if p.seat in bloc or p.disabled:
                continue
            if p.role == "hunter" or (p.role == "witch" and t.poison) or p.role in ("dreamcatcher", "bomber"):
                return True
            if p.role == "knight" and not t.knight_used:
                return True
            if p.role in ("wolf_king", "white_wolf_king"):
                return True
        return False

    def wolves_prevail(self, living: Sequence[Player], wolves: Sequence[Player]) -> bool:
        """The wolves' side of ``win_mode``, for every ruleset: ``wolves`` are the living players who win with them.

        屠邊 (tu_bian): every god or every villager is out; 屠城 (tu_cheng): nobody else is alive;
        half: they are at least half of the living (002: 「狼人陣營存活的人數占總存活人數的一半或一半以上」).
        """
        mode = self.t.opts.win_mode
        if mode == "half":
            return 2 * len(wolves) >= len(living)
        if mode == "tu_cheng":
            return len(wolves) == len(living)
        return self.side_wiped(living)

    def side_wiped(self, living: Sequence[Player]) -> bool:
        """屠邊: every god or every villager is out (a category empty at the deal never counts)."""
        t = self.t
        cats = {self.category(p) for p in living}
        return any(c in t.start_categories and c not in cats for c in ("god", "villager"))

    def category(self, p: Player) -> str:
        if p.role == "bomber":
            return "god" if self.t.opts.bomber_counts_as_god else "none"
        return p.category

    def lovers_team(self) -> frozenset[int]:
        t = self.t
        if not t.lovers_mixed or t.lovers is None:
            return frozenset()
        return frozenset(t.lovers) | ({t.cupid} if t.cupid is not None else set())

    def cupid_team(self) -> str:
        t = self.t
        if t.lovers_mixed:
            return "lovers"
        if t.lovers_double_wolf:
            return "wolves" if (t.opts.cupid_double_wolf_team or "wolf") == "wolf" else "village"
        return "village"

    def team_of(self, p: Player) -> str:
        t = self.t
        if p.role == "bomber":
            return "bomber"
        if p.seat in self.lovers_team():
            return "lovers"
        if p.seat == t.cupid:
            return self.cupid_team()
        if p.wolf:
            return "wolves"
        return "village"

    def wins_with(self, p: Player, teams: list[str]) -> bool:
        """Whether ``p`` is among the winners when ``teams`` win (dead members included)."""
        return self.team_of(p) in teams

    def end(self, teams: list[str], rule: str = "") -> NoReturn:
        t = self.t
        self.flush_night_deaths()
        seats = sorted(p.seat for p in t.players if self.wins_with(p, teams))
        t.result = (teams, seats)
        t.say("game_over", teams=teams, seats=seats, rule=rule)
        t.say("roles", roles={str(p.seat): p.role for p in t.players})
        raise GameOver
