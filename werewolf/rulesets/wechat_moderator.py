"""The wechat moderator (rule book 002): factions, defeat before victory, the piper, the black lovers and the
expansion roles' day rules. Its night steps are in ``wechat_roles`` (which builds on this module) and its deck,
night order and options in ``wechat`` (which builds on both).
"""

from __future__ import annotations

import random
from collections.abc import Generator
from typing import Any

from werewolf.core.decisions import Decision, Flag, Subset
from werewolf.core.draws import shuffle
from werewolf.core.table import Table
from werewolf.roles import ROLES
from werewolf.rulesets.daynight.moderator import Moderator
from werewolf.rulesets.daynight.state import DayNightTable, Player, Votes
from werewolf.rulesets.options import DayNightOptions

Gen = Generator[list[Decision], list[Any], Any]

# The sibling groups and their sizes (each member votes with the group).
GROUPS = {"sisters": 2, "brothers": 3}


def wolf_card(role: str) -> bool:
    return ROLES[role].faction in ("wolf", "white_wolf")


TEAM = {"good": "village", "wolf": "wolves", "black_lovers": "lovers", "piper": "piper",
        "white_wolf": "white_wolf", "prejudiced": "prejudiced", "angel": "angel"}
# The rule that ends the game when a faction wins (the ``rule`` of ``game_over``).
WIN_RULE = {"good": "village_wins", "wolf": "wolves_wins", "black_lovers": "lovers_wins", "piper": "piper_wins",
            "white_wolf": "white_wolf_wins", "prejudiced": "prejudiced_wins", "angel": "angel_wins"}


class WechatState:
    """What only wechat keeps track of."""

    def __init__(self) -> None:
        self.enchanted: set[int] = set()
        self.newly_enchanted: list[int] = []
        self.shielded_ever: set[int] = set()
        self.factions: set[str] = set()
        self.defeated: set[str] = set()
        self.widow_seat: int | None = None
        self.widow_active = False
        self.bbw_active = True
        self.infections_left = 1
        self.infection_news = False
        self.cursed: int | None = None
        self.banned: set[int] = set()
        self.banned_day = 0
        self.fox_active = True
        self.judge_uses = 1
        self.rusty_due: list[tuple[int, int]] = []  # (wolf seat, day it dies)
        self.supports: int | None = None
        self.clans: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        self.opposed: str | None = None

    def copy(self) -> WechatState:
        w = WechatState()
        w.enchanted, w.newly_enchanted = set(self.enchanted), list(self.newly_enchanted)
        w.shielded_ever, w.factions, w.defeated = set(self.shielded_ever), set(self.factions), set(self.defeated)
        w.widow_seat, w.widow_active, w.bbw_active = self.widow_seat, self.widow_active, self.bbw_active
        w.infections_left, w.infection_news, w.cursed = self.infections_left, self.infection_news, self.cursed
        w.banned, w.banned_day, w.fox_active = set(self.banned), self.banned_day, self.fox_active
        w.judge_uses, w.rusty_due, w.supports = self.judge_uses, list(self.rusty_due), self.supports
        w.clans, w.opposed = self.clans, self.opposed
        return w


class WechatTable(DayNightTable):
    """A wechat table keeps wechat's own rule state too, so that it can explain a move never asked for.

    (Kept here rather than on the moderator: a table that called back into its
    moderator would make every game a reference cycle for the garbage collector.)
    """

    def __init__(self, ruleset: str, opts: DayNightOptions, seats: list[str], center: list[str],
                 seed: int, rng: random.Random | None = None) -> None:
        super().__init__(ruleset, opts, seats, center, seed, rng)
        self.w = WechatState()
        self.w.infections_left = self.opts.wolf_father_infections
        self.w.judge_uses = self.opts.stuttering_judge_uses

    def copy_into(self, other: Table) -> None:
        super().copy_into(other)
        assert isinstance(other, WechatTable)
        other.w = self.w.copy()

    def why_not_asked(self, seat: int, act: str, phase: str) -> str | None:
        """The wechat rule that kept the game from asking for a scripted move."""
        t, w = self, self.w
        p = t.p(seat)
        if act == "extra_kill" and p.role == "big_bad_wolf" and not w.bbw_active:
            return "the big bad wolf lost his extra kill when another wolf died"
        if act == "extra_kill" and p.role == "white_wolf":
            return f"the white wolf kills alone only on {t.opts.white_wolf_nights} nights (white_wolf_nights)"
        if act == "widow_kill":
            return "the widow's knife belongs to the wolf of a black-lovers pair, after the wolves' defeat"
        if act == "sniff" and p.role == "fox" and not w.fox_active:
            return "the fox lost its power the night it found no wolf"
        if act == "infect" and p.role == "wolf_father":
            return (f"the wolf father infects the pack's victim, at most {t.opts.wolf_father_infections} "
                    "time(s) per game (wolf_father_infections)")
        if act == "second_vote" and p.role == "stuttering_judge":
            return (f"the stuttering judge calls a second vote only after a vote that exiled someone, "
                    f"{t.opts.stuttering_judge_uses} time(s) per game (stuttering_judge_uses)")
        if act == "take" and p.role == "devoted_servant" and t.lover_of(seat) is not None:
            return "a devoted servant who is a lover cannot take the exiled player's role"
        if act == "shield" and "piper" not in t.in_deck:
            return "the guard soundproofs only when a piper is in the game"
        if act in ("vote", "pk_vote") and seat in w.banned and phase == f"day{w.banned_day}":
            return "the scapegoat banned this player from voting today"
        return None


class WechatModerator(Moderator):
    def __init__(self, t: WechatTable, night_order: Any, stop_after_day: int | None) -> None:
        super().__init__(t, night_order, stop_after_day)
        self.w = t.w

    def announce_setup(self) -> None:
        t = self.t
        if "prejudiced" in t.in_deck:
            if t.opts.clans is not None:
                self.w.clans = t.opts.clans
            else:
                seats = list(range(1, t.n + 1))
                shuffle(t.rng, seats)
                half = (t.n + 1) // 2
                self.w.clans = (tuple(sorted(seats[:half])), tuple(sorted(seats[half:])))
            t.say("clans", A=list(self.w.clans[0]), B=list(self.w.clans[1]))

    def after_first_night(self) -> None:
        super().after_first_night()
        t = self.t
        self.w.factions = {p.faction for p in t.players if p.faction in TEAM}
        if "angel" in self.w.factions:
            self.w.factions.discard("angel")

    def run_night(self, k: int) -> Gen:
        self.w.cursed = None
        yield from super().run_night(k)

    # -- factions --------------------------------------------------------------
    def lovers_formed(self) -> None:
        """「情侶產生后，丘比特的陣營轉變」: cupid joins the pair's faction, or a mixed pair forms black lovers."""
        t = self.t
        assert t.lovers is not None and t.cupid is not None
        a, b = (t.p(s) for s in t.lovers)
        cupid = t.p(t.cupid)
        if a.faction == b.faction:
            t.lovers_mixed = False
            # Two wolves: cupid goes with them unless the table plays cupid_double_wolf_team="good".
            double_wolf_good = a.faction == "wolf" and t.opts.cupid_double_wolf_team == "good"
            cupid.faction = "good" if double_wolf_good else a.faction
            return
        t.lovers_mixed = True
        for q in (a, b):
            if q.faction == "wolf":
                self.w.widow_seat = q.seat
        for q in (a, b, cupid):
            q.faction = "black_lovers"

    def wechat_pack(self) -> list[Player]:
        members = self.t.pack()
        if "wolf" in self.w.defeated:
            members = [q for q in members if q.seat != self.w.widow_seat]
        return members

    def is_wolf_card(self, role: str) -> bool:
        return wolf_card(role)

    # -- the night's resolution (5.7, 5.8) ---------------------------------------
    def attacked(self) -> list[int]:
        n = self.n
        seats = [] if n.wolf is None or n.infect else [n.wolf]
        return sorted(set(seats + [x for _, x in n.extra_kills]))

    def resolve_night(self) -> Gen:
        t, n, w = self.t, self.n, self.w
        kills: list[tuple[str, int]] = [("kill", n.wolf)] if n.wolf is not None else []
        kills += n.extra_kills
        batch: list[Player] = []
        for cause, x in kills:
            q = t.p(x)
            if not q.alive:
                continue
            if cause == "kill" and n.infect:
                continue  # the infection replaced the kill (see infect)
            # 一、守護 voids it; 二、an elder's first effective kill; 三、the antidote; 四、out.
            # (With ``same_guard_save_dies``, guard and antidote on the same player void each other.)
            both = self.guard_and_save_kill(x, x == n.guard, x == n.save)
            if x == n.guard and not both:
                self.kill_stopped(x, True, x == n.save)
                continue
            if q.role == "elder" and q.lives == 2 and not q.disabled:
                q.lives = 1
                t.log("ruling", rule="elder_first_life", seat=x)
                continue
            if x == n.save and not both:
                self.kill_stopped(x, False, True)
                continue
            self.die(q, cause, batch)
            if q.role == "rusty_knight" and cause != "widow":
                self.rusty_wound(q)
        self.close_chains(batch)
        if t.opts.wolf_kill_first:  # 狼刀在先: the win is checked before the poison lands
            yield from self.batch_done(batch)
            batch = []
        if n.poison is not None and t.p(n.poison).alive:
            self.die(t.p(n.poison), "poison", batch)
            self.close_chains(batch)
        if batch or not t.opts.wolf_kill_first:
            yield from self.batch_done(batch)
        w.cursed = n.curse
        self.check_win()

    def infect(self, q: Player) -> None:
        """「被感染的那名角色將失去他本來的技能…與狼人們分享勝利」: at once, unless guarded (A-47)."""
        t = self.t
        if q.seat == self.n.guard:
            t.log("ruling", rule="infection_guarded", seat=q.seat)
            return
        q.faction, q.disabled = "wolf", True
        self.w.infection_news = True
        t.tell(q.seat, "infected", seat=q.seat)

    def rusty_wound(self, knight: Player) -> None:
        t = self.t
        for s in t.walk(knight.seat, True):
            if s != knight.seat and self.bear_smells(t.p(s)):
                self.w.rusty_due.append((s, self.n.k + 1))
                t.log("ruling", rule="rusty_infects", seat=s)
                return

    def chain_hook(self, p: Player, batch: list[Player]) -> None:
        if p.role == "elder" and p.cause in ("poison", "exile", "shot"):
            self.elder_penalty(p, batch)
        if p.role != "big_bad_wolf" and (wolf_card(p.role) or p.faction == "wolf"):
            self.w.bbw_active = False

    def elder_penalty(self, elder: Player, batch: list[Player]) -> None:
        """「…村民陣營的特殊身份將失去技能」: every village power (P: expansions too). Announced to nobody, as in
        facetoface (``ClassicResolution.elder_penalty``)."""
        t = self.t
        t.log("elder_penalty", seat=elder.seat, rule="elder_penalty")
        for q in t.players:
            if q.faction == "good" and q.role not in ("villager", "pure_villager", "elder"):
                q.disabled = True
                if q.role == "idiot" and q.idiot_revealed and q.alive:
                    self.die(q, "elder_penalty", batch, elder.death_phase)

    # -- follow-ups: the hunter at once, badge and last words by day --------------
    def followups(self, p: Player, like: Player | None = None, last_words: bool = True) -> Gen:
        t = self.t
        yield from self.shoot(p)
        if p.pending:
            return  # the badge and last words of a night death wait for the morning
        if t.sheriff == p.seat:
            yield from self.pass_badge(p)
        if last_words:
            if self.has_last_words(p):
                yield from self.last_words(p)
            else:
                self.no_last_words(p)

    def silent_reason(self, seat: int) -> str | None:
        """Charmed players may not speak, last words included, while the piper lives (A-56)."""
        if seat in self.w.enchanted:
            piper = self.t.holder("piper")
            if piper is not None and piper.alive:
                return "enchanted"
        return super().silent_reason(seat)

    # -- the day ------------------------------------------------------------------
    def announce(self) -> Gen:
        """The morning: 「公示前一天投票出局角色名單，昨晚出局角色名單」, the successor, last words, the news."""
        t, w = self.t, self.w
        k = t.day
        t.announced_day = k
        due = [s for s, day in w.rusty_due if day == k and t.p(s).alive]
        w.rusty_due = [(s, day) for s, day in w.rusty_due if day != k]
        dead = sorted(t.night_dead)
        self.flush_night_deaths()
        rusty_batch: list[Player] = []
        for s in due:
            # In the dawn list like the night's dead, without a cause: a public "rusty" would name him a wolf.
            self.die(t.p(s), "rusty", rusty_batch, f"night{k}", told=False)
        t.dawn_count = len(dead) + len(rusty_batch)
        announced = sorted(dead + [p.seat for p in rusty_batch])
        t.say("announce", seats=announced, rule="night_deaths_announced" if announced else "peaceful_night")
        for s in dead:
            t.p(s).pending = False
        t.announced_today = sorted(dead + [p.seat for p in rusty_batch])  # everyone announced (clock_deaths)
        if rusty_batch:
            self.close_chains(rusty_batch)
            self.check_win()
        for s in dead:
            if t.sheriff == s:
                yield from self.pass_badge(t.p(s))
        for s in dead:
            if self.has_last_words(t.p(s)):
                yield from self.last_words(t.p(s))
            else:
                self.no_last_words(t.p(s))
        yield from self.followups_of(rusty_batch)
        if t.opts.bear_announce == "after_deaths":
            self.bear_line()  # 「每天早上，犧牲消息公布后」
        if w.newly_enchanted:
            t.say("enchanted", seats=sorted(w.newly_enchanted), rule="piper_enchants")
            w.newly_enchanted = []
        if w.infection_news:
            t.say("infection", rule="infection_announced")  # 「有人被感染了」
            w.infection_news = False

    def may_vote(self, p: Player) -> bool:
        w = self.w
        return p.alive and not p.idiot_revealed and not (p.seat in w.banned and w.banned_day == self.t.day)

    def valid_ballots(self, cast: dict[int, int], voters: list[int]) -> dict[int, int]:
        """「所有投票必須一致，否則無效」 for the single sisters and brothers."""
        t = self.t
        for role in GROUPS:
            if not t.by_role.get(role):
                continue  # nobody holds the card
            group = [v for v in voters if t.p(v).role == role and t.lover_of(v) is None]
            if len(group) > 1 and len({cast.get(v) for v in group}) > 1:
                for v in group:
                    cast.pop(v, None)
                t.log("ballots_void", role=role, seats=group, rule="sibling_ballots_void")  # the table sees the count
        return cast

    def adjust_tally(self, tally: dict[int, Votes], act: str) -> None:
        c = self.w.cursed
        if act == "vote" and c is not None and self.t.p(c).alive:
            tally[c] = tally.get(c, 0) + 2
            self.t.log("ruling", rule="raven_curse_two_votes", seat=c)

    def exile_tie(self, tied: list[int], voters: list[int], targets: list[int],
                  cast: dict[int, int]) -> Generator[list[Decision], list[Any], tuple[int | None, dict[int, int]]]:
        """The living scapegoat goes on a tie (「就會處決替罪羊」): before the tie rule in force
        (``scapegoat_overrides_sheriff``, A-49), or when that rule exiles nobody."""
        t = self.t
        goat = t.holder("scapegoat")
        if goat is not None and goat.alive and t.opts.scapegoat_overrides_sheriff:
            t.log("ruling", rule="scapegoat_takes_the_tie", seat=goat.seat)
            t.exile_rule = "scapegoat_takes_the_tie"
            return goat.seat, {}
        winner, cast = yield from super().exile_tie(tied, voters, targets, cast)
        if winner is None and goat is not None and goat.alive:
            t.log("ruling", rule="scapegoat_takes_the_tie", seat=goat.seat)
            t.exile_rule = "scapegoat_takes_the_tie"
            return goat.seat, {}
        return winner, cast

    def exile_vote(self) -> Gen:
        t = self.t
        exiled = (yield from super().exile_vote()) is not None
        judge = t.holder("stuttering_judge")
        if exiled and judge is not None and judge.alive and not judge.disabled and self.w.judge_uses > 0:
            (again,) = yield [Flag(judge.seat, "second_vote", why="call an immediate second vote")]
            if again:
                self.w.judge_uses -= 1
                # 「口吃法官將給主持人一個手勢…主持人將立刻發起一輪新的投票」⟨002⟩: a secret sign (暗號). The table
                # hears only that a new vote is called; who called it stays the judge's and the moderator's.
                t.tell(judge.seat, "second_vote", seat=judge.seat, rule="stuttering_judge_second_vote")
                t.say("second_vote_called", rule="stuttering_judge_second_vote")
                yield from super().exile_vote()

    def exile(self, p: Player, deciders: list[int]) -> Gen:
        t = self.t
        servant = t.holder("devoted_servant")
        if (servant is not None and servant.alive and servant is not p and not servant.disabled
                and t.lover_of(servant.seat) is None):
            (take,) = yield [Flag(servant.seat, "take", why=f"take seat {p.seat}'s role")]
            if take:
                role = p.role
                t.say("servant", seat=servant.seat, target=p.seat, rule="devoted_servant_takes_role")
                t.become(p, "villager")  # the exiled player goes as a plain villager, no triggers
                t.become(servant, role)
                self.fresh_powers(servant)
                t.tell(servant.seat, "took", seat=servant.seat, role=role)
        if p.role == "angel" and t.day == 1:
            batch: list[Player] = []
            self.die(p, "exile", batch)
            self.end(["angel"], rule="angel_exiled_on_day_1")
        yield from super().exile(p, deciders)
        if p.role == "scapegoat" and not p.alive:
            targets = [q.seat for q in t.living()]
            (banned,) = yield [Subset(p.seat, "ban", targets, 3, why="up to three players who may not vote tomorrow")]
            self.w.banned = set(banned)
            self.w.banned_day = t.day + 1
            t.say("ban", seat=p.seat, targets=sorted(banned), rule="scapegoat_bans_voters")

    def fresh_powers(self, q: Player) -> None:
        t = self.t
        if q.role == "witch":
            t.antidote = t.poison = True
        if q.role == "fox":
            self.w.fox_active = True
        q.idiot_revealed = False

    # -- wins (RULES.md §4.3) -------------------------------------------------------
    def check_win(self, rule: str | None = None) -> None:
        self.verdict(rule)
        # The wild child turns right after the batch's win check, then the win is checked again.
        t = self.t
        child = t.holder("wild_child")
        if (child is not None and child.alive and not child.transformed and t.model is not None
                and not t.p(t.model).alive and child.faction == "good"):
            child.transformed = True
            child.faction = "wolf"
            t.tell(child.seat, "transformed", seat=child.seat)
            self.verdict(rule)

    def verdict(self, rule: str | None) -> None:
        t, w = self.t, self.w
        if not w.factions:
            return  # before Night-1 setup is complete
        living = t.living()
        piper = t.holder("piper")
        piper_alive = piper is not None and piper.alive
        enchanted = w.enchanted if piper_alive else set()

        by_faction: dict[str, list[Player]] = {}
        for p in living:
            by_faction.setdefault(p.faction, []).append(p)
        for f in sorted(w.factions - w.defeated):
            alive = by_faction.get(f)
            lost = not alive
            if f in ("wolf", "good") and alive and enchanted and all(p.seat in enchanted for p in alive):
                lost = True
            if lost:
                w.defeated.add(f)
                t.log("defeat", faction=TEAM[f], rule="faction_defeated")
                if f == "wolf" and w.widow_seat is not None:
                    w.widow_active = True
        live = w.factions - w.defeated
        winner = None
        if "piper" in live and all(p.seat in enchanted for p in living
                                   if p.faction in ("good", "wolf") and t.lover_of(p.seat) is None):
            winner = "piper"
        elif "white_wolf" in live and len(living) == 1 and living[0].faction == "white_wolf":
            winner = "white_wolf"
        elif "wolf" in live and self.wolves_prevail(living, by_faction.get("wolf", [])):
            winner = "wolf"
        elif len(live) == 1:
            winner = next(iter(live))
        elif not live:
            self.end([], rule=rule or "every_faction_defeated")
        # The prejudiced player wins alone when his opposed clan is out, and shares a win that
        # comes at the same moment (「特殊情況發生時，可以與其他陣營共贏」, A-46).
        prejudiced = "prejudiced" in live and self.prejudiced_done()
        if winner is None and prejudiced:
            winner = "prejudiced"
        if winner is not None:
            teams = [TEAM[winner]]
            if prejudiced and winner != "prejudiced":
                teams.append("prejudiced")
            self.end(teams, rule=rule or WIN_RULE[winner])

    def prejudiced_done(self) -> bool:
        t, w = self.t, self.w
        old = t.holder("prejudiced")
        if old is None or w.opposed is None:
            return False
        clan = w.clans[0] if w.opposed == "A" else w.clans[1]
        return all(not t.p(s).alive for s in clan if s != old.seat)

    def category(self, p: Player) -> str:
        """屠邊 (win_mode="tu_bian") counts the gods and villagers still in the village faction."""
        return p.category if p.faction == "good" else "none"

    def wins_with(self, p: Player, teams: list[str]) -> bool:
        if "angel" in teams:
            return p.role == "angel"  # 「他單獨勝利」: the angel, and nobody else
        return super().wins_with(p, teams)

    def team_of(self, p: Player) -> str:
        if p.role == "half_blood":
            s = self.w.supports
            # The supported player's faction at the end; a half-blood supporting a half-blood wins with nobody.
            return TEAM.get(self.t.p(s).faction, "none") if s is not None else "none"
        return TEAM.get(p.faction, "none")
