"""The named options of every ruleset, their types and their defaults.

One typed structure per family (day-and-night, one-night), with the defaults of
RULES.md §1.7 per ruleset. Where the rule books disagree the difference is one
of these options; ``None`` marks an option that does not apply to a ruleset.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union

from werewolf.core.errors import SetupError, quoted

Cause = str
# A vote's weight: a positive number, a whole one kept whole (the books' 2 stays a 2 in the log, see
# ``_weight``). Not ``float`` alone: a compiled build (mypyc) turns whatever it reads as a float into one.
Weight = float | int


@dataclass(frozen=True)
class DayNightOptions:
    # sheriff (警長)
    sheriff: bool = True
    sheriff_vote_weight: Weight = 1.5
    sheriff_day: int = 1
    sheriff_before_announcement: bool = True
    sheriff_registration: Literal["night1_hands", "dawn", "day"] = "night1_hands"
    campaign_order: Literal["coin", "lowest_first", "highest_first"] = "coin"
    sheriff_electorate: Literal["non_candidates", "all_living"] = "non_candidates"
    sheriff_tie: Literal["pk_then_none", "none"] = "pk_then_none"
    sheriff_self_destruct: Literal["postpone_once", "lose_badge"] = "postpone_once"
    badge_on_death: Literal["pass_or_tear", "must_pass"] = "pass_or_tear"
    idiot_reveal_destroys_badge: bool = True
    sheriff_vote_secret: bool = True
    # speeches and last words
    speech_with_sheriff: Literal["alternate", "free"] = "alternate"
    speech_without_sheriff: Literal["clock_deaths", "last_dead_coin"] = "clock_deaths"
    last_words: Literal["first_night_and_days", "ff_standard", "wolf_quota"] = "first_night_and_days"
    # exile vote
    exile_tie: Literal["pk_then_none", "sheriff_choice", "none"] = "pk_then_none"
    pk_votes_only_for_pk: bool = True
    lovers_may_vote_each_other: bool = True
    revealed_idiot_votable: bool = False
    vote_lock_win: bool = False
    # witch, guard, hunter
    witch_self_save: Literal["always", "never", "first_night_only"] = "never"
    witch_one_potion_per_night: bool = True
    witch_potions_single_use: bool = True
    witch_informed_after_antidote: bool = True
    guard_rule: Literal["no_consecutive", "once_per_target", "free"] = "no_consecutive"
    same_guard_save_dies: bool = True
    hunter_blocked_causes: frozenset[Cause] = frozenset({"poison", "lover", "dream", "charm"})
    wolf_king_blocked_causes: frozenset[Cause] = frozenset({"poison", "lover", "dream", "charm"})
    # wolves
    win_mode: Literal["tu_bian", "tu_cheng", "half", "preset"] = "tu_bian"
    wolf_kill_first: bool = True
    wolf_consensus: Literal["unanimous_else_empty"] = "unanimous_else_empty"
    self_destruct_allowed: bool = True
    self_destructed_wolf_votes_knife: bool = True
    # third parties and special roles
    thief_must_swap: bool = True
    thief_bottom_rule: Literal["classic_pairs", "ff_pairs", "no_thief_in_bottom"] = "classic_pairs"
    cupid_double_wolf_team: Literal["wolf", "good"] | None = "wolf"
    cupid_self_link: bool = True
    seer_model: Literal["good_wolf", "wolf_or_not", "village_or_not"] = "good_wolf"
    bear_announce: Literal["day_start", "after_deaths"] = "day_start"
    bear_detects_hidden_wolf: bool = True
    bomber_counts_as_god: bool = False
    knight_duel_window: Literal["after_announcement_until_vote"] = "after_announcement_until_vote"
    # the whole game
    clock_source: Literal["rng", "wallclock"] = "rng"
    tie_priority: tuple[str, ...] = ("bomber", "lovers", "wolf", "good")
    announce_order: Literal["ascending"] = "ascending"
    max_days: int = 30
    # wechat
    expansions: frozenset[str] = frozenset()
    white_wolf_nights: Literal["even", "odd", "every"] = "even"
    wolf_father_infections: int = 1
    stuttering_judge_uses: int = 1
    scapegoat_overrides_sheriff: bool = True
    clans: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    # facetoface: the preset a deck is played as (None: matched from the deck)
    preset: str | None = None


@dataclass(frozen=True)
class OneNightOptions:
    allow_self_vote: bool = False
    drunk_must_swap: bool = True
    robber_optional: bool = True
    troublemaker_optional: bool = True
    discussion_seconds: int | None = 300


_ALL = frozenset({"poison", "lover", "dream", "charm"})

DEFAULTS: dict[str, dict[str, Any]] = {
    "classic": {},
    "facetoface": dict(
        sheriff_vote_weight=2, sheriff_registration="dawn", campaign_order="lowest_first",
        sheriff_self_destruct="lose_badge", speech_without_sheriff="last_dead_coin",
        last_words="ff_standard", lovers_may_vote_each_other=False, witch_self_save="never",
        witch_informed_after_antidote=False, hunter_blocked_causes=frozenset({"poison", "lover"}),
        wolf_king_blocked_causes=_ALL, revealed_idiot_votable=False, win_mode="preset",
        self_destructed_wolf_votes_knife=False, thief_bottom_rule="ff_pairs", cupid_double_wolf_team=None,
        seer_model="wolf_or_not", sheriff_vote_secret=False, tie_priority=("lovers", "wolf", "good")),
    "wechat": dict(
        sheriff_vote_weight=2, sheriff_before_announcement=False, sheriff_registration="day",
        campaign_order="lowest_first", sheriff_electorate="all_living", sheriff_tie="none",
        sheriff_self_destruct="lose_badge", badge_on_death="must_pass", last_words="wolf_quota",
        exile_tie="sheriff_choice", witch_informed_after_antidote=False,
        guard_rule="once_per_target", same_guard_save_dies=False, hunter_blocked_causes=frozenset(),
        revealed_idiot_votable=False, win_mode="half", self_destruct_allowed=False,
        self_destructed_wolf_votes_knife=False, thief_must_swap=False, thief_bottom_rule="no_thief_in_bottom",
        seer_model="village_or_not", bear_announce="after_deaths", sheriff_vote_secret=False),
    "onuw": {},
    "onenight": {},
}


def option_type(ruleset: str) -> type:
    return OneNightOptions if ruleset in ("onuw", "onenight") else DayNightOptions


_made: dict[tuple[str, str], Any] = {}


def make_options(ruleset: str, overrides: Mapping[str, Any] | None = None) -> Any:
    """The options of ``ruleset`` with ``overrides`` (by name) applied and checked.

    Options are immutable, so each distinct set is built once (simulations make millions of games).
    """
    try:
        key = (ruleset, json.dumps(overrides, sort_keys=True, default=_sorted_list) if overrides else "")
    except (TypeError, ValueError):
        return _make_options(ruleset, overrides)
    made = _made.get(key)
    if made is None:
        made = _made[key] = _make_options(ruleset, overrides)
    return made


def _sorted_list(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    raise TypeError(f"cannot key {type(value).__name__}")


def _make_options(ruleset: str, overrides: Mapping[str, Any] | None) -> Any:
    cls = option_type(ruleset)
    values = dict(DEFAULTS[ruleset])
    if overrides:
        if not isinstance(overrides, Mapping):
            raise SetupError("options must be an object of option names to values")
        hints = typing.get_type_hints(cls)
        for name, raw in overrides.items():
            if name not in REGISTRY:
                raise SetupError(f"unknown option {name!r} for ruleset {ruleset!r} (see `werewolf options`)")
            check_accepted(ruleset, name)
            values[name] = _coerce(name, hints[name], raw)
            if values[name] is None and name in NULL_ONLY_AS_DEFAULT:
                default = getattr(cls(**DEFAULTS[ruleset]), name)
                if default is not None:
                    raise SetupError(f"option {name!r} may not be null in the {ruleset} ruleset "
                                     f"(its default there is {default!r})")
            _check_value(name, values[name])
            check_value_accepted(ruleset, name, values[name])
    return cls(**values)


# Options whose null is a default's marker, not a rule a table picks: facetoface's cupid_double_wolf_team
# (the preset decides). Elsewhere null is refused.
NULL_ONLY_AS_DEFAULT = frozenset({"cupid_double_wolf_team"})


# The ranges of the numeric options (inclusive): every rule book's value lies well inside, and a
# value outside (a 400-digit number of seconds, day 0) is a mistake, refused with the option's name.
BOUNDS: dict[str, tuple[float, float]] = {
    "sheriff_vote_weight": (0.01, 10), "sheriff_day": (1, 100), "max_days": (1, 100),
    "wolf_father_infections": (0, 10), "stuttering_judge_uses": (0, 10), "discussion_seconds": (1, 86400),
}
TIE_CONDITIONS = ("bomber", "lovers", "wolf", "good")  # the win conditions tie_priority orders
# Every cause of death a day-and-night game logs (SCRIPTED_GAMES.md, the `death` event): the vocabulary of the
# *_blocked_causes options, so a misspelt cause is refused instead of silently blocking nothing.
DEATH_CAUSES = frozenset({
    "kill", "poison", "shot", "exile", "lover", "charm", "bomb", "duel", "explode", "dream", "claw", "reflect",
    "auto", "rogue_delayed", "elder_penalty", "rusty", "big_bad_wolf", "white_wolf", "widow"})


def _check_value(name: str, value: Any) -> None:
    bounds = BOUNDS.get(name)
    if bounds is not None and value is not None and not bounds[0] <= value <= bounds[1]:
        raise SetupError(f"option {name!r} must be between {bounds[0]:g} and {bounds[1]:g}, not {quoted(value)}")
    if name == "tie_priority" and (set(value) - set(TIE_CONDITIONS) or len(set(value)) != len(value)):
        raise SetupError(f"option 'tie_priority' orders the win conditions {', '.join(TIE_CONDITIONS)}, "
                         "each at most once")
    if name.endswith("_blocked_causes") and not value <= DEATH_CAUSES:
        unknown = ", ".join(sorted(quoted(c) for c in value - DEATH_CAUSES))
        raise SetupError(f"option {name!r} lists causes of death, and not {unknown} "
                         f"(known: {', '.join(sorted(DEATH_CAUSES))})")
    if name == "clans" and value is not None:
        seats = [s for clan in value for s in clan]
        if not all(value) or min(seats) < 1 or len(set(seats)) != len(seats):
            raise SetupError("option 'clans' is two non-empty lists of seat numbers (1 and up) that share no seat")


def _coerce(name: str, hint: Any, value: Any) -> Any:
    try:
        return _convert(hint, value)
    except (TypeError, ValueError) as e:
        raise SetupError(f"bad value {quoted(value)} for option {name!r}: {e}") from None


def _weight(value: Any) -> Weight:
    """A vote's weight as the books count it: a whole number of votes stays whole (「計為兩票」: a 2 given by a
    script is the 2 of facetoface's and wechat's default, so a tally reads 3, never 3.0); 1.5 stays 1.5."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e300:  # not inf, nan
        return int(value) if float(value).is_integer() else float(value)
    raise TypeError("expected a positive finite number")


def _convert(hint: Any, value: Any) -> Any:
    if hint == Weight:
        return _weight(value)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (Union, types.UnionType):
        errors = []
        for a in args:
            if a is type(None):
                if value is None:
                    return None
                continue
            try:
                return _convert(a, value)
            except (TypeError, ValueError) as e:
                errors.append(str(e))
        raise ValueError("; ".join(errors) or "null is not allowed")
    if origin is Literal:
        if value in args and isinstance(value, str):
            return value
        raise ValueError(f"expected one of {', '.join(map(repr, args))}")
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise TypeError("expected true or false")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise TypeError("expected an integer")
    if hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e300:  # not inf, nan
            return float(value)
        raise TypeError("expected a positive finite number")
    if hint is str:
        if isinstance(value, str):
            return value
        raise TypeError("expected a string")
    if origin is frozenset:
        if isinstance(value, (list, tuple, set, frozenset)):
            return frozenset(_convert(args[0], v) for v in value)
        raise TypeError("expected a list")
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise TypeError("expected a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v) for v in value)
        if len(value) != len(args):
            raise ValueError(f"expected a list of {len(args)}")
        return tuple(_convert(a, v) for a, v in zip(args, value))
    raise TypeError(f"cannot read {hint}")


# -- which rulesets accept which option, and why ------------------------------------------------
# An option a ruleset does not accept is refused at setup, even at its default: an accepted option
# takes effect (tests/test_options_matrix.py checks that every accepted pair changes some game), and
# `werewolf options` lists this same table.

C, F, W = "classic", "facetoface", "wechat"
DAY_AND_NIGHT = frozenset({C, F, W})


@dataclass(frozen=True)
class SameRule:
    """Two values of an option that are one rule in some rulesets, by the books (not a gap in the engine):
    tests/test_options_matrix.py checks that they play every scripted game alike there."""
    value: str
    same_as: str
    rulesets: frozenset[str]
    why: str


@dataclass(frozen=True)
class OptionInfo:
    rulesets: frozenset[str]  # the rulesets that accept it
    source: str  # where it comes from: RULES.md row, the book's passage, or "house rule"
    summary: str  # what it decides, in one line
    values: str = ""  # the allowed values, where the type alone does not say them
    same: tuple[SameRule, ...] = ()
    # Values only some of the accepting rulesets accept (value, those rulesets, why): refused elsewhere at setup.
    value_only_in: tuple[tuple[str, frozenset[str], str], ...] = ()


def _info(rulesets: str | frozenset[str], source: str, summary: str, values: str = "",
          same: tuple[SameRule, ...] = (), value_only_in: tuple[tuple[str, frozenset[str], str], ...] = ()
          ) -> OptionInfo:
    return OptionInfo(frozenset({rulesets}) if isinstance(rulesets, str) else frozenset(rulesets), source, summary,
                      values, same, value_only_in)


CAUSES = "causes of death: poison, lover, …"


CF, CW = frozenset({C, F}), frozenset({C, W})
ONE_NIGHT = frozenset({"onuw", "onenight"})

REGISTRY: dict[str, OptionInfo] = {
    # sheriff
    "sheriff": _info(DAY_AND_NIGHT, "house rule (RULES.md §3.2.2)", "play with a sheriff (警長) at all"),
    "sheriff_vote_weight": _info(DAY_AND_NIGHT, "RULES.md §1.6 #1 (000 「警長視為1.5票」; 001, 002: two votes)",
                                 "what the sheriff's exile vote counts for"),
    "sheriff_day": _info(DAY_AND_NIGHT, "RULES.md §1.6 #2", "the day the sheriff is elected"),
    "sheriff_before_announcement": _info(DAY_AND_NIGHT, "RULES.md §1.6 #2, §0.4",
                                         "the election comes before the death announcement (the night's dead may run)"),
    "sheriff_registration": _info(frozenset(), "RULES.md §1.6 #2",
                                  "when hands are raised (not modelled: who may stand follows "
                                  "sheriff_before_announcement, so no ruleset accepts it)"),
    "campaign_order": _info(DAY_AND_NIGHT, "RULES.md §1.6 #8 (001 「從號碼最大或最小的開始」)",
                            "the order of the candidates' speeches"),
    "sheriff_electorate": _info(DAY_AND_NIGHT, "RULES.md §1.6 #3 (002 「所有存活角色均可參與投票」)",
                                "who votes in the sheriff election"),
    "sheriff_tie": _info(DAY_AND_NIGHT, "RULES.md §1.6 #4",
                         "a tied election: PK speeches and a PK vote, or no sheriff"),
    # 002 has no self-destruct: a wechat table that allows it (self_destruct_allowed, a house rule) picks 000's
    # answers or 001's to what it raises, like the other two (wechat's defaults are 001's, as it played before).
    "sheriff_self_destruct": _info(DAY_AND_NIGHT, "RULES.md §1.6 #5 (000 3.(2)B, A-1; 001; wechat: with "
                                   "self_destruct_allowed, a house rule)",
                                   "a wolf self-destructs in the election: postpone it once, or the badge is lost"),
    "badge_on_death": _info(DAY_AND_NIGHT, "RULES.md §1.6 #6", "a dying sheriff may tear the badge, or must pass it"),
    "idiot_reveal_destroys_badge": _info(DAY_AND_NIGHT, "RULES.md §1.6 #7 (002 「若白癡是警長，<警徽>將移除游戲」)",
                                         "an idiot sheriff who reveals loses the badge"),
    "sheriff_vote_secret": _info(DAY_AND_NIGHT, "RULES.md §3.2.2, A-77",
                                 "the election's ballots are secret (only the tallies are published)"),
    # speeches and last words
    "speech_with_sheriff": _info(DAY_AND_NIGHT, "RULES.md §1.6 #9",
                                 "with a sheriff, the direction must alternate from day to day"),
    "speech_without_sheriff": _info(DAY_AND_NIGHT, "RULES.md §1.6 #10 (001 發言規則(3), A-32)",
                                    "without a sheriff, where the day's speeches start"),
    "last_words": _info(DAY_AND_NIGHT, "RULES.md §1.6 #11", "who is given last words"),
    # exile vote
    "exile_tie": _info(DAY_AND_NIGHT, "RULES.md §1.6 #12",
                       "a tied exile vote: PK and a re-vote, the sheriff's choice, or nobody"),
    "pk_votes_only_for_pk": _info(CF, "RULES.md §1.6 #12 (001)",
                                  "in the PK re-vote, only the tied players may be voted for"),
    "lovers_may_vote_each_other": _info(DAY_AND_NIGHT, "RULES.md §1.6 #13 (001 「永遠不能互投」)",
                                        "the lovers may vote to exile each other"),
    "revealed_idiot_votable": _info(DAY_AND_NIGHT, "RULES.md §1.6 #21", "a revealed idiot may be voted for"),
    "vote_lock_win": _info(DAY_AND_NIGHT, "RULES.md §1.6 #33 (000 「法官可直接判定綁票方陣營獲勝」)",
                           "a side that controls every exile from now on wins at once (綁票)"),
    # witch, guard, hunter
    "witch_self_save": _info(DAY_AND_NIGHT, "RULES.md §1.6 #14 (001 「如無特殊說明.女巫不能自救」)",
                             "when the witch may save herself"),
    "witch_one_potion_per_night": _info(DAY_AND_NIGHT, "RULES.md §1.6 #15 (000 「每個夜晚女巫最多只能使用1瓶藥劑」)",
                                        "the witch uses at most one potion a night"),
    "witch_potions_single_use": _info(DAY_AND_NIGHT, "RULES.md §1.6 #16 (001 「整局游戲只有兩瓶藥」)",
                                      "each potion is used once per game"),
    "witch_informed_after_antidote": _info(DAY_AND_NIGHT, "RULES.md §1.6 #17",
                                           "the witch still learns the wolves' victim after her antidote is spent"),
    "guard_rule": _info(DAY_AND_NIGHT, "RULES.md §1.6 #18", "whom the guard may protect again"),
    "same_guard_save_dies": _info(DAY_AND_NIGHT, "RULES.md §1.6 #19 (同守同救)",
                                  "a wolf victim both guarded and saved dies"),
    "hunter_blocked_causes": _info(DAY_AND_NIGHT, "RULES.md §1.6 #20",
                                   "the causes of death after which the hunter cannot shoot", CAUSES),
    "wolf_king_blocked_causes": _info(C, "RULES.md §2.1 wolf_king (000 step U)",
                                      "the causes of death after which the wolf king cannot shoot", CAUSES),
    # wolves
    "win_mode": _info(DAY_AND_NIGHT, "RULES.md §1.6 #22",
                      "the wolves' win: 屠邊 (a side), 屠城 (everyone), half of the living, or the preset's",
                      value_only_in=(("preset", frozenset({F}), "it takes the rule of a facetoface preset (RULES.md "
                                      "§5.2), and only facetoface has presets: choose 'tu_bian', 'tu_cheng' or "
                                      "'half'"),)),
    "wolf_kill_first": _info(DAY_AND_NIGHT, "RULES.md §1.6 #23 (001 「狼刀在先原則」)",
                             "the win is checked after the wolves' kill, before the poison"),
    "wolf_consensus": _info(DAY_AND_NIGHT, "RULES.md §1.6 #24 (001 「無法統一意見則視為空刀」)",
                            "wolves who disagree kill nobody (the only rule the books give)"),
    "self_destruct_allowed": _info(DAY_AND_NIGHT, "RULES.md §1.6 #5", "a wolf may self-destruct (自爆) in the day"),
    "self_destructed_wolf_votes_knife": _info(DAY_AND_NIGHT, "RULES.md §1.6 #31 (000 「自爆的狼人可進行指刀行動」; "
                                              "wechat: with self_destruct_allowed, a house rule)",
                                              "a self-destructed wolf joins that night's kill"),
    # third parties and special roles
    "thief_must_swap": _info(DAY_AND_NIGHT, "RULES.md §1.6 #25", "the thief must take one of the two bottom cards"),
    "thief_bottom_rule": _info(DAY_AND_NIGHT, "RULES.md §1.6 #26",
                               "which pairs of bottom cards the thief may not be offered",
                               # The pairs 000 forbids beyond 001's hold the wolf king, a classic card: with the
                               # facetoface box (RULES.md §5.1) the two lists forbid the very same pairs.
                               same=(SameRule("classic_pairs", "ff_pairs", frozenset({F}),
                                              "000's pairs beyond 001's hold the wolf king, not in the facetoface "
                                              "box"),)),
    "cupid_double_wolf_team": _info(DAY_AND_NIGHT, "RULES.md §1.6 #27", "cupid's team when both lovers are wolves"),
    "cupid_self_link": _info(DAY_AND_NIGHT, "RULES.md §1.6 #28 (000 「其中1位可以是丘比特」)",
                             "cupid may link himself"),
    "seer_model": _info(DAY_AND_NIGHT, "RULES.md §1.6 #29, §2.1 seer",
                        "what the seer's check says: the thumb, up or down (good_wolf and wolf_or_not are one rule "
                        "under two names), or village / not village",
                        # 000 「姆指向上…好人陣營…姆指向下…狼人陣營」 and 001 「大拇指向上表示好人.大拇指向下表示狼人」,
                        # 「只有好人和壞人（狼人）兩種手勢」 give the same two gestures to the same players: a wolf
                        # card or a wolf-side player reads wolf, except the hidden wolf (his card) and cupid (both
                        # books: always good); third parties read good (001 「驗不出人狼第三方、三方丘比特」).
                        same=(SameRule("wolf_or_not", "good_wolf", DAY_AND_NIGHT,
                                       "000's thumb and 001's thumb show the same players the same gesture"),)),
    "bear_announce": _info(CW, "RULES.md §1.6 #32",
                           "the bear's roar: first thing in the morning, or after the death news"),
    "bear_detects_hidden_wolf": _info(C, "RULES.md A-13", "the bear roars beside the hidden wolf"),
    "bomber_counts_as_god": _info(C, "RULES.md A-20", "the bomber counts as a god for 屠邊"),
    "knight_duel_window": _info(C, "RULES.md §3.2.5", "when the knight may duel (the only rule the book gives)"),
    # the whole game
    "clock_source": _info(DAY_AND_NIGHT, "RULES.md §0.3 (000's clock rule 「若當前時間的分鐘尾數為奇數」)",
                          "the clock rule's coin: the seeded rng, or the minute of the wall clock"),
    "tie_priority": _info(CF, "RULES.md §0.6", "which team wins when several win conditions hold at once",
                          "bomber, lovers, wolf, good, in order"),
    "announce_order": _info(DAY_AND_NIGHT, "RULES.md §1.6 #34",
                            "the dead are announced in ascending seats (the only order the books give)"),
    "max_days": _info(DAY_AND_NIGHT, "house rule (RULES.md §4.2, A-70)",
                      "the stalemate guard: the game ends with no winner after this many days"),
    # wechat
    "expansions": _info(W, "RULES.md §2.3", "the wechat expansion roles this game may deal",
                        "wechat expansion role ids"),
    "white_wolf_nights": _info(W, "RULES.md §2.3 white_wolf, A-44", "the nights the white wolf kills alone"),
    "wolf_father_infections": _info(W, "RULES.md §2.3 wolf_father", "how many times the wolf father infects"),
    "stuttering_judge_uses": _info(W, "RULES.md §2.3 stuttering_judge, A-50",
                                   "how many second votes the judge may call"),
    "scapegoat_overrides_sheriff": _info(W, "RULES.md A-49 (002 「如出現平票，警長投票的角色出局」)",
                                         "a tie exiles the living scapegoat before the sheriff's tie-break"),
    "clans": _info(W, "RULES.md §2.3 prejudiced", "the prejudiced player's two clans (default: a seeded split)",
                   "two lists of seats, or null"),
    # facetoface
    "preset": _info(F, "RULES.md §5.2", "the 001 preset the deck is played as (default: the one the deck matches)",
                    "a facetoface preset id, or null"),
    # one night
    "allow_self_vote": _info(ONE_NIGHT, "house rule (RULES.md §3.5)", "a player may vote for himself"),
    "drunk_must_swap": _info("onuw", "RULES.md §2.4 drunk", "the drunk must take a centre card"),
    "robber_optional": _info(ONE_NIGHT, "RULES.md §2.4 robber", "the robber may choose not to rob"),
    "troublemaker_optional": _info("onuw", "RULES.md §2.4 troublemaker", "the troublemaker may choose not to swap"),
    "discussion_seconds": _info(ONE_NIGHT, "RULES.md §1.7 (004: five minutes, one-minute and open-ended variants)",
                                "the length of the day's discussion (null: no limit)"),
}


def accepted(ruleset: str) -> list[str]:
    """The options ``ruleset`` accepts, in the order of its options type."""
    return [f.name for f in dataclasses.fields(option_type(ruleset)) if ruleset in REGISTRY[f.name].rulesets]


def check_value_accepted(ruleset: str, name: str, value: Any) -> None:
    for only, rulesets, why in REGISTRY[name].value_only_in:
        if value == only and ruleset not in rulesets:
            raise SetupError(f"option {name!r} may not be {only!r} in the {ruleset} ruleset: {why}")


def check_accepted(ruleset: str, name: str) -> None:
    rulesets = REGISTRY[name].rulesets
    if ruleset not in rulesets:
        where = f" (it applies only to {', '.join(sorted(rulesets))})" if rulesets else f": {REGISTRY[name].summary}"
        raise SetupError(f"option {name!r} does not apply to the {ruleset} ruleset{where}")


def _json(value: Any) -> Any:
    """An option's value as a scripted game's ``options`` writes it."""
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return value


def _kind(hint: Any) -> tuple[str, str]:
    """An option type's name and its allowed values, as a reader would write them."""
    if hint == Weight:
        return "number", "a number > 0"
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (Union, types.UnionType):
        kinds = [_kind(a) for a in args if a is not type(None)]
        kind, allowed = kinds[0] if len(kinds) == 1 else ("|".join(k for k, _ in kinds), "; ".join(a for _, a in kinds))
        return kind + "|null", allowed + ", or null"
    if typing.get_origin(hint) is Literal:
        return "choice", ", ".join(args)
    if hint is bool:
        return "bool", "true, false"
    if hint is int:
        return "int", "an integer"
    if hint is str:
        return "string", "a name"
    if typing.get_origin(hint) is frozenset:
        return "list", "a list of names"
    if typing.get_origin(hint) is tuple:
        return "list", "a list of names" if args[-1] is Ellipsis else f"a list of {len(args)} lists of seats"
    return str(hint), ""


def describe() -> list[dict[str, Any]]:
    """Every option: its type, allowed values, default in each ruleset that accepts it, source, summary.

    `werewolf options` prints this; the defaults are those in force before a deck is chosen (a
    facetoface preset then fixes win_mode, cupid_double_wolf_team and witch_self_save).
    """
    rulesets = list(DEFAULTS)
    out = []
    seen: set[str] = set()
    for cls in (DayNightOptions, OneNightOptions):
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if f.name in seen:
                continue
            seen.add(f.name)
            info = REGISTRY[f.name]
            kind, allowed = _kind(hints[f.name])
            allowed = info.values or allowed
            for only, where, _ in info.value_only_in:
                allowed += f" ({only} only in {', '.join(sorted(where))})"
            for same in info.same:
                allowed += f" ({same.value} = {same.same_as} in {', '.join(sorted(same.rulesets))})"
            out.append({
                "name": f.name, "type": kind, "allowed": allowed,
                "defaults": {r: _json(getattr(make_options(r), f.name)) for r in rulesets if r in info.rulesets},
                "accepted_by": [r for r in rulesets if r in info.rulesets],
                "source": info.source, "summary": info.summary,
            })
    return out


# -- the options a game is played with, as its log records them --------------------------------------------
_DIFFS: dict[int, tuple[Any, dict[str, Any]]] = {}


def _plain(value: Any) -> Any:
    """A value as JSON has it: sets sorted into lists, tuples as lists."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def played_with(ruleset: str, opts: Any) -> dict[str, Any]:
    """The options ``opts`` sets otherwise than ``ruleset``'s defaults, by name, as JSON has them: what a log's
    ``game_start`` records, so that anyone reading the log knows the table's rules (``in_force``).

    Options are made once per set (``make_options``): the answer is kept per options object.
    """
    hit = _DIFFS.get(id(opts))
    if hit is not None and hit[0] is opts:
        return hit[1]
    base = make_options(ruleset)
    out = {f.name: _plain(getattr(opts, f.name)) for f in dataclasses.fields(opts)
           if getattr(opts, f.name) != getattr(base, f.name)}
    if len(_DIFFS) >= 256:
        _DIFFS.clear()
    _DIFFS[id(opts)] = (opts, out)
    return out


def in_force(ruleset: str, played: Mapping[str, Any] | None) -> dict[str, Any]:
    """Every option of a game of ``ruleset`` by name: its defaults with ``played`` (``played_with``'s record)."""
    opts = make_options(ruleset, played or None)
    return {f.name: getattr(opts, f.name) for f in dataclasses.fields(opts)}
