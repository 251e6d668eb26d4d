"""RULES.md §1.6 rows whose effect is in the log but not in a scripted game's expect block.

Each test runs the same situation under the rulesets (or option values) that differ.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from werewolf import script as sg
from werewolf.core.events import Event

STD12 = ["werewolf"] * 4 + ["seer", "witch", "hunter", "idiot"] + ["villager"] * 4


def run(ruleset: str, seats: list[str], moves: dict[str, list[dict[str, Any]]], seed: int = 0,
        options: dict[str, Any] | None = None) -> list[Event]:
    doc = {"ruleset": ruleset, "seats": seats, "moves": moves, "seed": seed, "options": options or {}}
    out = sg.run(sg.parse(doc))
    assert out.error is None, out.error
    return out.events


def speakers(events: list[Event], phase: str, part: str) -> list[int]:
    return [e.data["seat"] for e in events if e.type == "speech" and e.phase == phase and e.data["part"] == part]


@pytest.mark.parametrize("seed", range(6))
def test_row8_campaign_order_classic_uses_the_clock_coin(seed: int) -> None:
    moves = {"day1": [{"seat": s, "act": "run"} for s in (2, 5, 9)]}
    coin = random.Random(seed).randrange(2)  # the first draw of the game
    order = speakers(run("classic", STD12, moves, seed), "day1", "election")
    assert order == ([2, 5, 9] if coin == 1 else [9, 5, 2])


@pytest.mark.parametrize("ruleset", ["facetoface", "wechat"])
def test_row8_campaign_order_lowest_first(ruleset: str) -> None:
    seats = STD12 if ruleset == "wechat" else ["werewolf"] * 4 + ["seer", "witch", "hunter", "guard"] + ["villager"] * 4
    moves = {"day1": [{"seat": s, "act": "run"} for s in (9, 2, 5)]}
    for seed in range(4):
        assert speakers(run(ruleset, seats, moves, seed), "day1", "election") == [2, 5, 9]


@pytest.mark.parametrize("seed", range(6))
def test_row10_classic_without_sheriff_starts_beside_the_smallest_dead_seat(seed: int) -> None:
    moves = {"night1": [{"seat": 1, "act": "kill", "target": 10}]}
    coin = random.Random(seed).randrange(2)
    got = speakers(run("classic", STD12, moves, seed), "day1", "discussion")
    living = [s for s in range(1, 13) if s != 10]
    if coin == 1:  # from the dead player's left, clockwise
        want = [s for s in living if s > 10] + [s for s in living if s < 10]
    else:  # from his right, counter-clockwise
        want = [s for s in reversed(living) if s < 10] + [s for s in reversed(living) if s > 10]
    assert got == want


@pytest.mark.parametrize("seed", range(6))
def test_row10_classic_peaceful_night_runs_from_an_end(seed: int) -> None:
    coin = random.Random(seed).randrange(2)
    got = speakers(run("classic", STD12, {"day1": []}, seed), "day1", "discussion")
    assert got == (list(range(1, 13)) if coin == 1 else list(range(12, 0, -1)))


@pytest.mark.parametrize("seed", range(6))
def test_row10_facetoface_starts_beside_the_last_dead(seed: int) -> None:
    seats = ["werewolf"] * 4 + ["seer", "witch", "hunter", "guard"] + ["villager"] * 4
    moves = {"night1": [{"seat": 1, "act": "kill", "target": 10}]}
    coin = random.Random(seed).randrange(2)
    got = speakers(run("facetoface", seats, moves, seed), "day1", "discussion")
    assert got[0] == (11 if coin == 1 else 9)
    assert 10 not in got and len(got) == 11


def _witch_told(ruleset: str, seats: list[str], options: dict[str, Any] | None = None) -> list[Any]:
    witch = seats.index("witch") + 1
    moves = {"night1": [{"seat": 1, "act": "kill", "target": 9}, {"seat": witch, "act": "save"}],
             "night2": [{"seat": 1, "act": "kill", "target": 10}]}
    events = run(ruleset, seats, moves, options=options)
    return [e.data.get("target") for e in events if e.type == "victim" and e.phase == "night2"]


def test_row17_witch_shown_the_victim_after_her_antidote_only_in_classic() -> None:
    assert _witch_told("classic", STD12) == [10]
    ff = ["werewolf"] * 4 + ["seer", "witch", "hunter", "guard"] + ["villager"] * 4
    assert _witch_told("facetoface", ff) == []
    assert _witch_told("wechat", STD12) == []


def test_row17_the_option_is_honoured_in_every_ruleset() -> None:
    ff = ["werewolf"] * 4 + ["seer", "witch", "hunter", "guard"] + ["villager"] * 4
    assert _witch_told("classic", STD12, {"witch_informed_after_antidote": False}) == []
    assert _witch_told("facetoface", ff, {"witch_informed_after_antidote": True}) == [10]
    assert _witch_told("wechat", STD12, {"witch_informed_after_antidote": True}) == [10]


def test_row32_bear_roars_first_in_classic_after_the_deaths_in_wechat() -> None:
    # Seat 2 is the bear tamer, seat 1 a wolf beside him.
    seats = ["werewolf", "bear_tamer", "villager", "werewolf", "witch", "hunter", "villager", "werewolf", "seer"]
    moves = {"night1": [{"seat": 1, "act": "kill", "target": 7}]}
    classic = [e.type for e in run("classic", seats, moves) if e.phase == "day1"]
    assert classic.index("bear") < classic.index("candidates") < classic.index("announce")
    wechat = [e.type for e in run("wechat", seats, moves, options={"expansions": ["bear_tamer"]})
              if e.phase == "day1"]
    assert wechat.index("announce") < wechat.index("bear")
    roars = [e.data["roared"] for e in run("classic", seats, moves) if e.type == "bear"]
    assert roars == [True]


@pytest.mark.parametrize("ruleset", ["classic", "wechat"])
def test_row32_bear_announce_is_honoured_by_both_rulesets(ruleset: str) -> None:
    """The option moves the bear line, whichever ruleset's default it overrides."""
    seats = ["werewolf", "bear_tamer", "villager", "werewolf", "witch", "hunter", "villager", "werewolf", "seer"]
    moves = {"night1": [{"seat": 1, "act": "kill", "target": 7}]}
    base = {"expansions": ["bear_tamer"]} if ruleset == "wechat" else {}
    for when in ("day_start", "after_deaths"):
        types = [e.type for e in run(ruleset, seats, moves, options={**base, "bear_announce": when})
                 if e.phase == "day1"]
        assert (types.index("bear") < types.index("announce")) == (when == "day_start"), (ruleset, when, types)


def test_row9_sheriff_direction_must_alternate() -> None:
    moves = {"day1": [{"seat": 5, "act": "run"}, {"seat": 5, "act": "order", "direction": "clockwise"}],
             "day2": [{"seat": 5, "act": "order", "direction": "clockwise"}]}
    doc = {"ruleset": "classic", "seats": STD12, "moves": moves}
    out = sg.run(sg.parse(doc))
    assert out.error is not None and "day2" in out.error and "direction" in out.error
