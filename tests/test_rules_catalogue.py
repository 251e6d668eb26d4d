"""The rule catalogue (werewolf/i18n/rules.json): every rule id the engine can emit is explained.

Found two ways: statically, every string the rulesets give as a ``rule`` (a ``rule=`` argument,
a ``*_RULE*`` table, an ``*_rule`` attribute or ``rule`` variable); and dynamically, every ``rule``
of a sample of games of every ruleset and every book deck, and of every scripted game.
"""

from __future__ import annotations

import ast
import json
import random
from functools import cache
from pathlib import Path

import pytest

from werewolf import rulesets
from werewolf.core.events import MODERATOR
from werewolf.core.game import Game, Setup
from werewolf.core.views import visible_events
from werewolf.i18n import LANGS, narrate
from werewolf.i18n.rules import book_catalogue, explain, rule_catalogue
from werewolf.script import parse, run

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ("classic", "facetoface", "wechat", "onuw", "onenight")
SCRIPTS = sorted((ROOT / "tests" / "scripts").rglob("*.json"))

# Reasons the table must not learn from a public event: they may only ride on the moderator's log
# (or a private event of the seat they concern).
HIDDEN = frozenset({
    "guard_protects", "antidote_saves", "same_guard_save_lives", "same_guard_save_dies", "dream_immune",
    "potion_wasted_on_dreamer", "elder_first_life", "old_rogue_wounded", "step_pretended",
    "shot_refused_by_cause", "shot_refused_powers_lost", "infection_guarded", "rusty_infects", "enchant_fails",
    "self_destruct_replaces_night_death", "wild_child_transforms", "step_skipped_absent_role",
    "seer_sees_swapped", "seer_thumb_up_always", "faction_defeated",
})


def _rule_strings(node: ast.AST, where: str) -> list[str]:
    """The rule ids an expression can evaluate to (a literal, or either side of ``if``/``or``)."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) and node.value else []
    if isinstance(node, ast.IfExp):
        return _rule_strings(node.body, where) + _rule_strings(node.orelse, where)
    if isinstance(node, ast.BoolOp):
        return [s for v in node.values for s in _rule_strings(v, where)]
    if isinstance(node, ast.JoinedStr):
        raise AssertionError(f"{where}: a rule id built at run time cannot be checked against the catalogue")
    return []  # a name or a table look-up: its values are found where they are written


@cache
def static_rule_ids() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted((ROOT / "werewolf").rglob("*.py")):
        if path.parts[-2] not in ("rulesets", "daynight", "core"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            values: list[ast.AST] = []
            if isinstance(node, ast.keyword) and node.arg == "rule":
                values = [node.value]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and "RULE" in t.id and isinstance(node.value, ast.Dict):
                        values += [v for v in node.value.values if v is not None]  # a table of rules
                    elif (isinstance(t, ast.Name) and t.id == "rule") or (
                            isinstance(t, ast.Attribute) and t.attr.endswith("_rule")):
                        values.append(node.value)  # the rule a step decided (``t.exile_rule = ...``)
            for v in values:
                if isinstance(v, ast.Tuple):  # a table of several rules per key
                    for elt in v.elts:
                        for s in _rule_strings(elt, where):
                            found.setdefault(s, where)
                    continue
                for s in _rule_strings(v, where):
                    found.setdefault(s, where)
    return found


@cache
def sampled_events() -> list[tuple[str, object]]:
    """Events of random games: every ruleset, every book deck, a few seeds each."""
    out: list[tuple[str, object]] = []
    for name in RULESETS:
        decks = list(rulesets.get_ruleset(name).decks())
        rng = random.Random(19)
        for i in range(max(24, 2 * len(decks))):
            deck = decks[i % len(decks)]
            seed = rng.randrange(1 << 30)
            game = Game(Setup(name, deck=deck, seed=seed))
            game.play_out(random.Random(seed))
            out += [(name, e) for e in game.events]
    return out


def test_every_statically_named_rule_is_catalogued_in_every_language() -> None:
    ids = static_rule_ids()
    assert len(ids) > 80  # the scan found the rulesets' rules (not an empty pass)
    catalogue = rule_catalogue()
    missing = {rid: where for rid, where in ids.items() if rid not in catalogue}
    assert not missing, f"rule ids without a catalogue entry: {missing}"


def test_catalogue_entries_are_complete() -> None:
    books = book_catalogue()
    for rid, entry in rule_catalogue().items():
        for lang in LANGS:
            text = entry["text"].get(lang)
            assert isinstance(text, str) and text.strip(), f"{rid}: no {lang} explanation"
        assert entry["book"] in books, f"{rid}: unknown source {entry['book']!r}"
        assert entry["section"] and entry["quote"], f"{rid}: no section or sentence"
        if entry["book"] == "RULES.md":  # the books are silent: the option or proposal must say so
            assert entry.get("proposal"), f"{rid}: a digest rule must name its option or proposal"
    for book in books.values():
        assert all(book["title"].get(lang) for lang in LANGS)


def test_sampled_games_emit_only_catalogued_rules_and_the_scan_sees_them_all() -> None:
    catalogue, static = rule_catalogue(), static_rule_ids()
    seen: dict[str, set[str]] = {}
    for name, e in sampled_events():
        rule = e.data.get("rule")  # type: ignore[attr-defined]
        if rule is not None:
            seen.setdefault(name, set()).add(rule)
    assert set(seen) == set(RULESETS), "every ruleset's games name rules"
    for name, ids in seen.items():
        assert ids <= set(catalogue), f"{name}: uncatalogued {ids - set(catalogue)}"
        assert ids <= set(static), f"{name}: the static scan missed {ids - set(static)}"
    # The common rulings really are named in a sample this size.
    everything = set().union(*seen.values())
    assert {"wolves_kill", "exiled_by_vote", "peaceful_night", "exile_most_votes", "sheriff_vote_weight"} <= everything


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scripted_games_emit_only_catalogued_rules(path: Path) -> None:
    out = run(parse(json.loads(path.read_text(encoding="utf-8"))))
    unknown = {e.data["rule"] for e in out.events if "rule" in e.data} - set(rule_catalogue())
    assert not unknown


def test_no_public_event_names_a_hidden_reason() -> None:
    for name, e in sampled_events():
        rule = e.data.get("rule")  # type: ignore[attr-defined]
        if rule in HIDDEN:
            assert e.to == MODERATOR or (e.to and len(e.to) == 1), f"{name}: {rule} told to {e.to}"  # type: ignore[attr-defined]


def test_a_guarded_night_reads_peaceful_to_the_village() -> None:
    script = {"ruleset": "classic",
              "seats": ["werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "guard", "villager", "villager"],
              "stop_after_day": 1,
              "moves": {"night1": [{"seat": 7, "act": "guard", "target": 8},
                                   {"seat": 1, "act": "kill", "target": 8}, {"seat": 2, "act": "kill", "target": 8},
                                   {"seat": 3, "act": "kill", "target": 8}]}}
    out = run(parse(script))
    assert out.error is None, out.error
    log = [e.as_json() for e in out.events]
    assert any(e["type"] == "ruling" and e["rule"] == "guard_protects" and e["to"] == [] for e in log)
    seen = [e.as_json(with_audience=False) for e in visible_events(out.events, 9)]
    announce = next(e for e in seen if e["type"] == "announce")
    assert announce["seats"] == [] and announce["rule"] == "peaceful_night"
    assert not any(e.get("rule") in HIDDEN for e in seen)
    # What the village may read about it: several possible reasons, none singled out.
    for lang in LANGS:
        text = explain("peaceful_night", lang)["text"]
        assert text and narrate(announce, lang, 9)


def test_explain_falls_back_for_an_unknown_id() -> None:
    got = explain("no_such_rule", "zh-Hant")
    assert got["known"] is False and got["text"] == "no_such_rule"
    assert explain("same_guard_save_dies", "zh-Hans")["quote"].startswith("在同一個夜晚")


# Scripted games and the rules their outcomes must name: (rule, told to the table?) — the hidden
# reasons only to the moderator, the public outcome to everyone.
NAMED = {
    "classic/guard_and_antidote_same_victim_dies": {("same_guard_save_dies", False), ("night_deaths_announced", True)},
    "classic/guard_and_antidote_victim_lives_option": {("same_guard_save_lives", False), ("peaceful_night", True)},
    "classic/guard_protects_from_knife": {("guard_protects", False), ("peaceful_night", True)},
    "classic/dreamcatcher_dreamer_immune_to_knife": {("dream_immune", False), ("peaceful_night", True)},
    "classic/exile_pk_tie_again_no_exile": {("exile_tie_pk", True), ("pk_tie_no_exile", True)},
    "classic/exile_tie_pk_revote_exiles": {("exile_tie_pk", True), ("pk_most_votes", True)},
    "classic/bomber_exiled_voters_die": {("bomber_takes_voters", True), ("exile_most_votes", True)},
    "classic/idiot_exiled_reveals_and_survives": {("idiot_reveal_survives", True)},
    "classic/knight_duel_good_player_knight_dies_vote_continues": {("knight_duel_fails", True)},
    "classic/sheriff_second_self_destruct_badge_lost": {("badge_lost_to_self_destruct", True),
                                                        ("sheriff_self_destruct_postpones", True)},
    "classic/poisoned_wolf_self_destructs_in_election_poison_void": {("self_destruct_replaces_night_death", False)},
    "classic/silenced_player_skips_day_speech": {("silencer_silences", True)},
    "classic/spirit_knight_poison_kills_witch": {("spirit_knight_reflects", False)},
    "classic/step_of_absent_role_skipped_dead_role_pretended": {("step_skipped_absent_role", False),
                                                                ("step_pretended", False)},
    "classic/no_last_words_ruling_names_the_rule": {("last_words_first_night_and_days", True)},
    "facetoface/no_last_words_night2_two_deaths_ruling": {("last_words_ff_standard", True)},
    "wechat/no_last_words_quota_spent_ruling": {("last_words_wolf_quota", True)},
    # Outcomes that once named no rule: the bear's roar, a faction's defeat, checks a rule bent, the order of
    # speeches after a peaceful night.
    "classic/bear_announce_after_deaths_option": {("bear_roars", True)},
    "wechat/wolves_all_charmed_defeated_cannot_win_later": {("faction_defeated", False)},
    "classic/hidden_wolf_seer_sees_good": {("seer_thumb_up_always", False)},
    "classic/magician_swap_changes_seer_result": {("seer_sees_swapped", False)},
    "classic/peaceful_night_no_sheriff_speeches_by_seat_number": {("speech_by_seat_number", True),
                                                                  ("peaceful_night", True)},
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_scripted_outcomes_name_their_rules(name: str) -> None:
    paths = [p for p in SCRIPTS if f"{p.parent.name}/{p.stem}" == name]
    assert paths, name
    out = run(parse(json.loads(paths[0].read_text(encoding="utf-8"))))
    named = {(e.data["rule"], e.to is None) for e in out.events if "rule" in e.data}
    assert NAMED[name] <= named, named
