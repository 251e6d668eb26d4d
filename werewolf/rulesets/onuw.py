"""`onuw`: One Night Ultimate Werewolf (rule book 003; RULES.md §1.4, §2.4, §3.5, §4.4, §5.4)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from werewolf.core.errors import SetupError
from werewolf.rulesets import onenight_common as C
from werewolf.rulesets.onenight_common import Gen, OneNightRuleset, OneNightTable, Result, Step

# The 16 cards of the box; 003 prints 「Tanner(×3)」, a misprint for villager ×3.
BOX = {"doppelganger": 1, "werewolf": 2, "minion": 1, "mason": 2, "seer": 1, "robber": 1, "troublemaker": 1,
       "drunk": 1, "insomniac": 1, "villager": 3, "tanner": 1, "hunter": 1}
# Every role of the box in one deck (10 players; the doppelganger can copy each): the bots' tests and
# the identical-games checkers play it.
EVERY_ROLE_DECK = ("doppelganger", "werewolf", "werewolf", "minion", "mason", "mason", "seer", "robber",
                   "troublemaker", "drunk", "insomniac", "tanner", "hunter")


def seer(t: OneNightTable, seat: int) -> Gen:
    """One other player's card, or any 2 of the 3 centre cards."""
    return C.look(t, seat, 2)


# What each waking role does, for the seat that acts as it.
POWERS: dict[str, Callable[[OneNightTable, int], Gen | None]] = {
    "minion": C.thumbs, "seer": seer, "robber": C.rob, "troublemaker": C.trouble, "drunk": C.drink,
    "insomniac": C.wake_up,
}
# A doppelganger who copies one of these uses its power at once, at step B, and
# never wakes again (「在自家被喚醒階段後，立刻執行該角色特殊能力」; the minion copy
# 「不必閉眼」 and sees the thumbs). Werewolf and mason copies wake with the
# originals; an insomniac copy wakes after the insomniac; the rest never wake.
AT_COPY = ("seer", "robber", "troublemaker", "drunk", "minion")


def doppelganger(t: OneNightTable) -> Gen:
    for s in t.dealt_as("doppelganger"):
        yield from C.copy(t, s)
        if t.copied in AT_COPY:
            act = POWERS[t.copied](t, s)
            if act is not None:
                yield from act


def werewolves(t: OneNightTable) -> Gen:
    wolves = C.werewolves_meet(t)  # a doppel-werewolf counts for the lone-wolf test
    if len(wolves) == 1:
        yield from C.peek(t, wolves[0])


def doppel_insomniac(t: OneNightTable) -> None:
    if t.copied == "insomniac":
        for s in t.dealt_as("doppelganger"):
            C.wake_up(t, s)


# The night, steps B–J of 003 (A is "everyone closes their eyes", K is dawn). A role that acts
# by its power acts by the card dealt (its doppelganger copy acted at B).
NIGHT_ORDER = (
    Step("B", "doppelganger", doppelganger),
    Step("C", "werewolf", werewolves),
    Step("D", "minion", power=POWERS["minion"]),
    Step("E", "mason", C.masons_meet),
    Step("F", "seer", power=POWERS["seer"]),
    Step("G", "robber", power=POWERS["robber"]),
    Step("H", "troublemaker", power=POWERS["troublemaker"]),
    Step("I", "drunk", power=POWERS["drunk"]),
    Step("J", "insomniac", power=POWERS["insomniac"]),
    # Called whenever the deck holds both cards, so nobody learns what was copied.
    Step("J", "doppelganger", doppel_insomniac, needs=("insomniac",), copied="insomniac"),
)

BASE5 = ("werewolf", "werewolf", "seer", "troublemaker", "robber", "villager", "villager", "villager")
# 3–5 players: 003's table; 6–10 players: RULES.md §5.4 (P), one role more per player.
EXTRAS = ("insomniac", "drunk", "hunter", "mason", "mason", "minion")


def standard_deck(n: int) -> tuple[str, ...]:
    if n <= 5:
        return BASE5[:n + 3]
    extra = {6: EXTRAS[:1], 7: EXTRAS[:2], 8: EXTRAS[:3], 9: EXTRAS[:2] + EXTRAS[3:5], 10: EXTRAS[:2] + EXTRAS[3:]}
    return BASE5 + extra[n]


def deck_rules(counts: Counter[str]) -> None:
    if counts["mason"] == 1:
        raise SetupError("masons are used only as a pair (「只有在使用2張共濟會成員時才能使用此角色」)")
    # 「只有在使用強盜和搗蛋鬼時才能使用此角色」: the original rulebook says "and/or", and either one gives the
    # insomniac a card that may have changed (RULES.md §5.4).
    if counts["insomniac"] and not (counts["robber"] or counts["troublemaker"]):
        raise SetupError("the insomniac is used only with the robber or the troublemaker, or both "
                         "(「只有在使用強盜和搗蛋鬼時才能使用此角色」)")


def winners(t: OneNightTable) -> Result:
    """RULES.md §4.4, by the cards at dawn; the dead are the executed and the shot."""
    wolves: list[int] = []
    minions: list[int] = []
    tanners: list[int] = []
    village: list[int] = []
    side = {"werewolf": wolves, "minion": minions, "tanner": tanners}
    for s, role in zip(t.seats, t.dawn_roles()):
        side.get(role, village).append(s)
    dead = set(t.dead)
    a_wolf_died = not dead.isdisjoint(wolves)
    dead_tanners = [s for s in tanners if s in dead]
    teams: list[str] = []
    seats: list[int] = []
    if village and (a_wolf_died if wolves else not dead):
        teams.append("village")
        seats += village
    if wolves:
        # 「至少有1位以上狼人，且無任何狼人死亡」, and a dead tanner takes the win from them.
        if not a_wolf_died and not dead_tanners:
            teams.append("wolves")
            seats += wolves + minions
    elif minions and not dead.issubset(minions):
        # 「若無任何狼人存在，只要1位非內奸角色死亡，由內奸贏得勝利」
        teams.append("wolves")
        seats += minions
    if dead_tanners:
        teams.append("tanner")
        seats += dead_tanners
    return teams, sorted(seats)


RULESET = OneNightRuleset(
    name="onuw",
    box=BOX,
    min_players=3,
    max_players=10,
    center_size=lambda n: 3,
    standard_deck=standard_deck,
    night_order=NIGHT_ORDER,
    deck_rules=deck_rules,
    spared=C.top_one_spares,
    winners=winners,
    default_players=5,
)
