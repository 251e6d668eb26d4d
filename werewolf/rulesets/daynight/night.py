"""The night: one step per role, in the order of the ruleset's table, then the
resolution of who dies (RULES.md §3.1, §3.1.1, §3.3).

Every night target is a *label* (a seat number as chosen). The magician's swap
σ maps labels to the players they affect that night; information is given in
labels, effects land on σ(label).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from typing import Any

from werewolf.core.decisions import AnyOf, Choice, Decision, Flag, Pair, Target
from werewolf.rulesets.daynight.base import Night, Step
from werewolf.rulesets.daynight.resolve import ClassicResolution
from werewolf.rulesets.daynight.state import DayNightTable, Player

Gen = Generator[list[Decision], list[Any], Any]
# The steps of a night by (moderator class, night order, the cards in the deck, first night): the night order
# it was worked out from, the steps played, and the steps skipped as their role is not in the deck.
_STEPS: dict[tuple[type, int, frozenset[str], bool], tuple[Sequence[Step], tuple[Step, ...], tuple[Step, ...]]] = {}


class NightSteps(ClassicResolution):
    """Mixin of the Moderator: running the night table."""

    def after_first_night(self) -> None:
        """What Night-1 setup fixes for the rest of the game."""
        t = self.t
        # 屠邊 categories as dealt (after the thief's choice): an empty one never counts.
        t.start_categories = frozenset(self.category(p) for p in t.players)
        t.last_words_left = sum(1 for p in t.players if p.wolf)

    def lovers_formed(self) -> None:
        """Hook: a ruleset reacts to the lovers being linked (wechat factions)."""

    def run_night(self, k: int) -> Gen:
        t = self.t
        t.night = k
        t.phase = f"night{k}"
        t.night_dead = []
        self.n = Night(k)
        t.say("night", number=k)
        skipped = self.steps_skipped(k)
        if skipped:
            # The moderator's only: no card of these roles was dealt, so the judge skips their steps. The
            # table knows the deck; a live room paces only the steps called (a step of a dead role is
            # called and pretended: ``step_pretended``).
            t.log("step_skipped", steps=[s.code for s in skipped], roles=[s.role for s in skipped],
                  rule="step_skipped_absent_role")
        if t.transform_due == "night":
            self.transform_wild_child()
        for step in self.steps_of_night(k):
            if step.role == "":
                assert step.run is not None
                asks = step.run(self, None)
            else:
                holder = self.step_holder(step)
                # Every step is called aloud, acted or not (the table must not learn who is dead).
                t.say("step", step=step.code, role=step.role)
                if holder is None:
                    self.tell_powerless(step)
                    if not self.step_always(step):
                        dealt = t.by_role.get(step.role)
                        t.log("ruling", rule="step_pretended", seat=dealt[0].seat if dealt else None,
                              role=step.role)
                asks = step.run(self, holder) if step.run is not None else None
            if asks is not None:
                yield from asks
        t.knife_voice = None

    def steps_of_night(self, k: int) -> tuple[Step, ...]:
        """This deck's steps: 「未出現在玩家使用牌組內容的角色,該步驟可跳過」 (absent roles skipped)."""
        return self.night_plan(k)[1]

    def steps_skipped(self, k: int) -> tuple[Step, ...]:
        """The steps of night ``k`` skipped because no card of their role is in the deck."""
        return self.night_plan(k)[2]

    def night_plan(self, k: int) -> tuple[Sequence[Step], tuple[Step, ...], tuple[Step, ...]]:
        first = k == 1
        # The same for every game of a ruleset with these cards: worked out once per deck.
        key = (type(self), id(self.night_order), self.t.in_deck, first)
        hit = _STEPS.get(key)
        if hit is not None and hit[0] is self.night_order:
            return hit
        in_deck = self.t.in_deck
        tonight = [s for s in self.night_order if first or not s.first_night_only]
        steps = tuple(s for s in tonight if s.role == "" or s.role in in_deck or self.step_always(s))
        skipped = tuple(s for s in tonight if s not in steps)
        if len(_STEPS) >= 1024:
            _STEPS.clear()
        plan = _STEPS[key] = (self.night_order, steps, skipped)
        return plan

    def step_always(self, step: Step) -> bool:
        # The pack wakes whatever the deck (an infected or transformed wolf may join it).
        return step.role == "werewolf"

    def tell_powerless(self, step: Step) -> None:
        """After the elder penalty the judge still calls every god and tells him, alone, that he has no power:
        「法官的發言順序和套路是不變的…只不過要向神牌表明不能用技能了」⟨001⟩. Nobody else hears it."""
        t = self.t
        for q in t.by_role.get(step.role, ()):
            if q.alive and q.disabled and q.faction == "good":  # only the elder penalty disables a good player
                self.powerless_woken(q)
                self.tell_no_power(q)

    def powerless_woken(self, q: Player) -> None:
        """Hook: what a powerless god is still shown when called (the facetoface witch, her victim)."""

    def step_holder(self, step: Step) -> Player | None:
        """The living player who acts at this step, or None: the step is pretended."""
        for p in self.t.by_role.get(step.role, ()):
            if p.alive and not p.disabled:
                return p
        return None


def excluding(seats: list[int], banned: Iterable[int | None], rule: str) -> tuple[list[int], dict[int, str]]:
    """Legal targets without the ``banned`` ones, and the rule that bans each (for error messages)."""
    out = set(banned)
    return [s for s in seats if s not in out], {s: rule for s in seats if s in out}


# -- the night steps of each role ------------------------------------------------
def thief(m: NightSteps, p: Player | None) -> Gen:
    """Take one of the two bottom cards (RULES.md §2.1 thief)."""
    t = m.t
    if p is None or p.dealt != "thief":
        return
    cards = list(t.center)
    t.tell(p.seat, "bottom_cards", seat=p.seat, cards=cards)
    wolves = [i + 1 for i, c in enumerate(cards) if m.is_wolf_card(c)]
    legal = wolves if wolves else [1, 2]
    forced = bool(wolves) or t.opts.thief_must_swap
    d = Choice(p.seat, "take", "card", legal, optional=not forced,
               why="take a bottom card" + (" (a wolf card must be taken)" if wolves else ""))
    if wolves and len(wolves) < 2:
        d.why += f"; card {3 - wolves[0]} is not a wolf"
    (card,) = yield [d]
    if card is None:
        if t.ruleset == "wechat":  # a wechat thief who keeps his card plays as a villager
            t.become(p, "villager")
        t.log("thief_keeps", seat=p.seat)
        return
    taken = cards[card - 1]
    t.become(p, taken)
    t.tell(p.seat, "took", seat=p.seat, card=card, role=taken)


def cupid(m: NightSteps, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        return
    targets = [q.seat for q in t.players if q.alive and (t.opts.cupid_self_link or q.seat != p.seat)
               and q.role != "pure_villager"]
    (pair,) = yield [Pair(p.seat, "link", targets, optional=False, why="link two players as lovers")]
    a, b = sorted(pair)
    t.lovers = (a, b)
    t.cupid = p.seat
    wolves = [s for s in (a, b) if t.p(s).wolf]
    t.lovers_mixed = len(wolves) == 1
    t.lovers_double_wolf = len(wolves) == 2
    t.log("lovers_linked", seats=[a, b], mixed=t.lovers_mixed)
    t.tell(p.seat, "linked", seat=p.seat, lovers=[a, b])
    m.lovers_formed()


def lovers(m: NightSteps, p: Player | None) -> None:
    """The lovers open their eyes and learn each other's seat, not the role."""
    t = m.t
    if t.lovers:
        a, b = t.lovers
        t.tell_group([a, b], "lovers", seats=[a, b])


def wild_child(m: NightSteps, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        return
    targets = [q.seat for q in t.living() if q.seat != p.seat]
    (model,) = yield [Target(p.seat, "model", targets, optional=False, why="choose your model")]
    t.model = model
    t.tell(p.seat, "model", seat=p.seat, target=model)


def guard(m: NightSteps, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        t.guard_last = None
        return
    targets, forbidden = guard_targets(t)
    (g,) = yield [Target(p.seat, "guard", targets, forbidden=forbidden, why="protect one player from the wolves")]
    protect(m, p, g)


def guard_targets(t: DayNightTable) -> tuple[list[int], dict[int, str]]:
    """Whom the guard may protect tonight, by the option ``guard_rule`` (every ruleset's guard)."""
    living = [q.seat for q in t.living()]
    rule = t.opts.guard_rule
    if rule == "no_consecutive":
        return excluding(living, [t.guard_last],
                         "the guard may not protect the same player two nights running (guard_rule=no_consecutive)")
    if rule == "once_per_target":
        return excluding(living, t.guarded_ever,
                         "each player can be the guard's target only once per game (guard_rule=once_per_target)")
    return living, {}


def protect(m: NightSteps, p: Player, g: int | None) -> None:
    """The guard's choice, remembered for ``guard_targets`` (skipping a night clears "last night")."""
    t = m.t
    m.n.guard = g
    t.guard_last = g
    if g is not None:
        t.guarded_ever.add(g)
        t.log("guarded", seat=p.seat, target=g)


def magician(m: NightSteps, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        return
    targets = [q.seat for q in t.living() if not q.swapped]
    (pair,) = yield [Pair(p.seat, "swap", targets, why="swap two players' numbers for tonight")]
    if pair:
        a, b = pair
        t.p(a).swapped = t.p(b).swapped = True
        m.n.swap = (a, b)
        t.log("swapped", seat=p.seat, targets=[a, b])


def dreamcatcher(m: NightSteps, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        t.dream_last = None
        t.dreamer = None
        return
    targets = [q.seat for q in t.living() if q.seat != p.seat]
    (d,) = yield [Target(p.seat, "dream", targets, optional=False, why="choose tonight's dreamer")]
    m.n.dream = d
    t.log("dreamed", seat=p.seat, target=d)


def knife_voices(m: NightSteps, members: list[Player]) -> list[int]:
    """Who names tonight's kill: the pack, and a wolf who self-destructed today where the table lets him
    (option ``self_destructed_wolf_votes_knife``, 000 「自爆的狼人可進行指刀行動」; set by ``self_destruct``)."""
    voices = [q.seat for q in members]
    voice = m.t.knife_voice
    if voice is not None and voice not in voices:
        voices.append(voice)
    return voices


def pack(m: NightSteps, p: Player | None) -> Gen:
    """The pack wakes together and names one victim, or none (RULES.md §2.1 werewolf)."""
    t = m.t
    members = t.pack()
    if m.n.k == 1 and members:
        special = [q.seat for q in members if q.role != "werewolf"]
        t.tell_group([q.seat for q in members], "pack", seats=[q.seat for q in members], special=special)
    voices = knife_voices(m, members)
    if not voices:
        return
    forbidden: dict[int, str] = {}
    targets = []
    for q in t.living():
        if q.role == "spirit_knight":
            forbidden[q.seat] = "the spirit knight cannot be knifed"
        else:
            targets.append(q.seat)
    names = yield [Target(s, "kill", targets, forbidden=forbidden, why="the pack chooses tonight's victim")
                   for s in voices]
    named = {x for x in names if x is not None}
    m.n.wolf = named.pop() if len(named) == 1 else None
    t.tell_group(voices, "pack_choice", target=m.n.wolf)


def wolf_beauty(m: NightSteps, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        t.charm_last = None
        return
    pack_seats = {q.seat for q in t.pack()}
    targets, forbidden = excluding([q.seat for q in t.living() if q.seat != p.seat and q.seat not in pack_seats],
                                   [t.charm_last], "the wolf beauty may not charm the same player two nights running")
    (c,) = yield [Target(p.seat, "charm", targets, forbidden=forbidden, why="charm one player")]
    m.n.charm = c
    t.charm_last = c
    t.charmed = m.n.eff(c)
    if c is not None:
        t.log("charmed", seat=p.seat, target=c)


def witch(m: NightSteps, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        return
    informed, victim = m.witch_shown(p)
    if informed:
        t.tell(p.seat, "victim", seat=p.seat, target=victim)
    can_save = t.antidote and victim is not None and m.witch_may_save(p, victim)
    can_poison = t.poison
    poison_targets = [q.seat for q in t.living() if q.seat != p.seat]
    save_d = Flag(p.seat, "save", why=f"save seat {victim}")
    poison_d = Target(p.seat, "poison", poison_targets, forbidden={p.seat: "the witch may not poison herself"},
                      why="poison one player")
    asks: list[Decision] = ([save_d] if can_save else []) + ([poison_d] if can_poison else [])
    used = yield from ask_potions(m, p, asks)
    use_potions(m, p, used, victim)


def ask_potions(m: NightSteps, p: Player, asks: list[Decision]) -> Generator[list[Decision], list[Any], list[Any]]:
    """Ask for the potions on offer: one choice where only one potion a night is allowed."""
    if not asks:
        return []
    if m.t.opts.witch_one_potion_per_night and len(asks) > 1:
        (v,) = yield [AnyOf(p.seat, asks, conflict="the witch may use only one potion per night",
                            why="use the antidote, the poison, or nothing")]
        return [v] if v is not None else []
    vals = yield asks
    return [(d.act, v) for d, v in zip(asks, vals) if v is not None and v is not False]


def use_potions(m: NightSteps, p: Player, used: list[tuple[str, Any]], victim: int | None) -> None:
    """Spend the potions: the antidote on ``victim`` (a yes) or on the seat named, the poison on its target."""
    t, n = m.t, m.n
    spent = t.opts.witch_potions_single_use  # else each potion serves again on a later night
    for act, v in used:
        if act == "save":
            n.save = victim if v is True else v
            t.antidote = not spent
        else:
            n.poison = v
            t.poison = not spent
    t.log("potions", seat=p.seat, save=n.save, poison=n.poison)
    # The witch is told what she did (a player at the table sees the judge's nod): hers alone.
    t.tell(p.seat, "witch_used", seat=p.seat, save=n.save, poison=n.poison)


def seer(m: NightSteps, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        return
    targets = [q.seat for q in t.living() if q.seat != p.seat]
    (c,) = yield [Target(p.seat, "check", targets, forbidden={p.seat: "the seer may not check himself"},
                         why="check one player")]
    if c is None:
        return
    m.n.check = c
    target = t.p(m.n.eff(c) or c)
    t.emit("check", frozenset({p.seat}), seat=p.seat, target=c, result=m.seer_result(target))
    m.note_bent_check(c, target)


def silencer(m: NightSteps, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        t.silence_last = None
        return
    targets, forbidden = excluding([q.seat for q in t.living()], [t.silence_last],
                                   "the silencer may not silence the same player two nights running")
    (s,) = yield [Target(p.seat, "silence", targets, forbidden=forbidden, why="silence one player tomorrow")]
    m.n.silence = s
    t.silence_last = s
    if s is not None:
        e = m.n.eff(s)
        assert e is not None
        t.p(e).silenced_day = m.n.k
        t.log("silenced", seat=p.seat, target=s)


def hunter_signal(m: NightSteps, _: Player | None) -> None:
    """Step P: the hunter is told whether he could shoot."""
    _shooter_signal(m, "hunter")


def wolf_king_signal(m: NightSteps, _: Player | None) -> None:
    """Step U: the wolf king is told whether he could shoot."""
    _shooter_signal(m, "wolf_king")


def _shooter_signal(m: NightSteps, role: str) -> None:
    t = m.t
    for q in t.by_role.get(role, ()):
        # A holder dying tonight is still woken and told "no" or "yes".
        if q.alive or q.pending:
            # A living shooter can shoot unless the elder penalty took his power (001: 「獵人同理」).
            t.tell(q.seat, "can_shoot", seat=q.seat, value=not q.disabled and (q.alive or m.can_shoot(q)),
                   rule="shooter_signal")


def setup_done(m: NightSteps, _: Player | None) -> None:
    """Night-1 setup is over (thief, lovers, models): fix what counts from now on."""
    m.after_first_night()


def resolve(m: NightSteps, _: Player | None) -> Gen | None:
    """The night's deaths (the ruleset's resolution; a generator where it may ask someone)."""
    return m.resolve_night()
