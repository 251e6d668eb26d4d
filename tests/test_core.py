"""The rules core: decisions, options, setup checks and the game driver (werewolf.core)."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from typing import Any

import pytest

from werewolf.agents import RandomAgent, play
from werewolf.core.decisions import AnyOf, Choice, Flag, Pair, Subset, Target
from werewolf.core.errors import IllegalMove, SetupError, WerewolfError
from werewolf.core.game import Game, Setup
from werewolf.rulesets import MODULES, get_ruleset
from werewolf.rulesets.options import DayNightOptions, OneNightOptions, make_options

RULESETS = list(MODULES)
DAYNIGHT = ("classic", "facetoface", "wechat")
ONENIGHT = ("onuw", "onenight")

# Seat 1–3 wolves, 4 seer, 5 witch, 6 hunter, 7–9 villagers: the classic 9-player book deck.
NINE = ("werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "villager", "villager", "villager")


def ruleset(name: str) -> Any:
    """The ruleset, or skip when its module is not there yet (onuw, onenight are in progress)."""
    pytest.importorskip(MODULES[name])
    return get_ruleset(name)


def nine(**kw: Any) -> Game:
    return Game(Setup("classic", seats=NINE, **kw))


def snapshot(game: Game) -> tuple[Any, ...]:
    """Everything an illegal move must leave alone."""
    return (len(game.events), list(game.events), list(game.answers), [id(d) for d in game.pending()],
            [(d.seat, d.act) for d in game.pending()], game.phase, game.over, game.result)


def finished_game(seed: int = 0) -> Game:
    game = Game(Setup("classic", deck="classic9", seed=seed))
    play(game, {}, RandomAgent(seed))
    assert game.over
    return game


# -- decisions ------------------------------------------------------------------------
class TestTarget:
    def test_forced_default_is_lowest_legal_seat(self) -> None:
        d = Target(3, "model", [2, 4, 5], optional=False)
        assert d.default_value() == 2
        assert {"act": "model", "target": None} not in d.options()
        assert d.check({"act": "model"}) is not None

    def test_forced_default_in_game_is_lowest_legal_seat(self) -> None:
        # The wild child must choose a model: the default is the lowest other seat.
        seats = ("wild_child",) + NINE[1:]
        game = Game(Setup("classic", seats=seats))
        (d,) = game.pending()
        assert isinstance(d, Target) and d.act == "model" and not d.optional
        assert d.default_value() == 2 == min(d.targets)
        game.decline(d)
        assert any(e.type == "model" and e.data["target"] == 2 for e in game.events)

    def test_optional_default_is_no_action(self) -> None:
        d = Target(1, "check", [2, 3])
        assert d.default_value() is None
        assert d.check({"act": "check", "target": None}) is None
        assert d.check({"act": "check"}) is None
        assert d.value({"act": "check"}) is None
        assert d.options() == [{"act": "check", "target": 2}, {"act": "check", "target": 3},
                               {"act": "check", "target": None}]

    def test_value_and_legal_target(self) -> None:
        d = Target(1, "check", [2, 3])
        assert d.check({"act": "check", "target": 3}) is None
        assert d.value({"act": "check", "target": 3}) == 3

    @pytest.mark.parametrize("bad", ["2", 2.0, True, [2], {"seat": 2}])
    def test_bad_types_rejected_with_message(self, bad: Any) -> None:
        msg = Target(1, "check", [2, 3]).check({"act": "check", "target": bad})
        assert msg and "target" in msg and "seat number" in msg

    def test_out_of_range_names_the_legal_seats(self) -> None:
        msg = Target(1, "check", [2, 3]).check({"act": "check", "target": 9})
        assert msg and "9" in msg and "2, 3" in msg

    def test_forbidden_seat_names_the_rule(self) -> None:
        d = Target(1, "guard", [2, 3], forbidden={4: "not the same player two nights running"})
        assert d.check({"act": "guard", "target": 4}) == "not the same player two nights running"

    def test_unknown_field_rejected(self) -> None:
        msg = Target(1, "check", [2, 3]).check({"act": "check", "target": 2, "card": 1})
        assert msg and "card" in msg

    def test_other_arg_name(self) -> None:
        d = Target(1, "kill", [2, 3], arg="victim")
        assert d.check({"act": "kill", "victim": 2}) is None
        assert d.value({"act": "kill", "victim": 2}) == 2
        assert d.options()[0] == {"act": "kill", "victim": 2}

    def test_accepts_only_its_act(self) -> None:
        d = Target(1, "check", [2, 3])
        assert d.accepts({"act": "check", "target": 2})
        assert not d.accepts({"act": "kill", "target": 2})
        assert not d.accepts({"target": 2})

    def test_forced_without_targets(self) -> None:
        d = Target(1, "model", [], optional=False)
        assert d.default_value() is None and d.options() == []


class TestPair:
    def test_forced_default_is_two_lowest(self) -> None:
        d = Pair(1, "link", [1, 2, 3, 4], optional=False)
        assert d.default_value() == (1, 2)
        assert d.check({"act": "link"}) is not None
        assert len(d.options()) == 6  # C(4, 2), no "none"

    def test_optional(self) -> None:
        d = Pair(1, "swap", [2, 3, 4])
        assert d.default_value() is None
        assert d.check({"act": "swap", "targets": None}) is None
        assert {"act": "swap", "targets": None} in d.options()
        assert len(d.options()) == 4

    def test_value(self) -> None:
        d = Pair(1, "swap", [2, 3, 4])
        assert d.value({"act": "swap", "targets": [4, 2]}) == (4, 2)
        assert d.value({"act": "swap", "targets": (2, 3)}) == (2, 3)

    @pytest.mark.parametrize("bad", [[2], [2, 3, 4], "2,3", [2, "3"], [True, 3], 5])
    def test_bad_shapes_rejected(self, bad: Any) -> None:
        msg = Pair(1, "swap", [2, 3, 4]).check({"act": "swap", "targets": bad})
        assert msg and "two numbers" in msg

    def test_same_seat_twice_rejected(self) -> None:
        msg = Pair(1, "swap", [2, 3, 4]).check({"act": "swap", "targets": [3, 3]})
        assert msg and "differ" in msg

    def test_out_of_range(self) -> None:
        msg = Pair(1, "swap", [2, 3, 4]).check({"act": "swap", "targets": [3, 9]})
        assert msg and "9" in msg


class TestChoice:
    def test_forced_default_is_first_value(self) -> None:
        d = Choice(1, "take", "card", [1, 2])
        assert d.default_value() == 1
        assert d.check({"act": "take"}) is not None
        assert d.options() == [{"act": "take", "card": 1}, {"act": "take", "card": 2}]

    def test_optional_default(self) -> None:
        d = Choice(1, "peek", "card", [1, 2, 3], optional=True)
        assert d.default_value() is None
        assert d.check({"act": "peek", "card": None}) is None
        assert {"act": "peek", "card": None} in d.options()

    def test_explicit_default(self) -> None:
        assert Choice(1, "order", "direction", ["clockwise", "counterclockwise"],
                      default="counterclockwise").default_value() == "counterclockwise"

    @pytest.mark.parametrize("bad", ["1", True, 1.0, 3, [1]])
    def test_bad_values_rejected_strictly(self, bad: Any) -> None:
        msg = Choice(1, "take", "card", [1, 2]).check({"act": "take", "card": bad})
        assert msg and "card" in msg and "not legal" in msg

    def test_value(self) -> None:
        d = Choice(1, "side", "side", ["wolves", "village"])
        assert d.check({"act": "side", "side": "village"}) is None
        assert d.value({"act": "side", "side": "village"}) == "village"

    def test_unknown_field(self) -> None:
        msg = Choice(1, "take", "card", [1, 2]).check({"act": "take", "card": 1, "target": 3})
        assert msg and "target" in msg


class TestFlag:
    def test_yes_and_no(self) -> None:
        d = Flag(1, "run")
        assert d.default_value() is False
        assert d.check({"act": "run"}) is None and d.value({"act": "run"}) is True
        assert d.check({"act": "run", "value": False}) is None and d.value({"act": "run", "value": False}) is False
        assert d.options() == [{"act": "run"}, {"act": "run", "value": False}]

    def test_default_true(self) -> None:
        assert Flag(1, "reveal", default=True).default_value() is True

    @pytest.mark.parametrize("bad", [1, 0, "yes", None, [True]])
    def test_non_boolean_rejected(self, bad: Any) -> None:
        msg = Flag(1, "run").check({"act": "run", "value": bad})
        assert msg and "true or false" in msg

    def test_unknown_field(self) -> None:
        msg = Flag(1, "run").check({"act": "run", "target": 2})
        assert msg and "target" in msg

    def test_context(self) -> None:
        d = Flag(1, "explode", context={"when": "election"}, context_defaults={"when": "discussion"})
        assert d.accepts({"act": "explode", "when": "election"})
        assert not d.accepts({"act": "explode"})  # defaults to the discussion
        assert not d.accepts({"act": "explode", "when": "discussion"})
        e = Flag(1, "explode", context={"when": "discussion"}, context_defaults={"when": "discussion"})
        assert e.accepts({"act": "explode"})
        assert all(d.accepts(o) and d.check(o) is None for o in d.options())


class TestAnyOf:
    def witch(self) -> AnyOf:
        return AnyOf(5, [Flag(5, "save"), Target(5, "poison", [1, 2, 3], forbidden={5: "not herself"})],
                     conflict="one potion per night")

    def test_acts_and_accepts(self) -> None:
        d = self.witch()
        assert d.acts == ("save", "poison") and d.act == "save|poison"
        assert d.accepts({"act": "save"}) and d.accepts({"act": "poison", "target": 2})
        assert not d.accepts({"act": "check", "target": 2})
        assert d.check({"act": "check"}) == "this decision asks for 'save' or 'poison', not 'check'"

    def test_values(self) -> None:
        d = self.witch()
        assert d.value({"act": "save"}) == ("save", True)
        assert d.value({"act": "save", "value": False}) is None
        assert d.value({"act": "poison", "target": 2}) == ("poison", 2)
        assert d.value({"act": "poison", "target": None}) is None
        assert d.default_value() is None

    def test_checks_delegate(self) -> None:
        d = self.witch()
        assert d.check({"act": "poison", "target": 5}) == "not herself"
        assert d.check({"act": "save", "value": "x"})

    def test_options(self) -> None:
        d = self.witch()
        opts = d.options()
        assert {"act": "save"} in opts and {"act": "poison", "target": 3} in opts
        values = [d.value(o) for o in opts]
        assert values.count(None) == 1  # exactly one "do nothing" entry
        assert all(d.check(o) is None for o in opts)
        assert d.describe()["acts"] == ["save", "poison"]


class TestSubset:
    def test_default_and_options(self) -> None:
        d = Subset(1, "ban", [2, 3, 4, 5], 3)
        assert d.default_value() == ()
        assert len(d.options()) == 1 + 4 + 6 + 4
        assert {"act": "ban", "targets": []} in d.options()
        assert d.value({"act": "ban"}) == () and d.value({"act": "ban", "targets": [3, 2]}) == (3, 2)

    @pytest.mark.parametrize("bad,word", [([2, 3, 4, 5], "at most 3"), ([2, 2], "repeat"), ([9], "9"),
                                          ("2", "list"), ([True], "list"), ([2, "3"], "list")])
    def test_bad(self, bad: Any, word: str) -> None:
        msg = Subset(1, "ban", [2, 3, 4, 5], 3).check({"act": "ban", "targets": bad})
        assert msg and word in msg


@pytest.mark.parametrize("d", [
    Target(1, "check", [2, 3, 4]), Target(1, "model", [2, 3], optional=False),
    Pair(1, "swap", [2, 3, 4]), Pair(1, "link", [1, 2, 3], optional=False),
    Choice(1, "take", "card", [1, 2]), Choice(1, "peek", "card", [1, 2, 3], optional=True),
    Flag(1, "run"), Flag(1, "explode", interrupt=True),
    AnyOf(5, [Flag(5, "save"), Target(5, "poison", [1, 2])], conflict="one potion"),
    Subset(1, "ban", [2, 3, 4], 2),
], ids=repr)
def test_every_option_is_legal_and_default_and_random_values_are_options(d: Any) -> None:
    import random

    opts = d.options()
    assert opts, "a decision lists its legal moves"
    values = []
    for o in opts:
        assert d.accepts(o), o
        assert d.check(o) is None, o
        values.append(d.value(o))
    assert d.default_value() in values
    rng = random.Random(0)

    def key(v: Any) -> Any:  # pairs and subsets are unordered
        return frozenset(v) if isinstance(d, (Pair, Subset)) and v is not None else v

    legal = {key(v) for v in values}
    for _ in range(50):
        assert key(d.random_value(rng)) in legal
    desc = d.describe()
    assert desc["seat"] == d.seat and desc["options"] == opts and desc["kind"] == type(d).__name__.lower()
    json.dumps(desc)


# -- options --------------------------------------------------------------------------
@pytest.mark.parametrize("name", RULESETS)
def test_defaults_load(name: str) -> None:
    rs = ruleset(name)
    opts = make_options(name)
    assert isinstance(opts, OneNightOptions if name in ONENIGHT else DayNightOptions)
    deck = next(iter(rs.decks()))
    game = Game(Setup(name, deck=deck))
    assert game.events[0].type == "game_start"


@pytest.mark.parametrize("name", RULESETS)
def test_unknown_option_names_it(name: str) -> None:
    ruleset(name)
    with pytest.raises(SetupError, match="no_such_option"):
        make_options(name, {"no_such_option": True})
    deck = next(iter(get_ruleset(name).decks()))
    with pytest.raises(SetupError, match="no_such_option"):
        Game(Setup(name, deck=deck, options={"no_such_option": 1}))


def test_option_of_the_other_family_is_unknown() -> None:
    with pytest.raises(SetupError, match="'sheriff'"):
        make_options("onuw", {"sheriff": True})
    with pytest.raises(SetupError, match="'allow_self_vote'"):
        make_options("classic", {"allow_self_vote": True})


@pytest.mark.parametrize("name,option,value", [
    ("classic", "sheriff_vote_weight", "x"),
    ("classic", "sheriff_vote_weight", 0),
    ("classic", "sheriff_vote_weight", True),
    ("classic", "guard_rule", "sometimes"),
    ("classic", "sheriff", 1),
    ("classic", "sheriff", None),
    ("facetoface", "max_days", 1.5),
    ("facetoface", "hunter_blocked_causes", "poison"),
    ("wechat", "clans", [[1, 2]]),
    ("wechat", "white_wolf_nights", 2),
    ("onuw", "allow_self_vote", "yes"),
    ("onenight", "robber_optional", 0),
])
def test_bad_value_names_the_option(name: str, option: str, value: Any) -> None:
    ruleset(name)
    with pytest.raises(SetupError) as err:
        make_options(name, {option: value})
    assert repr(option) in str(err.value) and "bad value" in str(err.value)


def test_options_must_be_a_mapping() -> None:
    with pytest.raises(SetupError, match="options"):
        make_options("classic", [("sheriff", False)])  # type: ignore[arg-type]


def test_sheriff_weight_given_as_2_logs_whole_votes() -> None:
    """A script's sheriff_vote_weight 2 tallies like wechat's default 2: 3 votes, not 3.0 (RULES.md §1.6 #1)."""
    from werewolf import script as sg

    seats = ["werewolf", "werewolf", "seer", "witch", "hunter", "guard", "villager", "villager", "villager", "villager"]
    moves = {"day1": [{"seat": 3, "act": "run"}, {"seat": 7, "act": "sheriff_vote", "target": 3},
                      {"seat": 3, "act": "vote", "target": 1}, {"seat": 4, "act": "vote", "target": 1},
                      {"seat": 5, "act": "vote", "target": 9}]}
    logs = []
    for options in ({}, {"sheriff_vote_weight": 2}, {"sheriff_vote_weight": 2.0}):
        out = sg.run(sg.parse({"ruleset": "wechat", "options": options, "seats": seats, "moves": moves}))
        (tally,) = [e.data["tally"] for e in out.events if e.type == "votes" and e.data["round"] == "vote"]
        logs.append(json.dumps(tally))
    assert logs[0] == logs[1] == logs[2] == '{"1": 3, "9": 1}'


@pytest.mark.parametrize("path", ["classic/idiot_revealed_cannot_be_voted_error.json",
                                  "wechat/revealed_idiot_cannot_be_voted_error.json"])
def test_vote_for_revealed_idiot_names_the_rule(path: str) -> None:
    from pathlib import Path

    from werewolf import script as sg

    doc = json.loads((Path(__file__).parent / "scripts" / path).read_text(encoding="utf-8"))
    out = sg.run(sg.parse(doc))
    assert out.error is not None and "revealed idiot" in str(out.error) and "revealed_idiot_votable=false" in str(
        out.error)


def test_option_coercion() -> None:
    opts = make_options("classic", {"sheriff_vote_weight": 2, "hunter_blocked_causes": ["poison"],
                                    "sheriff_self_destruct": "lose_badge", "tie_priority": ["wolf", "good"]})
    # 「計為兩票」: a whole weight stays whole, as the facetoface and wechat default 2 is (a tally of 3, not 3.0).
    assert opts.sheriff_vote_weight == 2 and type(opts.sheriff_vote_weight) is int
    assert type(make_options("classic", {"sheriff_vote_weight": 2.0}).sheriff_vote_weight) is int
    assert make_options("wechat", {"sheriff_vote_weight": 1.5}).sheriff_vote_weight == 1.5
    assert opts.hunter_blocked_causes == frozenset({"poison"})
    assert make_options("wechat", {"clans": [[1, 2], [3, 4]]}).clans == ((1, 2), (3, 4))
    assert opts.sheriff_self_destruct == "lose_badge"
    assert opts.tie_priority == ("wolf", "good")
    assert make_options("onuw", {"discussion_seconds": None}).discussion_seconds is None


# RULES.md §1.7, spot checks: (option, classic, facetoface, wechat).
SPOT = [
    ("sheriff_vote_weight", 1.5, 2, 2),
    ("same_guard_save_dies", True, True, False),
    ("last_words", "first_night_and_days", "ff_standard", "wolf_quota"),
    ("seer_model", "good_wolf", "wolf_or_not", "village_or_not"),
    ("witch_self_save", "never", "never", "never"),
    ("win_mode", "tu_bian", "preset", "half"),
    ("guard_rule", "no_consecutive", "no_consecutive", "once_per_target"),
    ("sheriff_registration", "night1_hands", "dawn", "day"),
    ("sheriff_electorate", "non_candidates", "non_candidates", "all_living"),
    ("sheriff_self_destruct", "postpone_once", "lose_badge", "lose_badge"),
    ("badge_on_death", "pass_or_tear", "pass_or_tear", "must_pass"),
    ("exile_tie", "pk_then_none", "pk_then_none", "sheriff_choice"),
    ("lovers_may_vote_each_other", True, False, True),
    ("revealed_idiot_votable", False, False, False),
    ("witch_one_potion_per_night", True, True, True),
    ("witch_informed_after_antidote", True, False, False),
    ("self_destruct_allowed", True, True, False),
    ("self_destructed_wolf_votes_knife", True, False, False),
    ("thief_must_swap", True, True, False),
    ("thief_bottom_rule", "classic_pairs", "ff_pairs", "no_thief_in_bottom"),
    ("hunter_blocked_causes", frozenset({"poison", "lover", "dream", "charm"}), frozenset({"poison", "lover"}),
     frozenset()),
    ("sheriff_vote_secret", True, False, False),
    ("bear_announce", "day_start", "day_start", "after_deaths"),
    ("campaign_order", "coin", "lowest_first", "lowest_first"),
    ("speech_without_sheriff", "clock_deaths", "last_dead_coin", "clock_deaths"),
    ("expansions", frozenset(), frozenset(), frozenset()),
    ("max_days", 30, 30, 30),
]


@pytest.mark.parametrize("option,classic,facetoface,wechat", SPOT, ids=[s[0] for s in SPOT])
def test_rules_1_7_defaults(option: str, classic: Any, facetoface: Any, wechat: Any) -> None:
    for name, want in zip(DAYNIGHT, (classic, facetoface, wechat)):
        assert getattr(make_options(name), option) == want, (name, option)


@pytest.mark.parametrize("name", ONENIGHT)
def test_rules_1_7_onenight_defaults(name: str) -> None:
    ruleset(name)
    opts = make_options(name)
    assert opts.allow_self_vote is False
    assert opts.robber_optional is True
    assert opts.discussion_seconds == 300
    if name == "onuw":
        assert opts.drunk_must_swap is True and opts.troublemaker_optional is True


def test_facetoface_preset_fixes_its_options_unless_overridden() -> None:
    game = Game(Setup("facetoface", deck="ff9_standard"))
    opts = game.table.opts  # type: ignore[attr-defined]
    assert opts.preset == "ff9_standard" and opts.win_mode == "tu_cheng"
    game = Game(Setup("facetoface", deck="ff9_standard", options={"win_mode": "tu_bian"}))
    assert game.table.opts.win_mode == "tu_bian"  # type: ignore[attr-defined]


def test_options_are_frozen() -> None:
    opts = make_options("classic")
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.sheriff = False  # type: ignore[misc]


# -- setup ----------------------------------------------------------------------------
@pytest.mark.parametrize("name,seats,center,words", [
    ("classic", NINE[:-1] + ("dragon",), (), ["unknown role", "dragon"]),
    ("classic", NINE[:-1] + ("piper",), (), ["piper", "not part of the classic"]),
    ("classic", NINE[:-1] + ("doppelganger",), (), ["doppelganger", "not part of the classic"]),
    ("facetoface", NINE[:-1] + ("wolf_king",), (), ["wolf_king", "not part of the facetoface"]),
    ("wechat", NINE[:-1] + ("knight",), (), ["knight", "not part of the wechat"]),
    ("classic", ("seer", "witch", "hunter", "idiot", "guard", "villager", "villager", "villager", "villager"), (),
     ["no wolf"]),
    ("facetoface", ("seer", "witch", "hunter", "villager", "villager", "villager", "villager"), (), ["no wolf"]),
    ("wechat", ("seer", "witch", "hunter", "villager", "villager", "villager", "villager", "villager"), (),
     ["no wolf"]),
    ("classic", NINE[:-1] + ("thief",), (), ["thief", "two center cards"]),
    ("classic", NINE[:-1] + ("thief",), ("villager",), ["thief", "two center cards"]),
    ("facetoface", NINE[:-1] + ("thief",), (), ["thief", "two center cards"]),
    ("classic", NINE, ("villager", "villager"), ["no center cards"]),
    ("classic", NINE[:-1] + ("thief",), ("werewolf", "werewolf"), ["werewolf + werewolf", "classic_pairs"]),
    ("classic", ("werewolf", "werewolf") + NINE[3:-1] + ("thief",), ("wolf_king", "werewolf"),
     ["bottom cards", "classic_pairs"]),
    ("facetoface", NINE[:-1] + ("thief",), ("werewolf", "werewolf"), ["werewolf + werewolf", "ff_pairs"]),
    ("classic", ("seer",) + NINE[1:], (), ["2 seer cards"]),
    ("wechat", NINE[:-1] + ("fox",), (), ["fox", "expansion"]),
])
def test_setup_errors(name: str, seats: tuple[str, ...], center: tuple[str, ...], words: list[str]) -> None:
    with pytest.raises(SetupError) as err:
        Game(Setup(name, seats=seats, center=center))
    for w in words:
        assert w in str(err.value)


@pytest.mark.parametrize("name,seats,center,words", [
    ("onuw", ("werewolf", "seer", "hidden_wolf"), ("villager", "villager", "robber"), ["hidden_wolf"]),
    ("onuw", ("villager", "seer", "robber"), ("villager", "villager", "troublemaker"), ["no werewolf"]),
    ("onuw", ("werewolf", "mason", "seer"), ("villager", "villager", "robber"), ["mason"]),
    ("onuw", ("werewolf", "seer", "robber"), ("villager", "villager"), ["centre"]),
    ("onenight", ("werewolf", "seer", "witch"), ("villager", "villager"), ["witch"]),
    ("onenight", ("werewolf", "werewolf", "werewolf"), ("villager", "seer"), ["werewolf"]),
])
def test_onenight_setup_errors(name: str, seats: tuple[str, ...], center: tuple[str, ...], words: list[str]) -> None:
    ruleset(name)
    with pytest.raises(SetupError) as err:
        Game(Setup(name, seats=seats, center=center))
    for w in words:
        assert w in str(err.value)


def test_unknown_ruleset_and_deck() -> None:
    with pytest.raises(SetupError, match="unknown ruleset 'nope'"):
        Game(Setup("nope", seats=NINE))
    with pytest.raises(SetupError, match="unknown deck 'c99'"):
        Game(Setup("classic", deck="c99"))
    with pytest.raises(SetupError, match="8–18"):
        Game(Setup("classic", players=30))


def test_unknown_wechat_expansion() -> None:
    with pytest.raises(SetupError, match="dragon"):
        Game(Setup("wechat", deck="wechat9", options={"expansions": ["dragon"]}))


def test_setup_errors_are_werewolf_errors() -> None:
    assert issubclass(SetupError, WerewolfError) and issubclass(IllegalMove, WerewolfError)


def all_decks() -> list[tuple[str, str]]:
    out = []
    for name in RULESETS:
        try:
            rs = get_ruleset(name)
        except SetupError:
            continue
        out += [(name, deck) for deck in rs.decks()]
    return out


@pytest.mark.parametrize("name,deck", all_decks())
@pytest.mark.parametrize("seed", [0, 1])
def test_dealing_a_deck_id_deals_its_roles(name: str, deck: str, seed: int) -> None:
    rs = get_ruleset(name)
    game = Game(Setup(name, deck=deck, seed=seed))
    t: Any = game.table
    dealt = [p.dealt for p in t.players] if hasattr(t, "players") else list(t.dealt)
    assert Counter(dealt + list(t.center)) == Counter(rs.decks()[deck])
    start = game.events[0]
    assert start.type == "game_start" and start.data["custom_deck"] is False
    assert start.data["players"] == len(dealt)
    # every seat is told its own card, and only it
    roles = {e.data["seat"]: e for e in game.events if e.type == "role"}
    assert sorted(roles) == list(range(1, len(dealt) + 1))
    for s, e in roles.items():
        assert e.to == frozenset({s}) and e.data["role"] == dealt[s - 1]


def test_deal_depends_on_the_seed() -> None:
    deals = {tuple(p.dealt for p in Game(Setup("classic", deck="c12_bomber", seed=s)).table.players)  # type: ignore
             for s in range(8)}
    assert len(deals) > 1


@pytest.mark.parametrize("setup", [
    Setup("classic", deck=("werewolf", "werewolf", "seer", "witch", "hunter", "guard", "villager", "villager",
                           "villager")),
    Setup("classic", seats=("werewolf", "werewolf", "seer", "witch", "hunter", "guard", "villager", "villager",
                            "villager")),
    Setup("facetoface", deck=("werewolf", "werewolf", "seer", "witch", "villager", "villager", "villager")),
    Setup("wechat", deck=("werewolf", "werewolf", "seer", "witch", "villager", "villager", "villager")),
], ids=["classic-deck", "classic-seats", "facetoface", "wechat"])
def test_custom_deck_is_flagged(setup: Setup) -> None:
    start = Game(setup).events[0]
    assert start.type == "game_start" and start.data["custom_deck"] is True


def test_book_deck_by_seats_is_not_custom() -> None:
    assert Game(Setup("classic", seats=NINE[::-1])).events[0].data["custom_deck"] is False


@pytest.mark.parametrize("name", ONENIGHT)
def test_onenight_custom_deck_is_flagged(name: str) -> None:
    rs = ruleset(name)
    book = rs.decks()[f"{name}3"]
    assert Game(Setup(name, seats=book[:3], center=book[3:])).events[0].data["custom_deck"] is False
    cards = ("werewolf", "villager", "villager", "villager", "seer", "robber")[:len(book)]
    assert Counter(cards) != Counter(book)
    custom = Game(Setup(name, seats=cards[:3], center=cards[3:]))
    assert custom.events[0].data["custom_deck"] is True


# -- the driver: illegal moves change nothing -----------------------------------------
def night_one() -> Game:
    game = nine()
    assert [(d.seat, d.act) for d in game.pending()] == [(1, "kill"), (2, "kill"), (3, "kill")]
    return game


def at_witch() -> Game:
    game = night_one()
    for s in (1, 2, 3):
        game.answer(s, {"act": "kill", "target": 7})
    assert [(d.seat, d.act) for d in game.pending()] == [(5, "save|poison")]
    return game


ILLEGAL = [
    # (name, game factory, seat, move, words in the message)
    ("wrong seat", night_one, 4, {"act": "check", "target": 1}, ["seat 4", "not asked"]),
    ("dead-end seat", night_one, 9, {"act": "kill", "target": 7}, ["seat 9", "not asked"]),
    ("wrong act", night_one, 1, {"act": "check", "target": 4}, ["'check'", "asked: kill"]),
    ("out of turn: a day vote at night", night_one, 7, {"act": "vote", "target": 1}, ["night1", "'vote'"]),
    ("target out of range", night_one, 1, {"act": "kill", "target": 10}, ["seat 10", "legal"]),
    ("target zero", night_one, 1, {"act": "kill", "target": 0}, ["seat 0"]),
    ("target of the wrong type", night_one, 1, {"act": "kill", "target": "7"}, ["seat number"]),
    ("unexpected field", night_one, 1, {"act": "kill", "target": 7, "card": 1}, ["card"]),
    ("no act", night_one, 1, {"target": 7}, ["needs an 'act'"]),
    ("act of the wrong type", night_one, 1, {"act": 3, "target": 7}, ["needs an 'act'"]),
    ("not a dict", night_one, 1, "kill", ["needs an 'act'"]),
    ("witch poisons herself", at_witch, 5, {"act": "poison", "target": 5}, ["may not poison herself"]),
    ("witch's save with a value", at_witch, 5, {"act": "save", "value": "yes"}, ["true or false"]),
    ("the seer before her turn", at_witch, 4, {"act": "check", "target": 1}, ["seat 4", "not asked"]),
    ("answering twice", at_witch, 1, {"act": "kill", "target": 8}, ["seat 1", "not asked"]),
    ("after the game is over", finished_game, 1, {"act": "vote", "target": 2}, ["game is over"]),
]


@pytest.mark.parametrize("name,make,seat,move,words", ILLEGAL, ids=[c[0] for c in ILLEGAL])
def test_illegal_move_raises_and_changes_nothing(name: str, make: Any, seat: int, move: Any,
                                                 words: list[str]) -> None:
    game = make()
    before = snapshot(game)
    with pytest.raises(IllegalMove) as err:
        game.answer(seat, move)
    e = err.value
    assert snapshot(game) == before
    assert e.phase == game.phase and e.seat == seat and e.rule
    assert str(e).startswith(f"{game.phase}: seat {seat}, act ")
    for w in words:
        assert w in str(e), str(e)


def test_illegal_move_leaves_the_game_as_if_never_made() -> None:
    clean, dirty = at_witch(), at_witch()
    for bad in ({"act": "poison", "target": 5}, {"act": "poison", "target": 12}, {"act": "check"}):
        with pytest.raises(IllegalMove):
            dirty.answer(5, bad)
    for g in (clean, dirty):
        g.answer(5, {"act": "poison", "target": 1})
        play(g, {}, RandomAgent(3))
    assert clean.events == dirty.events and clean.answers == dirty.answers


def test_pending_by_seat() -> None:
    game = night_one()
    assert [d.act for d in game.pending(2)] == ["kill"]
    assert game.pending(4) == []
    game.answer(2, {"act": "kill", "target": 7})
    assert game.pending(2) == [] and len(game.pending()) == 2


def test_answer_value_and_decline_of_a_closed_decision() -> None:
    game = night_one()
    d = game.pending(1)[0]
    game.answer(1, {"act": "kill", "target": 7})
    before = snapshot(game)
    with pytest.raises(IllegalMove, match="not open"):
        game.answer_value(d, 8)
    with pytest.raises(IllegalMove, match="not open"):
        game.decline(d)
    assert snapshot(game) == before


def test_pack_answers_resolve_the_night() -> None:
    game = at_witch()
    assert [e for e in game.events if e.type == "pack_choice"][0].data["target"] == 7
    assert game.answers == [(1, "kill", 7), (2, "kill", 7), (3, "kill", 7)]


# -- replay and determinism -----------------------------------------------------------
@pytest.mark.parametrize("name,deck", [("classic", "c12_wolfking_thief_cupid"), ("classic", "c12_wwk_knight"),
                                       ("facetoface", "ff12_cupid_thief"), ("wechat", "wechat12"),
                                       ("onuw", "onuw10"), ("onenight", "onenight7")])
@pytest.mark.parametrize("seed", [0, 7])
def test_replay_reproduces_the_game(name: str, deck: str, seed: int) -> None:
    ruleset(name)
    setup = Setup(name, deck=deck, seed=seed)
    game = play(Game(setup), {}, RandomAgent(seed))
    again = Game.replay(setup, game.answers)
    assert again.events == game.events and again.over and again.result == game.result
    # the answers survive a trip through JSON (pairs become lists)
    via_json = Game.replay(setup, json.loads(json.dumps(game.answers)))
    assert via_json.events == game.events


@pytest.mark.parametrize("name,deck", [("classic", "classic12"), ("wechat", "wechat12"), ("onuw", "onuw10")])
def test_play_out_is_random_answers_given_one_by_one(name: str, deck: str) -> None:
    """The rollout fast path (a whole request at once) plays the game that answering one decision at a time plays."""
    for seed in range(5):
        fast = Game(Setup(name, deck=deck, seed=seed))
        fast.play_out(random.Random(seed))
        slow = Game(Setup(name, deck=deck, seed=seed))
        rng = random.Random(seed)
        while not slow.over:
            for d in list(slow.request):
                slow.answer_value(d, d.random_value(rng))
        assert fast.over and fast.events == slow.events and fast.answers == slow.answers


def test_replay_of_a_game_answered_move_by_move() -> None:
    game = at_witch()
    game.answer(5, {"act": "poison", "target": 2})
    setup = game.setup
    again = Game.replay(setup, game.answers)
    assert again.events == game.events
    assert [(d.seat, d.act) for d in again.pending()] == [(d.seat, d.act) for d in game.pending()]


def test_replay_rejects_answers_of_another_game() -> None:
    with pytest.raises(IllegalMove, match="replay does not match"):
        Game.replay(Setup("classic", seats=NINE), [(4, "check", 1)])


def test_same_seed_same_game() -> None:
    for name, deck in (("classic", "c12_wolfking_magician"), ("wechat", "wechat15"), ("facetoface", "ff7_cupid")):
        a = play(Game(Setup(name, deck=deck, seed=42)), {}, RandomAgent(5))
        b = play(Game(Setup(name, deck=deck, seed=42)), {}, RandomAgent(5))
        assert a.events == b.events and a.answers == b.answers


def test_the_seed_drives_the_clock_rule() -> None:
    # Same seats and answers, different seeds: the deal is fixed, the coin differs somewhere.
    logs = set()
    for seed in range(6):
        game = nine(seed=seed)
        play(game, {}, RandomAgent(1))
        logs.add(json.dumps([e.as_json() for e in game.events]))
    assert len(logs) > 1


def test_stop_after_day() -> None:
    game = Game(Setup("classic", seats=NINE, stop_after_day=1))
    while not game.over:
        for d in list(game.request):
            game.decline(d)
    assert game.result is None
    assert game.events[-1].type == "stopped" and game.events[-1].phase == "day1"


def test_the_core_imports_no_ruleset_and_every_ruleset_is_registered() -> None:
    """「Rulesets register with the core; the core never imports them」: the core's modules import nothing of
    ``werewolf.rulesets``, and every ruleset of the package is registered (``werewolf.core.registry``)."""
    import ast
    import pathlib

    from werewolf.core import registry

    core = pathlib.Path(registry.__file__).parent
    for path in core.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n == "werewolf.rulesets" or n.startswith("werewolf.rulesets.") for n in names), path.name
    assert set(registry.registered()) == set(MODULES)
    with pytest.raises(SetupError, match="unknown ruleset 'nope'"):
        Game(Setup("nope"))


def test_the_moderator_defines_every_method_its_lower_parts_call_up() -> None:
    from werewolf.rulesets.daynight.base import ABOVE, ModeratorBase
    from werewolf.rulesets.daynight.moderator import Moderator

    for name in ABOVE:
        assert getattr(Moderator, name) is not getattr(ModeratorBase, name), name
