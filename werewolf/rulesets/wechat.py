"""`wechat`: 微信狼人殺 (rule book 002; RULES.md §1.3, §2.3, §3.4, §4.3, §5.3).

Factions, defeat before victory, the piper, black lovers, and the expansion
roles, each enabled per game with the option ``expansions``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from werewolf.core.decisions import Decision
from werewolf.core.errors import SetupError
from werewolf.roles import ROLES
from werewolf.rulesets import wechat_roles as R
from werewolf.rulesets.classic import COUNTS
from werewolf.rulesets.daynight import night as N
from werewolf.rulesets.daynight.night import Step
from werewolf.rulesets.daynight.ruleset import MULTI, DayNightRuleset
from werewolf.rulesets.options import DayNightOptions
from werewolf.rulesets.wechat_moderator import GROUPS, WechatModerator, WechatTable

Gen = Generator[list[Decision], list[Any], Any]

BASE_ROLES = frozenset({"werewolf", "seer", "witch", "elder", "guard", "hunter", "idiot", "villager", "piper",
                        "cupid", "thief", "half_blood"})
EXPANSIONS = frozenset({"scapegoat", "raven", "pure_villager", "sisters", "brothers", "fox", "stuttering_judge",
                        "rusty_knight", "bear_tamer", "big_bad_wolf", "wolf_father", "white_wolf", "half_blood",
                        "prejudiced", "devoted_servant", "wild_child", "thief", "wolf_hound", "angel"})
NOT_OFFERED = {
    "gypsy": "the gypsy needs the new-moon event cards, which the rule book does not define",
    "shapeshifter": "the rule book sets the shapeshifter aside (「暫時不考慮加入游戲的卡牌」) "
                    "and gives no ability cards",
}
WECHAT_ROLES = BASE_ROLES | EXPANSIONS
# Two decks that hold every expansion role between them (the tests and the identical-games checkers play them).
EXPANSION_DECK_A = ("werewolf", "werewolf", "wolf_father", "big_bad_wolf", "seer", "witch", "guard", "piper",
                    "scapegoat", "raven", "fox", "villager")
EXPANSION_DECK_B = ("werewolf", "werewolf", "white_wolf", "seer", "witch", "hunter", "idiot", "elder",
                    "stuttering_judge", "devoted_servant", "half_blood", "prejudiced", "cupid", "villager", "villager",
                    "wild_child", "rusty_knight", "bear_tamer", "pure_villager", "sisters", "sisters", "brothers",
                    "brothers", "brothers", "thief")


def expansion_options(deck: tuple[str, ...]) -> dict[str, list[str]]:
    """The options that admit ``deck``'s expansion roles (the thief's included)."""
    return {"expansions": sorted({r for r in deck if r in EXPANSIONS and r not in BASE_ROLES} | {"thief"} & set(deck))}


NIGHT_ORDER = (
    Step("thief", "thief", N.thief, first_night_only=True),
    Step("cupid", "cupid", N.cupid, first_night_only=True),
    Step("lovers", "cupid", N.lovers, first_night_only=True),
    Step("half_blood", "half_blood", R.half_blood, first_night_only=True),
    Step("wild_child", "wild_child", N.wild_child, first_night_only=True),
    Step("prejudiced", "prejudiced", R.prejudiced, first_night_only=True),
    Step("wolf_hound", "wolf_hound", R.wolf_hound, first_night_only=True),
    Step("stuttering_judge", "stuttering_judge", None, first_night_only=True),
    Step("sisters", "sisters", R.siblings, first_night_only=True),
    Step("brothers", "brothers", R.siblings, first_night_only=True),
    Step("", "", N.setup_done, first_night_only=True),
    Step("5.1", "guard", R.guard),
    Step("5.2", "piper", R.piper),
    Step("5.3", "werewolf", R.pack),
    Step("big_bad_wolf", "big_bad_wolf", R.big_bad_wolf),
    Step("white_wolf", "white_wolf", R.white_wolf),
    # Called in every game with cupid, widow or not, so that the night's timing tells nothing of the lovers.
    Step("5.4", "cupid", R.widow),
    Step("5.5", "seer", N.seer),
    Step("fox", "fox", R.fox),
    Step("5.6", "witch", R.witch),
    Step("raven", "raven", R.raven),
    Step("", "", N.resolve),
)


class WechatRuleset(DayNightRuleset):
    def may_repeat(self, role: str) -> bool:
        return role in MULTI or role in GROUPS  # the sisters and the brothers: their group's size, checked below

    def check_deck(self, cards: list[str], opts: DayNightOptions,
                   dealt: tuple[list[str], list[str]] | None = None) -> None:
        for r in cards:
            if r in NOT_OFFERED:
                raise SetupError(f"role {r!r} is not offered in wechat: {NOT_OFFERED[r]}")
            if r in ROLES and r in EXPANSIONS and r not in BASE_ROLES and r not in opts.expansions:
                raise SetupError(f"role {r!r} is a wechat expansion: enable it with the option "
                                 f"\"expansions\": [\"{r}\"]")
        unknown = set(opts.expansions) - EXPANSIONS
        if unknown:
            raise SetupError(f"unknown wechat expansion(s): {', '.join(sorted(unknown))}")
        for r, size in GROUPS.items():
            if r in cards and cards.count(r) != size:
                raise SetupError(f"the {r} come as a group of exactly {size}")
        super().check_deck(cards, opts, dealt)
        players = len(cards) - (2 if "thief" in cards else 0)
        if opts.clans is not None and sorted(s for clan in opts.clans for s in clan) != list(range(1, players + 1)):
            raise SetupError(f"option 'clans' must split the seats 1 to {players} between the two clans")


def standard_deck(n: int) -> tuple[str, ...]:
    wolves, gods, villagers = COUNTS[n]
    return ("werewolf",) * wolves + ("seer", "witch", "hunter", "idiot", "guard", "elder")[:gods] + \
        ("villager",) * villagers


RULESET = WechatRuleset(
    name="wechat",
    roles=WECHAT_ROLES,
    night_order=NIGHT_ORDER,
    deck_table={},
    standard_deck=standard_deck,
    min_players=8,
    max_players=18,
    moderator=WechatModerator,
    table=WechatTable,
    seat_limit=30,
)
