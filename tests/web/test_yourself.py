"""Option labels name the player's own seat as "yourself" (issue 15): the witch saving herself, a vote."""

from __future__ import annotations

import pytest

from werewolf.core.decisions import AnyOf, Flag, Target
from werewolf.core.events import Event
from werewolf.i18n import LANGS, t
from werewolf.web.text import option_label


@pytest.mark.parametrize("lang", LANGS)
def test_the_witch_is_offered_the_antidote_on_herself(lang: str) -> None:
    witch = AnyOf(2, [Flag(2, "save"), Target(2, "poison", [1, 3])], conflict="one potion")
    tonight = [Event("night", "night1", {}), Event("victim", "night1", {"seat": 2, "target": 2}, frozenset({2}))]
    label = option_label(witch, {"act": "save"}, lang, 2, tonight)
    assert label == t("option.save_target", lang, target=t("fmt.yourself", lang))
    assert t("fmt.seat", lang, n=2) not in label
    # Another victim is named by seat, as before.
    other = [tonight[0], Event("victim", "night1", {"seat": 2, "target": 5}, frozenset({2}))]
    assert option_label(witch, {"act": "save"}, lang, 2, other) == t("option.save_target", lang,
                                                                     target=t("fmt.seat", lang, n=5))


def test_a_vote_for_oneself_says_so() -> None:
    vote = Target(4, "vote", [1, 4, 6])
    assert option_label(vote, {"act": "vote", "target": 4}, "en", 4, []) == "Seat 4 (yourself)"
    assert option_label(vote, {"act": "vote", "target": 6}, "en", 4, []) == "Seat 6"
    assert option_label(vote, {"act": "vote", "target": 4}, "zh-Hant", 4, []) == "4號（自己）"
