"""`onenight`: One Night Werewolf, Moaideas (rule book 004; RULES.md §1.5, §2.4, §3.6, §4.5, §5.5)."""

from __future__ import annotations

from collections import Counter

from werewolf.rulesets import onenight_common as C
from werewolf.rulesets.onenight_common import Gen, OneNightRuleset, OneNightTable, Result, Step

# 「卡片8張(村人卡4張/狼人卡2張/占卜師1張/怪盜1張)」
BOX = {"villager": 4, "werewolf": 2, "seer": 1, "robber": 1}


def seer(t: OneNightTable, seat: int) -> Gen:
    """Another player's card, or the unchosen centre cards: both, or the one at 7 players."""
    return C.look(t, seat, len(t.center))


def werewolves(t: OneNightTable) -> None:
    # They only see each other: 「只有一名狼人的狀況，這時再閉上眼睛即可」, no peek.
    C.werewolves_meet(t)


# 「特殊身分會依照 占卜師 → 狼人 → 怪盜 的順序進行回合」; the seer and the robber act by the card dealt.
NIGHT_ORDER = (
    Step("1", "seer", power=seer),
    Step("2", "werewolf", werewolves),
    Step("3", "robber", power=C.rob),
)


def center_size(n: int) -> int:
    return min(n + 2, 8) - n


def standard_deck(n: int) -> tuple[str, ...]:
    """RULES.md §5.5 (P): werewolf ×2, seer, robber and villagers up to min(n + 2, 8) cards."""
    return ("werewolf", "werewolf", "seer", "robber") + ("villager",) * (min(n + 2, 8) - 4)


def deck_rules(counts: Counter[str]) -> None:
    """Nothing beyond the box and the size."""


def winners(t: OneNightTable) -> Result:
    """RULES.md §4.5, by the cards at dawn."""
    wolves: list[int] = []
    humans: list[int] = []
    for s, role in zip(t.seats, t.dawn_roles()):
        (wolves if role == "werewolf" else humans).append(s)
    executed = set(t.dead)
    if not executed.isdisjoint(wolves) or (not executed and not wolves):
        return ["village"], humans
    if wolves:
        # Nobody executed with a wolf at the table, or only humans executed.
        return ["wolves"], wolves
    return [], []  # humans executed and no werewolf among the players: nobody wins


RULESET = OneNightRuleset(
    name="onenight",
    box=BOX,
    min_players=3,
    max_players=7,
    center_size=center_size,
    standard_deck=standard_deck,
    night_order=NIGHT_ORDER,
    deck_rules=deck_rules,
    spared=C.one_each_spares,
    winners=winners,
    default_players=4,
)
