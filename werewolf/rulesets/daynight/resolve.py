"""Who dies tonight: the classic and facetoface resolution (RULES.md §3.1.1, §3.3)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Final

from werewolf.core.decisions import Decision
from werewolf.rulesets.daynight.deaths import Deaths
from werewolf.rulesets.daynight.state import Player

Gen = Generator[list[Decision], list[Any], Any]

_THUMB_UP: Final = frozenset({"hidden_wolf", "cupid"})  # the seer's thumb is up for them whatever their side


class ClassicResolution(Deaths):
    """Mixin of the Moderator for classic and facetoface nights."""

    def resolve_night(self) -> Gen | None:
        """The night's deaths. Nobody is asked anything: a night death's follow-ups wait for the
        dawn announcement (a ruleset whose resolution asks, wechat's, returns a generator)."""
        t, n = self.t, self.n
        opts = t.opts
        guard, dream, wolf = n.eff(n.guard), n.eff(n.dream), n.eff(n.wolf)
        poison, check = n.eff(n.poison), n.eff(n.check)
        t.dreamer = dream
        batch: list[Player] = []
        # Stage 1: the pack's kill. 同守同救: guard and antidote together kill.
        if wolf is not None:
            victim = t.p(wolf)
            saved = n.save is not None
            guarded = wolf == guard
            if wolf == dream:
                t.log("ruling", rule="dream_immune", seat=wolf)
            elif self.guard_and_save_kill(wolf, guarded, saved):
                self.land_kill(victim, batch)
            elif not guarded and not saved:
                self.land_kill(victim, batch)
            else:
                self.kill_stopped(wolf, guarded, saved)
        self.close_chains(batch)
        if opts.wolf_kill_first:
            self.check_win(rule="wolf_kill_first")
        # Stage 2: the poison.
        if poison is not None:
            target = t.p(poison)
            if poison == dream:
                t.log("ruling", rule="potion_wasted_on_dreamer", seat=poison)
            elif target.role == "spirit_knight":
                w = self.witch_player()
                if w is not None and w.seat != dream:
                    self.die(w, "reflect", batch)
            elif target.role == "old_rogue":
                target.wounded = True
                t.log("ruling", rule="old_rogue_wounded", seat=poison)
            else:
                self.die(target, "poison", batch)
        # Stage 3: the seer checked the spirit knight (同驗同毒 spares the seer).
        if check is not None and t.p(check).role == "spirit_knight" and check != poison:
            s = self.seer_player()
            if s is not None and s.seat != dream:
                self.die(s, "reflect", batch)
        # Stage 4: the same dreamer two nights running dies.
        if dream is not None and dream == t.dream_last:
            self.die(t.p(dream), "dream", batch)
        t.dream_last = dream
        self.close_chains(batch)
        self.check_win()
        return None

    def guard_and_save_kill(self, seat: int, guarded: bool, saved: bool) -> bool:
        """同守同救: whether a kill that the guard and the antidote both stopped lands after all
        (the option ``same_guard_save_dies``, in every ruleset)."""
        if guarded and saved and self.t.opts.same_guard_save_dies:
            self.t.log("ruling", rule="same_guard_save_dies", seat=seat)
            self.n.same_guard_save_death = seat
            return True
        return False

    def kill_stopped(self, seat: int, guarded: bool, saved: bool) -> None:
        """Log why the pack's victim lives (moderator only: the table hears a peaceful night)."""
        if guarded and saved:
            rule = "same_guard_save_lives"
        else:
            rule = "guard_protects" if guarded else "antidote_saves"
        self.t.log("ruling", rule=rule, seat=seat)

    def land_kill(self, victim: Player, batch: list[Player]) -> None:
        if victim.role == "old_rogue":
            victim.wounded = True
            self.t.log("ruling", rule="old_rogue_wounded", seat=victim.seat)
        elif victim.role == "elder" and victim.lives == 2 and not victim.disabled:
            victim.lives = 1
            self.t.log("ruling", rule="elder_first_life", seat=victim.seat)
        else:
            self.die(victim, "kill", batch)

    def witch_shown(self, witch: Player) -> tuple[bool, int | None]:
        """Whether the witch is told tonight's victim, and the label she is shown."""
        t, n = self.t, self.n
        if not t.antidote and not t.opts.witch_informed_after_antidote:
            return False, None
        if n.wolf is not None:
            target = t.p(n.eff(n.wolf) or n.wolf)
            if target.role == "elder" and target.lives == 2:
                return False, None  # the elder's first life: the witch is shown nothing
        return True, n.wolf

    def witch_may_save(self, witch: Player, victim: int) -> bool:
        return victim != witch.seat or self.self_save_refused() is None

    def self_save_refused(self) -> str | None:
        """Why the witch may not use the antidote on herself tonight (option ``witch_self_save``), or None."""
        rule = self.t.opts.witch_self_save
        if rule == "always" or (rule == "first_night_only" and self.n.k == 1):
            return None
        if rule == "first_night_only":
            return "the witch may save herself on the first night only (witch_self_save=first_night_only)"
        return f"the witch may not save herself (witch_self_save={rule})"

    def witch_player(self) -> Player | None:
        return self.t.holder("witch")

    def seer_player(self) -> Player | None:
        return self.t.holder("seer")

    def seer_result(self, target: Player) -> str:
        if self.t.opts.seer_model == "village_or_not":
            return "village" if target.faction == "good" else "not_village"
        # The thumb (seer_model good_wolf or wolf_or_not, one rule): down for a wolf card or a wolf-side player,
        # wherever a ruleset's factions put him (wechat's white wolf, a wolf among the black lovers). Up for the
        # hidden wolf (his card), cupid on any side (「永遠只出示好人手勢」, 001; 000 「顯示為好人」) and the rest.
        if target.role in _THUMB_UP:
            return "good"
        return "wolf" if target.wolf or self.is_wolf_card(target.role) else "good"

    def note_bent_check(self, label: int, target: Player) -> None:
        """The moderator's note of the rule that bent a check (the seer, told only the thumb, never hears it):
        the magician's swap showed another player, or the thumb is up for a wolf-side hidden wolf or cupid."""
        t = self.t
        if target.seat != label:
            t.log("ruling", rule="seer_sees_swapped", seat=label, target=target.seat)
        if (t.opts.seer_model != "village_or_not" and target.role in _THUMB_UP
                and (target.wolf or self.is_wolf_card(target.role))):
            t.log("ruling", rule="seer_thumb_up_always", seat=target.seat, role=target.role)

    def elder_penalty(self, elder: Player, batch: list[Player]) -> None:
        """The village killed the elder: every good power is lost (RULES.md §2.1 elder). The moderator's only: the
        judge announces nothing (the elder's card stays hidden) and tells each god at his next call
        (``tell_powerless``)."""
        t = self.t
        t.log("elder_penalty", seat=elder.seat, rule="elder_penalty")
        for q in t.players:
            if q.faction == "good" and q.role in ("seer", "witch", "hunter", "guard", "idiot"):
                q.disabled = True
                if q.role == "idiot" and q.idiot_revealed and q.alive:
                    self.die(q, "elder_penalty", batch, elder.death_phase)
