"""The night steps of the wechat roles (rule book 002; RULES.md §2.1, §2.3, §3.4).

Shared roles (seer, cupid, thief, wild child) use the day-and-night steps in
``daynight.night``; what differs in wechat lives here.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from werewolf.core.decisions import Choice, Decision, Flag, Move, Target, wrong_act
from werewolf.rulesets.daynight.night import ask_potions, excluding, guard_targets, knife_voices, protect, use_potions
from werewolf.rulesets.daynight.state import Player
from werewolf.rulesets.wechat_moderator import WechatModerator

Gen = Generator[list[Decision], list[Any], Any]


class Save(Target):
    """The wechat antidote: ``{"act": "save"}`` saves the pack's victim; a ``target`` saves anyone attacked."""

    __slots__ = ("victim",)

    def __init__(self, seat: int, targets: list[int], victim: int | None,
                 forbidden: dict[int, str] | None = None) -> None:
        super().__init__(seat, "save", targets, forbidden=forbidden, why="use the antidote")
        self.victim = victim

    def check(self, move: Move) -> str | None:
        wrong = wrong_act(self, move)
        if wrong:
            return wrong
        if "target" not in move and "value" not in move:
            if self.victim is None:
                return "the pack attacked nobody: name a target"
            if self.victim not in self.targets:
                return self.forbidden.get(self.victim, f"seat {self.victim} cannot be saved")
            return None
        if "value" in move:
            return None if move["value"] is False and set(move) <= {"act", "seat", "value"} else "bad value"
        return super().check(move)

    def value(self, move: Move) -> int | None:
        if "value" in move:
            return None
        if "target" not in move:
            return self.victim
        return super().value(move)




def guard(m: WechatModerator, p: Player | None) -> Gen:
    """<守護> once per target per game; <隔音> against the piper, also once per target."""
    t, w = m.t, m.w
    if p is None:
        t.guard_last = None
        return
    living = [q.seat for q in t.living()]
    targets, forbidden = guard_targets(t)
    asks: list[Decision] = [Target(p.seat, "guard", targets, forbidden=forbidden,
                                   why="protect one player from every kill tonight")]
    if "piper" in t.in_deck:
        targets, forbidden = excluding(living, w.shielded_ever, "each player can be soundproofed only once per game")
        asks.append(Target(p.seat, "shield", targets, forbidden=forbidden,
                           why="soundproof one player against the piper"))
    vals = yield asks
    protect(m, p, vals[0])
    if len(vals) > 1 and vals[1] is not None:
        m.n.shield = vals[1]
        w.shielded_ever.add(vals[1])
        t.log("shielded", seat=p.seat, target=vals[1])


def piper(m: WechatModerator, p: Player | None) -> Gen:
    t, w = m.t, m.w
    if p is None:
        return
    targets = [q.seat for q in t.living() if q.seat != p.seat]
    (x,) = yield [Target(p.seat, "enchant", targets, forbidden={p.seat: "the piper cannot charm himself"},
                         why="charm one player")]
    if x is None:
        return
    if t.lover_of(x) is not None or x == m.n.shield:
        t.log("ruling", rule="enchant_fails", seat=x)
        return
    if x in w.enchanted:
        return  # already charmed: no effect
    w.enchanted.add(x)
    w.newly_enchanted.append(x)
    t.tell(p.seat, "enchanted", seat=p.seat, target=x)
    m.check_win()  # a charm can decide the game at once (RULES.md §4.3)


def pack(m: WechatModerator, p: Player | None) -> Gen:
    """The pack's kill; the wolf father may turn it into an infection."""
    t, w = m.t, m.w
    members = m.wechat_pack()
    if m.n.k == 1 and members:
        t.tell_group([q.seat for q in members], "pack", seats=[q.seat for q in members], special=[])
    voices = knife_voices(m, members)
    if not voices:
        return
    targets = [q.seat for q in t.living()]
    names = yield [Target(s, "kill", targets, why="the pack chooses tonight's victim") for s in voices]
    named = {x for x in names if x is not None}
    m.n.wolf = named.pop() if len(named) == 1 else None
    t.tell_group(voices, "pack_choice", target=m.n.wolf)
    father = t.holder("wolf_father")
    if (father is not None and father.alive and not father.disabled and w.infections_left > 0
            and m.n.wolf is not None and father in members):
        (inf,) = yield [Flag(father.seat, "infect", why=f"infect seat {m.n.wolf} instead of killing")]
        if inf:
            m.n.infect = True
            w.infections_left -= 1
            t.log("infect", seat=father.seat, target=m.n.wolf)
            m.infect(t.p(m.n.wolf))


def big_bad_wolf(m: WechatModerator, p: Player | None) -> Gen:
    t, w = m.t, m.w
    if p is None or not w.bbw_active:
        return
    targets = [q.seat for q in t.living()]
    (x,) = yield [Target(p.seat, "extra_kill", targets, why="kill one more player")]
    if x is not None:
        m.n.extra_kills.append(("big_bad_wolf", x))


def white_wolf(m: WechatModerator, p: Player | None) -> Gen:
    t = m.t
    rule = t.opts.white_wolf_nights
    if p is None or not (rule == "every" or (m.n.k % 2 == 0) == (rule == "even")):
        return
    targets = [q.seat for q in t.living()]
    (x,) = yield [Target(p.seat, "extra_kill", targets, why="your solo kill")]
    if x is not None:
        m.n.extra_kills.append(("white_wolf", x))


def widow(m: WechatModerator, _: Player | None) -> Gen:
    """<寡婦刀>: the wolf of a black-lovers pair kills each night after the wolves' defeat."""
    t, w = m.t, m.w
    s = w.widow_seat
    if not w.widow_active or s is None or not t.p(s).alive:
        return
    targets = [x.seat for x in t.living() if x.seat != s]
    (x,) = yield [Target(s, "widow_kill", targets, why="the widow's knife")]
    if x is not None:
        m.n.extra_kills.append(("widow", x))


def fox(m: WechatModerator, p: Player | None) -> Gen:
    t, w = m.t, m.w
    if p is None or not w.fox_active:
        return
    targets = [q.seat for q in t.living()]
    (x,) = yield [Target(p.seat, "sniff", targets, why="is there a wolf here or beside?")]
    if x is None:
        return
    near = {x, t.left(x), t.right(x)} - {None}
    found = any(m.bear_smells(t.p(s)) for s in near if s is not None)
    t.tell(p.seat, "sniff", seat=p.seat, target=x, result=found)
    if not found:
        w.fox_active = False


def witch(m: WechatModerator, p: Player | None) -> Gen:
    """<通靈> while the antidote lasts; <救藥> on anyone; <毒藥> (not herself). The options limit them as in
    every ruleset: one a night, no self-save (RULES.md A-41)."""
    t, n = m.t, m.n
    if p is None:
        return
    attacked = m.attacked()
    if t.antidote or t.opts.witch_informed_after_antidote:  # 「<救藥>發動后，女巫失去技能<通靈>」 by default
        t.tell(p.seat, "victim", seat=p.seat, target=n.wolf if not n.infect else None, targets=attacked)
    asks: list[Decision] = []
    if t.antidote:
        refused = m.self_save_refused()
        targets, forbidden = excluding([q.seat for q in t.living()], [p.seat] if refused else [], refused or "")
        asks.append(Save(p.seat, targets, None if n.infect else n.wolf, forbidden))
    if t.poison:
        asks.append(Target(p.seat, "poison", [q.seat for q in t.living() if q.seat != p.seat],
                           forbidden={p.seat: "the witch may not poison herself"}, why="poison one player"))
    used = yield from ask_potions(m, p, asks)
    use_potions(m, p, used, None)


def raven(m: WechatModerator, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        return
    (x,) = yield [Target(p.seat, "curse", [q.seat for q in t.living()], why="two more votes against one player")]
    m.n.curse = x
    if x is not None:
        t.log("cursed", seat=p.seat, target=x)


def half_blood(m: WechatModerator, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        return
    targets = [q.seat for q in t.living() if q.seat != p.seat]
    (x,) = yield [Target(p.seat, "support", targets, optional=False, why="choose the player you support")]
    m.w.supports = x
    t.tell(p.seat, "supports", seat=p.seat, target=x)


def prejudiced(m: WechatModerator, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        return
    (clan,) = yield [Choice(p.seat, "oppose", "clan", ["A", "B"], why="choose the clan you oppose")]
    m.w.opposed = clan
    t.log("opposes", seat=p.seat, clan=clan)


def wolf_hound(m: WechatModerator, p: Player | None) -> Gen:
    t = m.t
    if p is None:
        return
    (side,) = yield [Choice(p.seat, "side", "side", ["wolves", "village"], why="choose your side for good")]
    p.faction = "wolf" if side == "wolves" else "good"
    t.tell(p.seat, "side", seat=p.seat, side=side)


def siblings(m: WechatModerator, p: Player | None) -> Gen:
    """Single sisters (or brothers) open their eyes and learn each other."""
    t = m.t
    if p is None:
        return
    group = [q.seat for q in t.players if q.role == p.role and t.lover_of(q.seat) is None]
    if len(group) > 1:
        t.tell_group(group, "siblings", role=p.role, seats=group)
    return
    yield
