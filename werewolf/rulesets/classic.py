"""`classic`: 狼人殺, the 2017 boxed edition (rule book 000; RULES.md §1.1, §3.1, §3.2, §4.1, §5.1)."""

from __future__ import annotations

from werewolf.roles import CLASSIC_ROLES
from werewolf.rulesets.daynight import night as N
from werewolf.rulesets.daynight.night import Step
from werewolf.rulesets.daynight.ruleset import DayNightRuleset

# The judge's night script, steps A–V (「夜晚須跳過的步驟:2.(1)A.B.C.D.E.K.Q.R.S.T.」 after Night 1).
# Step A ("night falls") is the night event itself; V (registration) opens the day.
NIGHT_ORDER = (
    Step("B", "thief", N.thief, first_night_only=True),
    Step("C", "cupid", N.cupid, first_night_only=True),
    Step("D", "cupid", N.lovers, first_night_only=True),
    Step("E", "wild_child", N.wild_child, first_night_only=True),
    Step("", "", N.setup_done, first_night_only=True),
    Step("F", "guard", N.guard),
    Step("G", "magician", N.magician),
    Step("H", "dreamcatcher", N.dreamcatcher),
    Step("I", "werewolf", N.pack),
    Step("J", "wolf_beauty", N.wolf_beauty),
    Step("K", "hidden_wolf", None, first_night_only=True),
    Step("L", "witch", N.witch),
    Step("M", "seer", N.seer),
    Step("N", "bear_tamer", None),
    Step("O", "silencer", N.silencer),
    Step("", "", N.resolve),
    Step("P", "hunter", N.hunter_signal),
    Step("Q", "idiot", None, first_night_only=True),
    Step("R", "knight", None, first_night_only=True),
    Step("S", "old_rogue", None, first_night_only=True),
    Step("T", "bomber", None, first_night_only=True),
    Step("U", "wolf_king", N.wolf_king_signal),
)

# Standard decks (§5.1): wolves / gods / villagers per player count.
COUNTS = {8: (2, 3, 3), 9: (3, 3, 3), 10: (3, 3, 4), 11: (3, 4, 4), 12: (4, 4, 4), 13: (4, 4, 5),
          14: (4, 5, 5), 15: (5, 5, 5), 16: (5, 5, 6), 17: (5, 6, 6), 18: (6, 6, 6)}
GODS = ("seer", "witch", "hunter", "idiot", "guard", "knight")


def standard_deck(n: int) -> tuple[str, ...]:
    wolves, gods, villagers = COUNTS[n]
    return ("werewolf",) * wolves + GODS[:gods] + ("villager",) * villagers


def _deck(wolves: tuple[str, ...], gods: tuple[str, ...], villagers: tuple[str, ...],
          third: tuple[str, ...] = ()) -> tuple[str, ...]:
    return wolves + gods + villagers + third


W3, V4 = ("werewolf",) * 3, ("villager",) * 4
ADVANCED = {
    "c12_wild_child": _deck(W3, ("seer", "witch", "hunter", "idiot"), V4, ("wild_child",)),
    "c12_wolfking_guard": _deck(("wolf_king",) + W3, ("seer", "witch", "hunter", "guard"), V4),
    "c12_silencer_knight": _deck(W3 + ("werewolf",), ("seer", "witch", "silencer", "knight"), V4),
    "c12_wolfking_thief_cupid": _deck(("wolf_king", "werewolf", "werewolf"), ("seer", "witch", "hunter", "idiot"),
                                      ("villager",) * 5, ("cupid", "thief")),
    "c12_wwk_guard": _deck(("white_wolf_king",) + W3, ("seer", "witch", "hunter", "guard"), V4),
    "c12_bear_hiddenwolf": _deck(("hidden_wolf",) + W3, ("bear_tamer", "witch", "hunter", "idiot"), V4),
    "c12_beauty_rogue": _deck(("wolf_beauty",) + W3, ("seer", "witch", "hunter", "idiot"),
                              ("villager",) * 3 + ("old_rogue",)),
    "c12_bomber": _deck(W3 + ("werewolf",), ("seer", "witch", "hunter", "bomber"), V4),
    "c12_wolfking_dreamcatcher": _deck(("wolf_king",) + W3, ("seer", "witch", "hunter", "dreamcatcher"), V4),
    "c12_wolfking_magician": _deck(("wolf_king",) + W3, ("seer", "witch", "hunter", "magician"), V4),
    "c12_spirit_guard": _deck(("spirit_knight",) + W3, ("seer", "witch", "hunter", "guard"), V4),
    "c12_beauty_knight": _deck(("wolf_beauty",) + W3, ("seer", "witch", "knight", "guard"), V4),
    "c12_wwk_knight": _deck(("white_wolf_king",) + W3, ("seer", "witch", "knight", "guard"), V4),
}

RULESET = DayNightRuleset(
    name="classic",
    roles=CLASSIC_ROLES,
    night_order=NIGHT_ORDER,
    deck_table=ADVANCED,
    standard_deck=standard_deck,
    min_players=8,
    max_players=18,
    box={"werewolf": 6, "villager": 6},  # 000's card list: 「狼人 | 狼人 | 6」, 「平民 | 平民 | 6」
)
