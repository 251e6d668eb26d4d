"""The role catalogue (RULES.md §2.0): ids, starting faction, 屠邊 category.

Ids are global; what a role does depends on the ruleset and lives with that
ruleset's rules. Names in each language come from the message catalogues.
"""

from __future__ import annotations

from typing import NamedTuple


class Role(NamedTuple):
    id: str
    faction: str  # wolf, good, third, piper, white_wolf, prejudiced, tanner, none
    category: str  # god, villager, wolf, none (the 屠邊 class)
    families: str  # C F W w(expansion) x(set aside) O N
    pack: bool = False  # wakes and kills with the pack (classic/facetoface/wechat)


ROLES: dict[str, Role] = {r.id: r for r in (
    Role("werewolf", "wolf", "wolf", "CFWON", pack=True),
    Role("hidden_wolf", "wolf", "wolf", "C"),
    Role("wolf_king", "wolf", "wolf", "C", pack=True),
    Role("white_wolf_king", "wolf", "wolf", "C", pack=True),
    Role("wolf_beauty", "wolf", "wolf", "C", pack=True),
    Role("spirit_knight", "wolf", "wolf", "C", pack=True),
    Role("seer", "good", "god", "CFWON"),
    Role("witch", "good", "god", "CFW"),
    Role("hunter", "good", "god", "CFWO"),
    Role("idiot", "good", "god", "CFW"),
    Role("guard", "good", "god", "CFW"),
    Role("knight", "good", "god", "C"),
    Role("magician", "good", "god", "C"),
    Role("dreamcatcher", "good", "god", "C"),
    Role("bear_tamer", "good", "god", "Cw"),
    Role("silencer", "good", "god", "C"),
    Role("elder", "good", "god", "FW"),
    Role("villager", "good", "villager", "CFWON"),
    Role("old_rogue", "good", "villager", "C"),
    Role("cupid", "third", "none", "CFW"),
    Role("wild_child", "good", "none", "Cw"),
    Role("thief", "third", "none", "CFW"),
    Role("bomber", "third", "none", "C"),
    Role("piper", "piper", "none", "W"),
    Role("scapegoat", "good", "none", "w"),
    Role("raven", "good", "none", "w"),
    Role("pure_villager", "good", "villager", "w"),
    Role("sisters", "good", "none", "w"),
    Role("brothers", "good", "none", "w"),
    Role("fox", "good", "none", "w"),
    Role("stuttering_judge", "good", "none", "w"),
    Role("gypsy", "good", "none", "x"),
    Role("rusty_knight", "good", "none", "w"),
    Role("big_bad_wolf", "wolf", "wolf", "w", pack=True),
    Role("wolf_father", "wolf", "wolf", "w", pack=True),
    Role("white_wolf", "white_wolf", "wolf", "w", pack=True),
    Role("half_blood", "none", "none", "w"),
    Role("prejudiced", "prejudiced", "none", "w"),
    Role("devoted_servant", "good", "none", "w"),
    Role("wolf_hound", "good", "none", "x"),
    Role("angel", "good", "none", "x"),
    Role("shapeshifter", "good", "none", "x"),
    Role("doppelganger", "none", "none", "O"),
    Role("minion", "wolf", "none", "O"),
    Role("mason", "good", "none", "O"),
    Role("robber", "good", "none", "ON"),
    Role("troublemaker", "good", "none", "O"),
    Role("drunk", "good", "none", "O"),
    Role("insomniac", "good", "none", "O"),
    Role("tanner", "tanner", "none", "O"),
)}


def role(role_id: str) -> Role:
    return ROLES[role_id]


# The roles each ruleset offers (RULES.md §2.2).
CLASSIC_ROLES = frozenset(r.id for r in ROLES.values() if "C" in r.families)
FACETOFACE_ROLES = frozenset(r.id for r in ROLES.values() if "F" in r.families)
