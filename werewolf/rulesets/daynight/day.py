"""The day: sheriff election, the dawn announcement, speeches, the exile vote,
and the day's interruptions (self-destruct, knight duel) (RULES.md §3.2, §3.3, §3.4).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from functools import cache
from types import MappingProxyType
from typing import Any, Final

from werewolf.core.decisions import Choice, Decision, Flag, Move, Speak, Target
from werewolf.core.draws import choice
from werewolf.rulesets.daynight.deaths import SILENT_RULE
from werewolf.rulesets.daynight.night import NightSteps
from werewolf.rulesets.daynight.state import Player, Votes

Gen = Generator[list[Decision], list[Any], Any]

CLOCKWISE, COUNTER = "clockwise", "counterclockwise"


class DayEnds(Exception):
    """The day is cut short (self-destruct, a successful duel): go to night."""


# Explode decisions are offered to every living wolf at every boundary: the few contexts
# ({"when": boundary}) are made once and shared, read-only.
_WHEN_DEFAULT: Final[Mapping[str, Any]] = MappingProxyType({"when": "discussion"})


@cache
def _when(boundary: str) -> Mapping[str, Any]:
    return MappingProxyType({"when": boundary})


class Explode(Flag):
    """A wolf's self-destruct, offered at a speaking boundary (``when``).

    The white wolf king also names the player he takes (``target``).
    The value is None (no), or ``("explode", target_or_None)``.
    """

    __slots__ = ("targets",)

    def __init__(self, seat: int, when: str, targets: list[int] | None) -> None:
        # Offered to every living wolf at each boundary: set the fields directly, no super() call.
        self.seat = seat
        self.act = "explode"
        self.interrupt = True
        self.why = "reveal yourself as a wolf and end the day"
        self.default = False
        self.context = _when(when)
        self.context_defaults = _WHEN_DEFAULT
        self.targets = targets

    def check(self, move: Move) -> str | None:
        extra = set(move) - {"act", "seat", "value", "when", "target"}
        if extra:
            return f"unexpected field(s) {', '.join(sorted(extra))}"
        target = move.get("target")
        if target is not None:
            if self.targets is None:
                return "only the white wolf king takes a player with him when he self-destructs"
            if target not in self.targets:
                return f"seat {target} is not a legal target"
        return super().check({k: v for k, v in move.items() if k != "target"})

    def value(self, move: Move) -> Any:
        if not move.get("value", True):
            return None
        return ("explode", move.get("target"))

    def default_value(self) -> Any:
        return None

    def options(self) -> list[Move]:
        yes: list[Move] = [{"act": "explode", "when": self.context["when"]}]
        if self.targets:
            yes += [{"act": "explode", "when": self.context["when"], "target": s} for s in self.targets]
        return yes + [{"act": "explode", "when": self.context["when"], "value": False}]

    def random_value(self, rng: Any) -> Any:
        if rng.random() < 0.03:
            return ("explode", choice(rng, self.targets) if self.targets else None)
        return None


class DaySteps(NightSteps):
    """Mixin of the Moderator: the day."""

    def start_day(self, k: int) -> None:
        """Day ``k`` breaks; ``day_body`` runs it (the moderator's loop ends it early on ``DayEnds``)."""
        t = self.t
        t.day = k
        t.phase = f"day{k}"
        t.say("day", number=k)

    def day_body(self, k: int) -> Gen:
        """RULES.md §3.2, §3.3, §3.4 (wechat's morning is its ``announce``)."""
        t = self.t
        opts = t.opts
        if opts.bear_announce == "day_start":
            self.bear_line()
        if "silencer" in t.in_deck:  # nobody else silences anyone
            for p in t.players:
                if p.silenced_day == k and (p.alive or p.pending):
                    t.say("silenced", seat=p.seat)  # 「被禁言的玩家於次一日白天不能說話」
        # The election comes before the death announcement (pending-dead players take part,
        # RULES.md §0.4) or after it (wechat: 「公示…昨晚出局角色名單。開始競選警長」).
        early = opts.sheriff_before_announcement
        if early and self.election_today(k):
            yield from self.election(resumed=t.election_postponed)
        yield from self.announce()
        if not early and self.election_today(k):
            yield from self.election(resumed=t.election_postponed)
        yield from self.discussion()
        yield from self.rogue_dies()
        yield from self.exile_vote()

    # -- the bear ---------------------------------------------------------------
    def bear_line(self) -> None:
        t = self.t
        bear = t.holder("bear_tamer")
        if bear is None:
            return
        if not bear.alive:  # a bear tamer killed last night counts as dead
            if not t.bear_silent_announced:
                t.bear_silent_announced = True
                # 「熊不再咆哮了!」
                t.say("bear", roared=False, reason="the bear tamer is dead", rule="bear_tamer_dead")
            return
        if bear.disabled:
            # Powerless (the elder penalty), not dead: the bear is silent as on any day without a wolf beside him;
            # "the bear tamer is dead" would tell the table that he lives and that the village lost its powers.
            t.say("bear", roared=False, rule="bear_roars")
            return
        near = [s for s in (t.left(bear.seat), t.right(bear.seat)) if s is not None]
        roared = any(self.bear_smells(t.p(s)) for s in near)
        t.say("bear", roared=roared, rule="bear_roars")

    def bear_smells(self, p: Player) -> bool:
        if p.role == "hidden_wolf":
            return self.t.opts.bear_detects_hidden_wolf
        return p.wolf or p.faction == "white_wolf"

    # -- the sheriff election -----------------------------------------------------
    def election_today(self, k: int) -> bool:
        t = self.t
        if not t.opts.sheriff or t.badge_gone or t.sheriff is not None:
            return False
        return k == t.opts.sheriff_day or (t.election_postponed and k == t.opts.sheriff_day + 1)

    def election(self, resumed: bool = False) -> Gen:
        """RULES.md §3.2.2. ``resumed``: the postponed Day-2 election (vote, no speeches)."""
        t = self.t
        opts = t.opts
        t.election_postponed = False
        people = [p for p in t.players if p.alive or (p.pending and opts.sheriff_before_announcement)]
        runs = yield [Flag(p.seat, "run", why="stand for sheriff") for p in people]
        cands = [p.seat for p, v in zip(people, runs) if v]
        t.say("candidates", seats=cands)
        if cands or resumed:  # 「as soon as its candidates are known」
            boom = yield from self.explode_window("election", people)
            if boom is not None:
                yield from self.election_broken(boom, resumed)
                return
        if not resumed and len(cands) >= 2:
            yield from self.campaign(cands)
            outs = yield [Flag(s, "withdraw", why="withdraw from the election") for s in cands]
            for s, out in zip(cands, outs):
                if out:
                    t.say("withdraw", seat=s)
            remaining = [s for s, out in zip(cands, outs) if not out]
        else:
            remaining = cands
        if not remaining:
            t.say("sheriff", seat=None, reason="no candidate", rule="sheriff_no_candidate")
            return
        everyone = opts.sheriff_electorate == "all_living"
        if len(remaining) == 1 and not everyone:
            self.elect(remaining[0], "sole candidate", rule="sheriff_sole_candidate")
            return
        if everyone:
            # wechat: 「所有存活角色均可參與投票」, even for a single candidate (and, before the
            # announcement, the night's dead, who still count as alive: RULES.md §0.4).
            electorate = [p.seat for p in people if self.may_vote(p) or (p.pending and not p.idiot_revealed)]
        else:
            electorate = [p.seat for p in people if p.seat not in cands]
        if not electorate:
            t.say("sheriff", seat=None, reason="no voters", rule="sheriff_no_voters")
            return
        winner, tied = yield from self.sheriff_ballot("sheriff_vote", electorate, remaining)
        if winner is None and not tied and len(remaining) == 1:
            winner = remaining[0]  # unopposed, and nobody voted
        if winner is None and tied and opts.sheriff_tie == "pk_then_none":
            t.say("sheriff_pk", seats=tied, rule="sheriff_tie_pk")
            if not resumed:
                for s in sorted(tied):
                    yield from self.speak(s, "pk")
            winner, tied = yield from self.sheriff_ballot("sheriff_pk_vote", electorate, tied)
        if winner is None:
            if tied:
                t.say("sheriff", seat=None, reason="tie",
                      rule="sheriff_tie_pk_then_none" if opts.sheriff_tie == "pk_then_none" else "sheriff_tie_none")
            else:
                t.say("sheriff", seat=None, reason="no votes", rule="sheriff_no_votes")
            if tied and opts.sheriff_tie == "none":
                t.badge_gone = True  # wechat: 「則失去<警長>」 for the whole game
        else:
            self.elect(winner, "vote", rule="sheriff_elected_by_vote")

    def campaign(self, cands: list[int]) -> Gen:
        t = self.t
        order = t.opts.campaign_order
        ascending = (t.coin() == 1) if order == "coin" else order == "lowest_first"
        for s in sorted(cands, reverse=not ascending):
            yield from self.speak(s, "election")

    def sheriff_ballot(self, act: str, electorate: list[int],
                       cands: list[int]) -> Generator[list[Decision], list[Any], tuple[int | None, list[int]]]:
        t = self.t
        ballots = yield [Target(s, act, cands, why="elect the sheriff") for s in electorate]
        tally: dict[int, Votes] = {}
        cast = {}
        for s, b in zip(electorate, ballots):
            if b is not None:
                tally[b] = tally.get(b, 0) + 1
                cast[s] = b
        counted = dict(sorted(tally.items()))
        if t.opts.sheriff_vote_secret:
            t.say("votes", round=act, tally=counted, rule="sheriff_vote_secret")
            t.log("ballots", round=act, ballots=cast)
        else:
            t.say("votes", round=act, tally=counted, ballots=cast, rule="sheriff_election_vote")
        return top(tally)

    def elect(self, seat: int, how: str, rule: str) -> None:
        self.t.sheriff = seat
        self.t.say("sheriff", seat=seat, reason=how, rule=rule)

    def election_broken(self, boom: tuple[Player, int | None], resumed: bool) -> Gen:
        """A wolf self-destructed during the election (RULES.md §3.2.2, A-1, A-28)."""
        t = self.t
        wolf, target = boom
        rule = t.opts.sheriff_self_destruct
        if rule == "postpone_once" and not resumed and t.day == t.opts.sheriff_day:
            t.election_postponed = True
            t.say("election_postponed", rule="sheriff_self_destruct_postpones")
        else:
            t.badge_gone = True
            t.say("sheriff", seat=None, reason="lost to a self-destruct", rule="badge_lost_to_self_destruct")
        yield from self.self_destruct(wolf, target)
        # Straight to the announcement (if still due), its follow-ups, then night.
        if t.announced_day < t.day:
            yield from self.announce()
        yield from self.rogue_dies()
        raise DayEnds

    # -- dawn -------------------------------------------------------------------
    def announce(self) -> Gen:
        t = self.t
        dead = sorted(t.night_dead)
        self.flush_night_deaths()
        t.dawn_count = len(dead)
        t.say("announce", seats=dead, rule="night_deaths_announced" if dead else "peaceful_night")
        for s in dead:
            t.p(s).pending = False
        t.announced_today = dead
        t.announced_day = t.day
        for s in dead:
            yield from self.followups(t.p(s))
        if t.transform_due == "dawn":
            self.transform_wild_child()
        if t.opts.bear_announce == "after_deaths":
            self.bear_line()  # 「每天早上，犧牲消息公布后」

    def transform_wild_child(self) -> None:
        t = self.t
        t.transform_due = None
        child = t.holder("wild_child")
        if child is None or not child.alive or child.transformed or t.model is None or t.p(t.model).alive:
            return
        child.transformed = True
        child.faction = "wolf"
        t.tell(child.seat, "transformed", seat=child.seat)
        t.log("ruling", rule="wild_child_transforms", seat=child.seat)

    # -- speeches -----------------------------------------------------------------
    def speak(self, seat: int, part: str) -> Gen:
        """One speaking turn (text or "done" in live play: the front end's business)."""
        t = self.t
        if part != "last_words":
            reason = self.silent_reason(seat)
            if reason:
                t.say("silent_turn", seat=seat, part=part, reason=reason, rule=SILENT_RULE[reason])
                return
        text = None
        if t.live_speech:
            (text,) = yield [Speak(seat, part)]
        if part != "last_words":
            if text:
                t.say("speech", seat=seat, part=part, text=text)
            elif text == Speak.PASSED:  # the turn stays in the log, in its place, as passed
                t.say("speech", seat=seat, part=part, passed=True)
            else:
                t.say("speech", seat=seat, part=part)
        elif text:
            t.say("last_words_text", seat=seat, text=text)
        elif text == Speak.PASSED:
            t.say("last_words_text", seat=seat, passed=True)

    def silent_reason(self, seat: int) -> str | None:
        """Why ``seat`` may not speak today, if it may not (the silencer; wechat adds the piper)."""
        t = self.t
        if t.day > 0 and t.p(seat).silenced_day == t.day:
            return "silenced"
        return None

    def discussion(self) -> Gen:
        t = self.t
        order = yield from self.speaking_order()
        yield from self.interrupts()
        if not t.live_speech:
            # Nobody is asked anything: say the turns straight away (the simulations' hot path).
            for s in order:
                if t.players[s - 1].alive:
                    reason = self.silent_reason(s)
                    if reason:
                        t.say("silent_turn", seat=s, part="discussion", reason=reason, rule=SILENT_RULE[reason])
                    else:
                        t.say("speech", seat=s, part="discussion")
            return
        for i, s in enumerate(order):
            if i and t.live_speech:
                yield from self.interrupts()  # live play: before any speech, not only the first
            if t.p(s).alive:
                yield from self.speak(s, "discussion")

    def speaking_order(self) -> Generator[list[Decision], list[Any], list[int]]:
        t = self.t
        opts = t.opts
        sheriff = t.p(t.sheriff) if t.sheriff is not None else None
        if sheriff is not None and sheriff.alive:
            allowed = [CLOCKWISE, COUNTER]
            if opts.speech_with_sheriff == "alternate" and t.last_direction is not None:
                allowed = [COUNTER if t.last_direction == CLOCKWISE else CLOCKWISE]
            (direction,) = yield [Choice(sheriff.seat, "order", "direction", allowed,
                                         why="choose the speaking order"
                                         + (" (it must alternate with the last one)" if len(allowed) == 1 else ""))]
            t.last_direction = direction
            cw = direction == CLOCKWISE
            t.say("order", seat=sheriff.seat, direction=direction,
                  rule="speech_order_alternates" if len(allowed) == 1 else "sheriff_sets_speech_order")
            start = t.left(sheriff.seat) if cw else t.right(sheriff.seat)
            order = [s for s in t.walk(start, cw) if s != sheriff.seat] if start is not None else []
            order.append(sheriff.seat)
            rule = "sheriff_speaks_last"
        else:
            cw = t.coin() == 1
            living = t.living_seats()
            if opts.speech_without_sheriff == "clock_deaths":
                ref = min(t.announced_today) if t.announced_today else None
                rule = "speech_from_the_deaths"
            else:
                ref = max(t.last_dead) if t.last_dead else None
                rule = "speech_from_the_last_dead"
            if ref is None:  # a peaceful night (clock rule), or nobody dead yet (last dead): by seat number
                order = living if cw else living[::-1]
                rule = "speech_by_seat_number"
            else:
                start = t.left(ref) if cw else t.right(ref)
                order = list(t.walk(start, cw)) if start is not None else []
        t.say("speaking_order", seats=order, rule=rule)
        return order

    def interrupts(self) -> Gen:
        """The first speaking turn: wolves may self-destruct, the knight may duel."""
        t = self.t
        asks: list[Decision] = []
        if t.opts.self_destruct_allowed:
            asks += [self.explode_decision(p, "discussion") for p in t.living() if self.may_explode(p)]
        knight = t.holder("knight")
        if knight is not None and knight.alive and not t.knight_used and not knight.disabled:
            targets = [p.seat for p in t.living() if p.seat != knight.seat]
            asks.append(Target(knight.seat, "duel", targets, interrupt=True, why="duel one player"))
        if not asks:
            return
        vals = yield asks
        if not any(vals):  # nobody interrupted (the usual answer)
            return
        for d, v in sorted(zip(asks, vals), key=lambda dv: dv[0].seat):
            if v is None:
                continue
            if d.act == "duel":
                yield from self.duel(t.p(d.seat), v)
            elif t.p(d.seat).alive:
                yield from self.self_destruct(t.p(d.seat), v[1])
                yield from self.rogue_dies()
                raise DayEnds

    def may_explode(self, p: Player) -> bool:
        return p.faction == "wolf" and p.role != "spirit_knight" and not p.disabled

    def explode_decision(self, p: Player, when: str) -> Explode:
        targets = None
        if p.role == "white_wolf_king":
            targets = [q.seat for q in self.t.players if (q.alive or q.pending) and q.seat != p.seat]
        return Explode(p.seat, when, targets)

    def explode_window(self, when: str, people: list[Player]
                       ) -> Generator[list[Decision], list[Any], tuple[Player, int | None] | None]:
        t = self.t
        if not t.opts.self_destruct_allowed:
            return None
        asks = [self.explode_decision(p, when) for p in people if self.may_explode(p)]
        if not asks:
            return None
        vals = yield asks
        for d, v in zip(asks, vals):
            if v is not None:
                return t.p(d.seat), v[1]
        return None

    def self_destruct(self, p: Player, target: int | None) -> Gen:
        """RULES.md §3.2.6: a batch, the win check, the white wolf king's take, follow-ups."""
        t = self.t
        t.say("explode", seat=p.seat, role=p.role, rule="wolf_self_destruct")
        if p.pending:
            # 「若前一個夜晚被毒害的狼人在競選警長時自爆,則毒藥無效」: the pending death is replaced.
            t.night_dead.remove(p.seat)
            t.mark_alive(p)
            p.pending = False
            t.log("ruling", rule="self_destruct_replaces_night_death", seat=p.seat)
        batch: list[Player] = []
        self.die(p, "explode", batch)
        self.close_chains(batch)
        self.check_win()
        if t.opts.self_destructed_wolf_votes_knife:
            t.knife_voice = p.seat
        if p.role == "white_wolf_king" and target is not None:
            victim = t.p(target)
            t.say("claw", seat=p.seat, target=target, rule="white_wolf_king_claw")
            if victim.alive:
                taken: list[Player] = []
                self.die(victim, "claw", taken, p.death_phase)  # taken with him, at his time
                self.close_chains(taken)
                yield from self.batch_done(taken)
        yield from self.followups_of(batch)

    def duel(self, knight: Player, target: int) -> Gen:
        """RULES.md §3.2.5: a wolf dies and night falls; otherwise the knight dies."""
        t = self.t
        t.knight_used = True
        victim = t.p(target)
        hit = victim.wolf
        t.say("duel", seat=knight.seat, target=target, result="wolf" if hit else "good",
              rule="knight_duel" if hit else "knight_duel_fails")
        batch: list[Player] = []
        self.die(victim if hit else knight, "duel", batch)
        self.close_chains(batch)
        self.check_win()
        # 「騎士將立即死亡且無遺言」; the dueled wolf has none either (P, A-17).
        yield from self.followups_of(batch, first_speaks=False)
        if hit:
            yield from self.rogue_dies()
            raise DayEnds

    def rogue_dies(self) -> Gen:
        """The wounded old rogue dies after the day's speeches (RULES.md §2.1 old_rogue)."""
        for p in self.t.by_role.get("old_rogue", ()):  # none in most decks
            if p.wounded and p.alive:
                p.wounded = False
                batch: list[Player] = []
                self.die(p, "rogue_delayed", batch)
                self.close_chains(batch)
                yield from self.batch_done(batch)

    # -- the exile vote -------------------------------------------------------------
    def may_vote(self, p: Player) -> bool:
        return p.alive and not p.idiot_revealed

    def votable(self, p: Player) -> bool:
        return p.alive and not (p.idiot_revealed and not self.t.opts.revealed_idiot_votable)

    def vote_weight(self, seat: int) -> Votes:
        t = self.t
        return t.opts.sheriff_vote_weight if seat == t.sheriff else 1

    def ballot(self, act: str, voters: list[int], targets: list[int]) -> list[Decision]:
        """The ballot papers of an exile vote; ``count_votes`` reads them."""
        t = self.t
        shared = tuple(targets)
        barred = self.barred()
        if t.lovers is None or t.opts.lovers_may_vote_each_other:
            return [Target(v, act, shared, forbidden=barred, why="vote to exile") for v in voters]
        asks: list[Decision] = []
        for v in voters:
            lover = t.lover_of(v)
            if lover is not None and lover in shared:
                asks.append(Target(v, act, [s for s in shared if s != lover],
                                   forbidden={**(barred or {}), lover: "lovers may not vote for each other"},
                                   why="vote to exile"))
            else:
                asks.append(Target(v, act, shared, forbidden=barred, why="vote to exile"))
        return asks

    def barred(self) -> dict[int, str] | None:
        """Living players a rule keeps off the exile ballot, with the rule, for the refusal's message (a
        revealed idiot, RULES.md §1.6 #21); None, the usual case, after one look-up."""
        t = self.t
        idiots = t.by_role.get("idiot")
        if not idiots or t.opts.revealed_idiot_votable:
            return None
        seats = [p.seat for p in idiots if p.alive and not self.votable(p)]
        return dict.fromkeys(seats, REVEALED_IDIOT) if seats else None

    def count_votes(self, act: str, voters: list[int], ballots: list[Any]
                    ) -> tuple[int | None, list[int], dict[int, int]]:
        """The count of an exile vote: the exiled seat or the tied ones, and the ballots that count."""
        t = self.t
        cast = self.valid_ballots({v: b for v, b in zip(voters, ballots) if b is not None}, voters)
        tally: dict[int, Votes] = {}
        sheriff, weight = t.sheriff, t.opts.sheriff_vote_weight
        for v, b in cast.items():
            tally[b] = tally.get(b, 0) + (weight if v == sheriff else 1)
        self.adjust_tally(tally, act)
        # Seat keys stay numbers in memory; JSON writes them as strings.
        t.say("votes", round=act, ballots=cast, tally=dict(sorted(tally.items())),
              rule="sheriff_vote_weight" if sheriff in cast and weight != 1 else "one_vote_each")
        winner, tied = top(tally)
        return winner, tied, cast

    def valid_ballots(self, cast: dict[int, int], voters: list[int]) -> dict[int, int]:
        """Ruleset rules voiding ballots (wechat's sisters and brothers)."""
        return cast

    def adjust_tally(self, tally: dict[int, Votes], act: str) -> None:
        """Ruleset extras on the count (wechat's raven)."""

    def exile_vote(self) -> Gen:
        """The day's vote; returns the seat it exiled (or None)."""
        t = self.t
        self.check_vote_lock()
        voters = [p.seat for p in t.living() if self.may_vote(p)]
        targets = [p.seat for p in t.living() if self.votable(p)]
        ballots = yield self.ballot("vote", voters, targets)
        winner, tied, cast = self.count_votes("vote", voters, ballots)
        t.exile_rule = "exile_most_votes" if winner is not None else "exile_no_votes"
        if winner is None and tied:
            winner, cast = yield from self.exile_tie(tied, voters, targets, cast)
        t.say("exile", seat=winner, rule=t.exile_rule)
        if winner is not None:
            deciders = [v for v, b in cast.items() if b == winner]
            yield from self.exile(t.p(winner), deciders)
        return winner

    def exile_tie(self, tied: list[int], voters: list[int], targets: list[int],
                  cast: dict[int, int]) -> Generator[list[Decision], list[Any], tuple[int | None, dict[int, int]]]:
        """A tied exile vote, by ``exile_tie`` in every ruleset (RULES.md §1.6 #12, §3.2.4, §3.4 day 5).

        pk_then_none: PK speeches and a re-vote by the others; sheriff_choice: the tied player the
        sheriff voted for goes (「警長參與投票時警長投票的角色出局或無人出局」); none: nobody goes.
        """
        t = self.t
        rule = t.opts.exile_tie
        if rule == "sheriff_choice":
            choice = cast.get(t.sheriff) if t.sheriff is not None else None
            if choice is not None and choice in tied:
                t.log("ruling", rule="sheriff_breaks_the_tie", seat=choice)
                t.exile_rule = "exile_tie_sheriff_choice"
                return choice, cast
            t.exile_rule = "exile_tie_sheriff_choice_none"
            return None, cast
        if rule != "pk_then_none":
            t.exile_rule = "exile_tie_none"
            return None, cast
        t.say("pk", seats=tied, rule="exile_tie_pk")
        for s in sorted(tied):
            yield from self.speak(s, "pk")
        pk_voters = [v for v in voters if v not in tied and t.p(v).alive]
        pk_targets = tied if t.opts.pk_votes_only_for_pk else [s for s in targets if t.p(s).alive]
        ballots = yield self.ballot("pk_vote", pk_voters, pk_targets)
        winner, _, cast2 = self.count_votes("pk_vote", pk_voters, ballots)
        t.exile_rule = "pk_most_votes" if winner is not None else "pk_tie_no_exile"
        return winner, cast2

    def exile(self, p: Player, deciders: list[int]) -> Gen:
        """RULES.md §3.2.4: the idiot's reveal, else death, bomb, chains, follow-ups."""
        t = self.t
        if p.role == "idiot" and not p.idiot_revealed and not p.disabled:
            (reveal,) = yield [Flag(p.seat, "reveal", default=True, why="reveal that you are the idiot")]
            if reveal:
                p.idiot_revealed = True
                t.say("reveal", seat=p.seat, role="idiot", rule="idiot_reveal_survives")
                if t.sheriff == p.seat and t.opts.idiot_reveal_destroys_badge:
                    t.sheriff = None
                    t.badge_gone = True
                    t.say("sheriff", seat=None, reason="the idiot revealed", rule="idiot_reveal_destroys_badge")
                return
        if p.role == "idiot" and not p.idiot_revealed:
            self.tell_no_power(p)  # a powerless idiot may not reveal: the judge shakes his head
        batch: list[Player] = []
        self.die(p, "exile", batch)
        if p.role == "bomber" and not p.disabled:
            t.say("bomb", seat=p.seat, victims=sorted(deciders), rule="bomber_takes_voters")
            for v in sorted(deciders):
                self.die(t.p(v), "bomb", batch, p.death_phase)
        self.close_chains(batch)
        if p.role == "bomber" and not t.living():
            # He took everyone: his win, weighed with whatever else holds now by tie_priority.
            self.decide(self.conditions() | {"bomber"})
        yield from self.batch_done(batch)


REVEALED_IDIOT: Final = "a revealed idiot may not be voted for (revealed_idiot_votable=false)"


def top(tally: dict[int, Votes]) -> tuple[int | None, list[int]]:
    """The unique positive maximum, or None and the tied seats."""
    if not tally:
        return None, []
    best = max(tally.values())
    if best <= 0:
        return None, []
    leaders = sorted([s for s, v in tally.items() if v == best])
    if len(leaders) == 1:
        return leaders[0], []
    return None, leaders
