"""The witch is offered her own antidote only where ``witch_self_save`` allows it (RULES.md §1.6 #14, A-5, A-41).

What a player (the web app, a bot) may do is what the pending decision's ``options()`` list: a forbidden
self-save must not be among them, in every ruleset, and a facetoface preset that allows the Night-1
self-save (ff7, ff8, ff9_cupid) keeps it.
"""

from __future__ import annotations

from typing import Any

import pytest

from werewolf.core.decisions import AnyOf, Decision, Flag
from werewolf.core.game import Game, Setup
from werewolf.rulesets.facetoface import PRESETS

CLASSIC12 = ("werewolf",) * 4 + ("seer", "witch", "hunter", "idiot") + ("villager",) * 4
WECHAT10 = ("werewolf", "werewolf", "seer", "witch", "hunter", "guard") + ("villager",) * 4


def saves_offered(d: Decision, victim: int) -> set[int]:
    """The seats this decision lets the witch save."""
    alternatives = d.alternatives if isinstance(d, AnyOf) else (d,)
    out: set[int] = set()
    for alt in alternatives:
        if alt.act != "save":
            continue
        for o in alt.options():
            v = alt.value(o)
            if v is True and isinstance(alt, Flag):
                out.add(victim)
            elif isinstance(v, int) and not isinstance(v, bool):
                out.add(v)
    return out


def offered_on_night(setup: Setup, witch: int, night: int) -> set[int] | None:
    """The pack knifes the witch on ``night`` (nobody before): whom may she save then? None: not asked."""
    game = Game(setup)
    while not game.over:
        for d in list(game.request):
            phase = game.table.phase
            if phase == f"night{night}" and d.seat == witch and {"save", "poison"} & set(d.acts):
                return saves_offered(d, witch)  # her potions step (the poison alone where no save is offered)
            if d.act == "kill" and phase == f"night{night}":
                game.answer_value(d, witch)
            else:
                game.decline(d)
    return None


CASES: list[tuple[str, Setup, int, int, bool]] = [
    # (id, setup, witch seat, night the pack knifes her, may she save herself)
    ("classic default", Setup("classic", seats=CLASSIC12), 6, 1, False),
    ("classic always", Setup("classic", seats=CLASSIC12, options={"witch_self_save": "always"}), 6, 2, True),
    ("classic first night", Setup("classic", seats=CLASSIC12, options={"witch_self_save": "first_night_only"}),
     6, 1, True),
    ("classic first night, night 2",
     Setup("classic", seats=CLASSIC12, options={"witch_self_save": "first_night_only"}), 6, 2, False),
    ("wechat default", Setup("wechat", seats=WECHAT10), 4, 1, False),
    ("wechat always", Setup("wechat", seats=WECHAT10, options={"witch_self_save": "always"}), 4, 2, True),
    ("wechat first night, night 2",
     Setup("wechat", seats=WECHAT10, options={"witch_self_save": "first_night_only"}), 4, 2, False),
    ("ff12 default", Setup("facetoface", deck="ff12_444_guard"), 0, 1, False),
    ("ff7 preset night 1", Setup("facetoface", deck="ff7_cupid"), 0, 1, True),
    ("ff9_cupid preset night 1", Setup("facetoface", deck="ff9_cupid"), 0, 1, True),
    ("ff8 preset night 2", Setup("facetoface", deck="ff8_cupid"), 0, 2, False),
    ("ff11 preset night 1", Setup("facetoface", deck="ff11_4wolf_cupid"), 0, 1, False),
]


@pytest.mark.parametrize("setup,witch,night,allowed", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_witch_is_offered_her_own_antidote_only_where_allowed(setup: Setup, witch: int, night: int,
                                                                    allowed: bool) -> None:
    if setup.deck is not None:  # a dealt preset: find the witch's seat
        setup = Setup(setup.ruleset, seats=dealt(setup), options=setup.options)
        witch = setup.seats.index("witch") + 1 if setup.seats else 0
    offered = offered_on_night(setup, witch, night)
    assert offered is not None, "the witch was not asked at all"
    assert (witch in offered) == allowed, offered


def dealt(setup: Setup) -> tuple[str, ...]:
    game: Any = Game(setup)
    return tuple(p.role for p in game.table.players)


def test_the_presets_that_allow_a_first_night_self_save_keep_it() -> None:
    allowing = {pid for pid, (_, rules) in PRESETS.items() if rules.get("witch_self_save") == "first_night_only"}
    assert allowing == {"ff7_cupid", "ff8_cupid", "ff9_cupid"}
