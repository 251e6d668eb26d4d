"""The options matrix (issue 21): every option a ruleset accepts changes some scripted game.

A scripted game in tests/scripts that sets an option to a value other than its ruleset's default
"covers" (option, ruleset, value) when the same game with that option dropped turns out differently:
another event log, or an error where there was none (or none where there was one). Every accepted pair
must be covered, so an option that a ruleset accepts and silently ignores fails here; and for an option
of a few named values (a choice or a flag) every value other than the ruleset's default must be covered
on its own, so a ruleset that honours one value and ignores another fails too. Two values the books make
one rule are declared in the registry (``SameRule``, with the reason), and then must play every scripted
game that sets either alike; a value only some rulesets accept (``value_only_in``) is refused elsewhere.
Options a ruleset does not accept are refused at setup, naming the option and the ruleset.
"""

from __future__ import annotations

import dataclasses
import json
import types
from functools import cache
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest

from werewolf import script as sg
from werewolf.core.errors import SetupError
from werewolf.core.game import Game, Setup
from werewolf.rulesets import MODULES
from werewolf.rulesets.options import DEATH_CAUSES, REGISTRY, accepted, make_options, option_type

SCRIPTS = Path(__file__).parent / "scripts"

# Options whose effect no scripted game can show, with the test here that shows it instead.
COVERED_ELSEWHERE = {
    "clock_source": "test_wallclock_minute_decides_the_clock_rule",  # the wall clock is not deterministic
}


def single_valued(name: str, ruleset: str) -> bool:
    """An option with one allowed value (the only rule the books give) has nothing to ignore."""
    hint = get_type_hints(option_type(ruleset))[name]
    return get_origin(hint) is Literal and len(get_args(hint)) == 1


def accepted_pairs() -> set[tuple[str, str]]:
    return {(name, r) for r in MODULES for name in accepted(r) if not single_valued(name, r)}


def scripts() -> list[Path]:
    return sorted(SCRIPTS.rglob("*.json"))


@cache
def outcome(text: str) -> tuple[bool, tuple[str, ...]]:
    """Whether the game was refused, and its event log (moderator's view) without the game_start's record of
    the options (it names every option set, so it would make any option look as if it changed the game)."""
    try:
        out = sg.run(sg.parse(json.loads(text)))
    except (sg.ScriptError, SetupError):
        return True, ()
    return out.error is not None, tuple(json.dumps(_played(e), sort_keys=True, default=repr) for e in out.events)


def _played(e: Any) -> dict[str, Any]:
    line: dict[str, Any] = e.as_json()
    if e.type == "game_start":
        line.pop("options", None)
    return line


def non_default(ruleset: str, options: dict[str, Any]) -> list[str]:
    """The options a game sets to something other than its ruleset's default."""
    default = make_options(ruleset)
    out = []
    for name, value in options.items():
        try:
            given = make_options(ruleset, {name: value})
        except SetupError:
            continue  # refused: covers nothing
        if getattr(given, name) != getattr(default, name):
            out.append(name)
    return out


def games() -> list[tuple[str, dict[str, Any]]]:
    """Every scripted game of a ruleset with named options: its file's name, its document."""
    out = []
    for path in scripts():
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("ruleset") in MODULES and isinstance(doc.get("options") or {}, dict):
            out.append((f"{path.parent.name}/{path.name}", doc))
    return out


def key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


@cache
def value_coverage() -> dict[tuple[str, str, str], list[str]]:
    """(option, ruleset, value as JSON) -> the games whose outcome that value changes."""
    covered: dict[tuple[str, str, str], list[str]] = {}
    for name_of_file, doc in games():
        ruleset, options = doc["ruleset"], doc.get("options") or {}
        base = outcome(key(doc))
        for name in non_default(ruleset, options):
            dropped = dict(doc, options={k: v for k, v in options.items() if k != name})
            if outcome(key(dropped)) != base:
                covered.setdefault((name, ruleset, key(options[name])), []).append(name_of_file)
    return covered


@cache
def coverage() -> dict[tuple[str, str], list[str]]:
    covered: dict[tuple[str, str], list[str]] = {}
    for (name, ruleset, _), files in value_coverage().items():
        covered.setdefault((name, ruleset), []).extend(files)
    return covered


def choices(name: str, ruleset: str) -> list[Any] | None:
    """The values of an option of named values (a choice or a flag), null aside (null only marks a
    default where the rules pick none); None for an option of numbers, lists or names."""
    hint = get_type_hints(option_type(ruleset))[name]
    parts = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    out: list[Any] = []
    for part in parts:
        if part is type(None):
            continue
        if part is bool:
            out += [True, False]
        elif get_origin(part) is Literal:
            out += list(get_args(part))
        else:
            return None
    return out


def refused_values(name: str, ruleset: str) -> set[str]:
    return {value for value, rulesets, _ in REGISTRY[name].value_only_in if ruleset not in rulesets}


def twin(name: str, ruleset: str, value: Any) -> Any:
    """The value a ``SameRule`` makes one rule with ``value`` in ``ruleset`` (either way round), or None."""
    for same in REGISTRY[name].same:
        if ruleset in same.rulesets and value in (same.value, same.same_as):
            return same.same_as if value == same.value else same.value
    return None


def value_triples() -> list[tuple[str, str, Any]]:
    """Every (option, ruleset, value) the matrix asks about: the accepted options of named values, each
    value other than the ruleset's default that the ruleset accepts."""
    out = []
    for r in MODULES:
        for name in accepted(r):
            values = choices(name, r)
            if values is None or name in COVERED_ELSEWHERE:
                continue
            default = getattr(make_options(r), name)
            out += [(name, r, v) for v in values if v != default and v not in refused_values(name, r)]
    return out


@cache
def same_rule_games() -> dict[tuple[str, str, str], list[str]]:
    """(option, ruleset, value) of a ``SameRule`` -> the games that set either of its two values and play
    alike with the other; a game that plays differently fails here, naming it."""
    checked: dict[tuple[str, str, str], list[str]] = {}
    for name_of_file, doc in games():
        ruleset, options = doc["ruleset"], doc.get("options") or {}
        for name, given in options.items():
            if name not in REGISTRY:
                continue
            for same in REGISTRY[name].same:
                if ruleset not in same.rulesets or given not in (same.value, same.same_as):
                    continue
                other = same.same_as if given == same.value else same.value
                swapped = dict(doc, options=dict(options, **{name: other}))
                assert outcome(key(swapped)) == outcome(key(doc)), (
                    f"{name_of_file}: {name}={given!r} and {other!r} are declared one rule in {ruleset} "
                    f"({same.why}) but play differently")
                for value in (same.value, same.same_as):
                    checked.setdefault((name, ruleset, key(value)), []).append(name_of_file)
    return checked


def test_registry_is_the_options_types() -> None:
    names = {f.name for r in MODULES for f in dataclasses.fields(option_type(r))}
    assert set(REGISTRY) == names
    for name, info in REGISTRY.items():
        assert info.rulesets <= set(MODULES), name
        for r in info.rulesets:  # an option is accepted only by the family whose type has it
            assert name in {f.name for f in dataclasses.fields(option_type(r))}, (name, r)
        assert info.source and info.summary, name


def test_every_accepted_option_changes_some_game() -> None:
    covered = coverage()
    assert all(callable(globals().get(test)) for test in COVERED_ELSEWHERE.values())
    want = accepted_pairs() - {(n, r) for n, r in accepted_pairs() if n in COVERED_ELSEWHERE}
    missing = sorted(want - set(covered))
    assert not missing, "accepted but changes no scripted game: " + ", ".join(f"{n} ({r})" for n, r in missing)


def test_every_value_of_a_choice_changes_some_game() -> None:
    covered = value_coverage()
    same = same_rule_games()
    missing = []
    for name, r, value in value_triples():
        other = twin(name, r, value)
        if other is None:
            if (name, r, key(value)) not in covered:
                missing.append(f"{name}={key(value)} ({r})")
            continue
        # One rule under two names: it must play like its twin in every game that sets either, and some
        # game must set one (checked by same_rule_games); the twin answers for a change from the default.
        if (name, r, key(value)) not in same:
            missing.append(f"{name}={key(value)} ({r}): no game sets it or {other!r}, so its declared "
                           "sameness is unchecked")
        if other != getattr(make_options(r), name) and (name, r, key(other)) not in covered:
            missing.append(f"{name}={key(other)} ({r}), {key(value)}'s twin")
    assert not missing, "a value accepted but changes no scripted game: " + ", ".join(missing)


def test_same_rules_are_declared_between_values_of_the_option() -> None:
    for name, info in REGISTRY.items():
        for same in info.same:
            assert same.why and same.value != same.same_as, name
            for r in same.rulesets:
                assert r in info.rulesets, (name, r)
                values = choices(name, r) or []
                assert same.value in values and same.same_as in values, (name, r)
        for value, rulesets, why in info.value_only_in:
            assert why and rulesets < info.rulesets, name
            assert all(value in (choices(name, r) or []) for r in info.rulesets), name


REFUSED_VALUES = [(name, r, value) for name, info in REGISTRY.items() for r in sorted(info.rulesets)
                  for value in sorted(refused_values(name, r))]


@pytest.mark.parametrize("name,ruleset,value", REFUSED_VALUES, ids=lambda x: str(x))
def test_value_not_accepted_is_refused_naming_option_value_and_ruleset(name: str, ruleset: str, value: str) -> None:
    with pytest.raises(SetupError) as e:
        Game(Setup(ruleset, players=None, options={name: value}))
    assert name in str(e.value) and repr(value) in str(e.value) and ruleset in str(e.value)


def _sample(ruleset: str, name: str) -> Any:
    """The option's default in a ruleset that accepts it, as a script would write it."""
    home = sorted(REGISTRY[name].rulesets)[0] if REGISTRY[name].rulesets else ruleset
    value = getattr(make_options(home) if REGISTRY[name].rulesets else option_type(ruleset)(), name, None)
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, tuple):
        return [list(v) if isinstance(v, tuple) else v for v in value]
    return value


REFUSED = [(name, r) for r in MODULES for name in REGISTRY if r not in REGISTRY[name].rulesets]


@pytest.mark.parametrize("name,ruleset", REFUSED, ids=lambda x: str(x))
def test_option_not_accepted_is_refused_naming_option_and_ruleset(name: str, ruleset: str) -> None:
    with pytest.raises(SetupError) as e:
        Game(Setup(ruleset, players=None, options={name: _sample(ruleset, name)}))
    assert name in str(e.value) and ruleset in str(e.value)


def test_refused_option_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from werewolf.cli import main

    path = tmp_path / "game.json"
    path.write_text(json.dumps({"ruleset": "classic", "options": {"white_wolf_nights": "even"},
                                "seats": ["werewolf", "seer", "villager"], "moves": {"day1": []}}))
    with pytest.raises(SystemExit) as e:
        main(["script", str(path)], standalone_mode=True)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "white_wolf_nights" in err and "classic" in err


def test_wallclock_minute_decides_the_clock_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    from werewolf.rulesets.daynight import state

    seats = ["werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "villager", "villager", "villager"]
    doc = {"ruleset": "classic", "seats": seats, "options": {"clock_source": "wallclock", "sheriff": False},
           "moves": {"night1": [{"seat": 1, "act": "kill", "target": 7}], "day1": []}}
    orders = {}
    for minute in (0, 1):
        monkeypatch.setattr(state, "wallclock_minute", lambda m=minute: m)
        out = sg.run(sg.parse(doc))
        orders[minute] = [e.data["seat"] for e in out.events if e.type == "speech"]
    # 「若當前時間的分鐘尾數為奇數」: an odd minute goes clockwise (ascending) from the death, an even one back.
    assert orders[1] == [8, 9, 1, 2, 3, 4, 5, 6]
    assert orders[0] == [6, 5, 4, 3, 2, 1, 9, 8]


@pytest.mark.parametrize("ruleset", ["facetoface", "wechat"])
def test_wallclock_minute_decides_the_coin_in_every_ruleset(ruleset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """clock_source=wallclock is accepted by all three: the minute turns the coin where the speech rule
    flips one (facetoface last_dead_coin, wechat clock_deaths), as in classic."""
    from werewolf.rulesets.daynight import state

    seats = ["werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "villager", "villager", "villager"]
    doc = {"ruleset": ruleset, "seats": seats, "options": {"clock_source": "wallclock", "sheriff": False},
           "moves": {"night1": [{"seat": 1, "act": "kill", "target": 7}], "day1": []}}
    orders = {}
    for minute in (0, 1):
        monkeypatch.setattr(state, "wallclock_minute", lambda m=minute: m)
        out = sg.run(sg.parse(doc))
        orders[minute] = [e.data["seat"] for e in out.events if e.type == "speech"]
    assert orders[0] and sorted(orders[0]) == sorted(orders[1]) and orders[0] != orders[1]


# -- `werewolf options` shows the set the engine honours ----------------------------------------
def _listing(*args: str) -> Any:
    from click.testing import CliRunner

    from werewolf.cli import main

    result = CliRunner().invoke(main, ["options", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_options_json_is_the_set_the_engine_honours() -> None:
    listed = json.loads(_listing("--json"))
    assert [o["name"] for o in listed] == list(dict.fromkeys(
        f.name for r in MODULES for f in dataclasses.fields(option_type(r))))
    for o in listed:
        for r in MODULES:
            # Each ruleset's listed default is accepted as given; an option not listed for it is refused.
            if r in o["accepted_by"]:
                assert getattr(make_options(r, {o["name"]: o["defaults"][r]}), o["name"]) == getattr(
                    make_options(r), o["name"]), (o["name"], r)
                assert o["name"] in accepted(r)
            else:
                assert o["name"] not in accepted(r) and r not in o["defaults"]
                with pytest.raises(SetupError, match=o["name"]):
                    make_options(r, {o["name"]: _sample(r, o["name"])})
        assert o["type"] and o["allowed"] and o["source"] and o["summary"], o["name"]


def test_options_table_for_one_ruleset() -> None:
    text = _listing("--ruleset", "facetoface")
    lines = text.splitlines()
    assert lines[0].split()[:4] == ["option", "type", "allowed", "values"] and "default (facetoface)" in lines[0]
    names = {line.split()[0] for line in lines[1:] if line and not line.startswith(("facetoface:", " "))}
    assert set(accepted("facetoface")) <= names
    assert "white_wolf_nights" not in names and "preset" in names
    row = next(line for line in lines if line.startswith("sheriff_vote_weight "))
    assert " 2 " in row and "§1.6 #1" in row  # facetoface's own default, and the rule it comes from


def test_options_table_marks_options_not_accepted() -> None:
    row = next(line for line in _listing().splitlines() if line.startswith("white_wolf_nights "))
    assert row.count("not accepted") == 4 and " even " in row


def test_options_unknown_ruleset_exits_2() -> None:
    from click.testing import CliRunner

    from werewolf.cli import main

    result = CliRunner().invoke(main, ["options", "--ruleset", "nope"])
    assert result.exit_code == 2 and "nope" in result.output


NULL_REFUSED = [("classic", "cupid_double_wolf_team"), ("wechat", "cupid_double_wolf_team")]


@pytest.mark.parametrize("ruleset,name", NULL_REFUSED)
def test_null_is_refused_where_it_marks_no_rule(ruleset: str, name: str) -> None:
    # null means "the preset decides" (facetoface's cupid): elsewhere it used to pass and silently play the
    # default. (wechat's sheriff_self_destruct was null for "no such rule", and played as lose_badge: it is
    # lose_badge now, and null is no value of the option anywhere.)
    with pytest.raises(SetupError, match=f"{name}.*{ruleset}.*default there is '"):
        make_options(ruleset, {name: None})
    assert make_options("facetoface", {"cupid_double_wolf_team": None}).cupid_double_wolf_team is None


@pytest.mark.parametrize("ruleset", ["classic", "facetoface", "wechat"])
def test_sheriff_self_destruct_null_is_a_bad_value(ruleset: str) -> None:
    with pytest.raises(SetupError, match="bad value None for option 'sheriff_self_destruct'"):
        make_options(ruleset, {"sheriff_self_destruct": None})


@pytest.mark.parametrize("name", ["hunter_blocked_causes", "wolf_king_blocked_causes"])
def test_blocked_causes_name_causes_of_death(name: str) -> None:
    # A misspelt cause used to be taken and to block nothing: an accepted value that does nothing.
    with pytest.raises(SetupError, match=f"{name}.*'poisen'"):
        make_options("classic", {name: ["poisen", "lover"]})
    causes = set()
    for _, doc in games():
        if doc["ruleset"] in ("classic", "facetoface", "wechat"):
            for line in outcome(key(doc))[1]:
                event = json.loads(line)
                if event["type"] == "death":
                    causes.add(event["cause"])
    assert causes <= DEATH_CAUSES, causes - DEATH_CAUSES  # the vocabulary holds every cause a game logs
    assert {"poison", "lover", "dream", "charm", "exile", "shot", "kill"} <= causes
