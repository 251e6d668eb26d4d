"""Deaths, the chains they force, and what follows a death (RULES.md §0.5, §3.2.1).

A batch is one primary death with every death it forces (lover, charm, dream
link, the hidden wolf falling with the pack, bomb victims). Forced deaths share
the trigger's time and happen before the batch's win check; optional follow-ups
(badge, last words, shots) come only after it, depth-first.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Final

from werewolf.core.decisions import Decision, Target
from werewolf.core.events import MODERATOR, PUBLIC
from werewolf.rulesets.daynight.state import Player
from werewolf.rulesets.daynight.wins import Wins

Gen = Generator[list[Decision], list[Any], Any]

SHOOTERS: Final = ("hunter", "wolf_king")
# Why a player may not speak (the ``reason`` of ``silent_turn`` / ``no_last_words``, public already).
SILENT_RULE: Final = {"silenced": "silencer_silences", "enchanted": "piper_enchanted_silent"}

# The rule behind each cause of death: the ``rule`` of a ``death`` event (werewolf/i18n/rules.json).
# A cause is as public as its death event, and so is the rule named after it.
DEATH_RULE: Final = {
    "kill": "wolves_kill", "poison": "witch_poison", "reflect": "spirit_knight_reflects",
    "dream": "dreamcatcher_dream_death", "shot": "shooter_takes_one", "exile": "exiled_by_vote",
    "bomb": "bomber_takes_voters", "lover": "lovers_die_together", "charm": "wolf_beauty_takes_charmed",
    "auto": "hidden_wolf_falls_with_pack", "explode": "wolf_self_destruct", "claw": "white_wolf_king_claw",
    "duel": "knight_duel", "rogue_delayed": "old_rogue_dies_after_day", "elder_penalty": "elder_penalty",
    "rusty": "rusty_knight_infects", "big_bad_wolf": "big_bad_wolf_extra_kill",
    "white_wolf": "white_wolf_kills_wolf", "widow": "widow_kills",
}
# Why a dying shooter may not shoot (moderator only: the table sees only that nobody is shot).
SHOT_REFUSED_RULE: Final = {"cause": "shot_refused_by_cause", "disabled": "shot_refused_powers_lost"}
SHOOT_RULE: Final = {"hunter": "hunter_shoots", "wolf_king": "wolf_king_shoots"}
# Who speaks last words: the table's rule (option ``last_words``), the ``rule`` of a ``last_words`` event.
LAST_WORDS_RULE: Final = {"first_night_and_days": "last_words_first_night_and_days",
                          "ff_standard": "last_words_ff_standard", "wolf_quota": "last_words_wolf_quota"}


class Deaths(Wins):
    """Mixin of the Moderator: killing players and the follow-ups of a death."""

    def die(self, p: Player, cause: str, batch: list[Player], phase: str | None = None, told: bool = True) -> None:
        """``p`` dies of ``cause``; ``phase``: the phase his death counts in (else now). ``told``: by day, the
        table hears the death and its cause; else (a death the dawn list announces, without causes) the
        moderator's log alone has them."""
        if not p.alive:
            return
        t = self.t
        t.mark_dead(p)
        p.cause = cause
        p.death_phase = phase or t.phase
        p.pending = t.phase.startswith("night")
        if p.pending:
            # Logged at the dawn announcement: a pending death can still be
            # replaced (a poisoned wolf who self-destructs in the election).
            t.night_dead.append(p.seat)
        else:
            t.emit("death", PUBLIC if told else MODERATOR, p.death_phase, seat=p.seat, cause=cause,
                   rule=DEATH_RULE[cause])
        batch.append(p)
        self.note_last_dead(p, phase is not None)
        if p.seat == t.model:
            t.transform_due = "dawn" if p.pending else "night"

    def note_last_dead(self, p: Player, with_trigger: bool) -> None:
        """Keep the most recent death of the game (RULES.md A-32; 001 發言規則(3)), whatever its cause.

        A night's deaths are one moment (announced together, 「與死亡順序無關」); a day's death is
        a moment of its own. A death given its trigger's time (a lover, a bomb victim, a shot:
        「獵人槍殺目標視為與獵人同一時間死亡」) shares the trigger's moment. A moment's deaths stay
        together: the speeches start beside the highest seat of them.
        """
        t = self.t
        phase = p.death_phase
        if phase.startswith("night"):
            when = (2 * int(phase[5:]) - 1, 0)
        else:
            if not with_trigger:
                t.day_moments += 1
            when = (2 * int(phase[3:]), t.day_moments)
        if when > t.last_moment:
            t.last_moment = when
            t.last_dead = [p.seat]
        elif when == t.last_moment:
            t.last_dead.append(p.seat)

    def flush_night_deaths(self) -> None:
        """Log the night's deaths (moderator only: the table hears only the seats), each with its
        precise rule (a kill that the guard and the antidote both stopped: 同守同救)."""
        t = self.t
        for s in t.night_dead:
            p = t.p(s)
            rule = "same_guard_save_dies" if s == self.n.same_guard_save_death and p.cause == "kill" \
                else DEATH_RULE[p.cause]
            t.emit("death", MODERATOR, p.death_phase, seat=s, cause=p.cause, rule=rule)
        t.night_dead = []

    def close_chains(self, batch: list[Player]) -> None:
        """Apply the forced deaths of RULES.md §0.5 until nothing changes."""
        t = self.t
        i = 0
        while True:
            while i < len(batch):
                p = batch[i]
                i += 1
                other = t.lover_of(p.seat)
                if other is not None and t.p(other).alive:
                    self.die(t.p(other), "lover", batch, p.death_phase)
                if (p.role == "wolf_beauty" and p.cause in ("poison", "shot", "exile")
                        and t.charmed is not None and t.p(t.charmed).alive
                        and t.p(t.charmed).role != "old_rogue"):
                    self.die(t.p(t.charmed), "charm", batch, p.death_phase)
                if (p.role == "dreamcatcher" and p.death_phase.startswith("night")
                        and t.phase == p.death_phase and t.dreamer is not None and t.p(t.dreamer).alive):
                    self.die(t.p(t.dreamer), "dream", batch, p.death_phase)
                self.chain_hook(p, batch)
            # The hidden wolf falls when no pack wolf is left (cause "auto"); most decks have none.
            hidden = [h for h in t.by_role["hidden_wolf"] if h.alive] if "hidden_wolf" in t.by_role else None
            if hidden and not t.pack():
                for h in hidden:
                    self.die(h, "auto", batch, batch[-1].death_phase if batch else None)
            if i >= len(batch):
                return

    def chain_hook(self, p: Player, batch: list[Player]) -> None:
        """Ruleset-specific forced deaths (overridden where needed)."""

    # -- follow-ups --------------------------------------------------------------
    def batch_done(self, batch: list[Player], like: Player | None = None) -> Gen:
        """The win check, then follow-ups: the primary player first, then the rest by seat.

        ``like``: the shooter whose death time (and so last words) the batch inherits.
        """
        self.check_win()
        yield from self.followups_of(batch, like)

    def followups_of(self, batch: list[Player], like: Player | None = None,
                     first_speaks: bool = True) -> Gen:
        """Follow-ups of a batch: its primary player first, then the rest by seat (RULES.md §3.2.1)."""
        if not batch:
            return
        yield from self.followups(batch[0], like, last_words=first_speaks)
        for p in sorted(batch[1:], key=lambda p: p.seat):
            yield from self.followups(p, like)

    def followups(self, p: Player, like: Player | None = None, last_words: bool = True) -> Gen:
        """Badge, then last words, then a shot (RULES.md §3.2.1, A-35)."""
        if self.t.sheriff == p.seat:
            yield from self.pass_badge(p)
        if last_words:
            if self.has_last_words(p, like):
                yield from self.last_words(p)
            else:
                self.no_last_words(p)
        if self.can_shoot(p):  # no generator for the many deaths that shoot nobody
            yield from self.shoot(p)
        elif p.role in SHOOTERS:
            self.shot_refused(p)

    def pass_badge(self, p: Player) -> Gen:
        t = self.t
        heirs = [q.seat for q in t.living() if not (q.idiot_revealed and t.opts.badge_on_death == "must_pass")]
        must = t.opts.badge_on_death == "must_pass" and bool(heirs)
        v = yield [Target(p.seat, "badge", heirs, optional=not must,
                          why="the sheriff passes the badge or tears it up")]
        heir = v[0]
        t.sheriff = heir
        if heir is None:
            t.badge_gone = True
            t.say("sheriff", seat=None, reason="torn", rule="badge_torn")
        else:
            t.say("sheriff", seat=heir, reason="passed",
                  rule="badge_must_pass" if must else "badge_passed")

    def last_words(self, p: Player) -> Gen:
        t = self.t
        reason = self.silent_reason(p.seat)
        if reason:
            t.say("no_last_words", seat=p.seat, reason=reason, rule=SILENT_RULE[reason])
            return
        t.say("last_words", seat=p.seat, rule=LAST_WORDS_RULE[t.opts.last_words])
        if t.live_speech:  # otherwise nobody is asked: the speech is only the event above
            yield from self.speak(p.seat, "last_words")

    def no_last_words(self, p: Player) -> None:
        """The table's last-words rule gives ``p`` none (by the time of death, or the quota is spent): said
        aloud, with the rule, as the judge says "no last words" (who dies when is public already)."""
        t = self.t
        t.say("no_last_words", seat=p.seat, reason="rule", rule=LAST_WORDS_RULE[t.opts.last_words])

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

    def can_shoot(self, p: Player) -> bool:
        if p.role not in SHOOTERS or p.disabled:
            return False
        opts = self.t.opts
        blocked = opts.hunter_blocked_causes if p.role == "hunter" else opts.wolf_king_blocked_causes
        return p.cause not in blocked

    def shot_refused(self, p: Player) -> None:
        """Log why a dying shooter is not asked to shoot (the table only sees that nobody is shot); a powerless
        one is told, alone, as the judge shakes his head at him."""
        rule = SHOT_REFUSED_RULE["disabled" if p.disabled else "cause"]
        self.t.log("ruling", rule=rule, seat=p.seat, cause=p.cause)
        self.tell_no_power(p)

    def tell_no_power(self, q: Player) -> None:
        """Tell ``q`` alone that the elder penalty took his power (only it disables a good player): at his call
        by night, and when he would use it (001 規則盲點 (11): 「只不過要向神牌表明不能用技能了」)."""
        if q.disabled and q.faction == "good":
            self.t.tell(q.seat, "powers_lost", seat=q.seat, role=q.role, rule="elder_penalty_told")

    def shoot(self, p: Player) -> Gen:
        if not self.can_shoot(p):
            if p.role in SHOOTERS:
                self.shot_refused(p)
            return
        t = self.t
        targets = [q.seat for q in t.living() if q.seat != p.seat]
        v = yield [Target(p.seat, "shoot", targets, why="you may shoot one player as you die")]
        target = v[0]
        if target is None:
            return
        victim = t.p(target)
        t.say("shoot", seat=p.seat, role=p.role, target=target, rule=SHOOT_RULE[p.role])
        batch: list[Player] = []
        self.die(victim, "shot", batch, p.death_phase)
        self.close_chains(batch)
        # The victim dies at the shooter's time, and inherits his last words.
        yield from self.batch_done(batch, like=p)
