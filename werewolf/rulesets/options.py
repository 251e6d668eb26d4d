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

from werewolf.core.errors import SetupError

Cause = str
# A vote's weight: a positive number, read as given (the books' 2 stays a 2 in the log). Not ``float``
# alone: a compiled build (mypyc) turns whatever it reads as a float into one (2 becomes 2.0).
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
    sheriff_self_destruct: Literal["postpone_once", "lose_badge"] | None = "postpone_once"
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
        sheriff_self_destruct=None, badge_on_death="must_pass", last_words="wolf_quota",
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
        names = {f.name for f in dataclasses.fields(cls)}
        for name, raw in overrides.items():
            if name not in names:
                raise SetupError(f"unknown option {name!r} for ruleset {ruleset!r}")
            values[name] = _coerce(name, hints[name], raw)
    return cls(**values)


def _coerce(name: str, hint: Any, value: Any) -> Any:
    try:
        return _convert(hint, value)
    except (TypeError, ValueError) as e:
        raise SetupError(f"bad value {value!r} for option {name!r}: {e}") from None


def _convert(hint: Any, value: Any) -> Any:
    if hint == Weight:  # a positive number, as ``float`` reads it
        hint = float
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
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value)
        raise TypeError("expected a positive number")
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
