"""Explanations that fit the table (issue 26 item 9): a rule's sentence is chosen by the game's ruleset and
options (werewolf/i18n/rules.json ``variants``), and for sampled games of every ruleset and every option set
of the registry, the sentence shown agrees with what happened."""

from __future__ import annotations

import dataclasses
import random
import re
from functools import cache
from typing import Any, get_args, get_origin, get_type_hints

import pytest

from werewolf.core.errors import SetupError
from werewolf.core.events import Event
from werewolf.core.game import Game, Setup
from werewolf.i18n import LANGS
from werewolf.i18n.rules import aliases, book_catalogue, explain, rule_catalogue, variant
from werewolf.replay import Record, replay, rulings
from werewolf.rulesets import MODULES, get_ruleset
from werewolf.rulesets.options import DEFAULTS, REGISTRY, accepted, in_force, make_options, option_type

# The book each ruleset plays (a ruling shown there cites it, or the digest with its proposal).
OWN_BOOK = {"classic": "000", "facetoface": "001", "wechat": "002", "onuw": "003", "onenight": "004"}
# Rulings an option decides, and the option: a table playing another value than its ruleset's reads the
# option (the digest, with a proposal), never a book's sentence for the value it does not play.
DECIDED_BY = {
    "sheriff_vote_weight": "sheriff_vote_weight", "sheriff_election_vote": "sheriff_electorate",
    "speech_from_the_deaths": "speech_without_sheriff", "speech_from_the_last_dead": "speech_without_sheriff",
    "speech_by_seat_number": "speech_without_sheriff", "same_guard_save_lives": "same_guard_save_dies",
    "exile_tie_none": "exile_tie",
}
CJK = re.compile(r"[\u4e00-\u9fff]")


# -- the catalogue's variants ------------------------------------------------------------------------------
def test_every_variant_is_complete_and_names_real_rulesets_and_options() -> None:
    books = book_catalogue()
    for rid, entry in rule_catalogue().items():
        ids = [v["id"] for v in entry.get("variants", ())]
        assert len(ids) == len(set(ids)), f"{rid}: variant ids repeat"
        for v in entry.get("variants", ()):
            where = f"{rid}/{v['id']}"
            assert set(v["when"]) <= {"ruleset", "options"} and v["when"], where
            assert set(v.get("ruleset", ())) <= set(MODULES)
            for r in v["when"].get("ruleset", ()):
                assert r in MODULES, where
            for name in v["when"].get("options", {}):
                assert name in REGISTRY, f"{where}: unknown option {name}"
                assert any(r in REGISTRY[name].rulesets for r in v["when"].get("ruleset", MODULES)), where
            merged = {**entry, **v}
            assert merged["book"] in books and merged["section"] and merged["quote"], where
            assert all(merged["text"].get(lang) for lang in LANGS), f"{where}: a language has no text"
            if merged["book"] == "RULES.md":
                assert merged.get("proposal"), f"{where}: a digest rule must name its option or proposal"


def test_every_proposal_speaks_every_language() -> None:
    for rid, entry in rule_catalogue().items():
        for v in [entry, *entry.get("variants", ())]:
            proposal = v.get("proposal")
            if proposal is None:
                continue
            assert isinstance(proposal, dict) and set(proposal) == set(LANGS), rid
            assert CJK.search(proposal["zh-Hant"]) and CJK.search(proposal["zh-Hans"]), rid


def test_placeholders_name_options() -> None:
    names = set(REGISTRY)
    for rid, entry in rule_catalogue().items():
        for v in [entry, *entry.get("variants", ())]:
            for text in (v.get("text") or {}).values():
                for name in re.findall(r"\{(\w+)\}", text):
                    assert name in names, f"{rid}: {{{name}}} is no option"


def test_rule_ids_have_no_spaces_and_former_ids_still_read() -> None:
    assert all(re.fullmatch(r"[a-z0-9_]+", rid) for rid in rule_catalogue())
    for old, new in aliases().items():
        assert new in rule_catalogue()
        got = explain(old, "zh-Hant")
        assert got["known"] and got["rule"] == old and got["text"] == explain(new, "zh-Hant")["text"]


def test_our_own_texts_spell_the_thumb_right_and_quotes_agree_with_rulings() -> None:
    for rid, entry in rule_catalogue().items():
        for v in [entry, *entry.get("variants", ())]:
            for lang in ("zh-Hant", "zh-Hans"):
                assert "姆指" not in (v.get("text") or {}).get(lang, ""), rid
    # Every faction defeated: nobody wins, and the quote must not say that one faction always does.
    assert "只有一個陣營獲得勝利" not in rule_catalogue()["every_faction_defeated"]["quote"]
    assert "left" in rule_catalogue()["rusty_infects"]["text"]["en"]


def test_a_zh_reader_reads_the_proposal_in_zh() -> None:
    got = explain("same_guard_save_lives", "zh-Hans", "classic", in_force("classic", {"same_guard_save_dies": False}))
    assert CJK.search(got["proposal"]) and got["book"] == "RULES.md"
    assert "在同一個夜晚" not in got["quote"]  # not the 同守同救 sentence it switches off


@pytest.mark.parametrize("ruleset,weight,book", [("classic", 1.5, "000"), ("facetoface", 2, "001"),
                                                 ("wechat", 2, "002"), ("classic", 2, "RULES.md"),
                                                 ("wechat", 1.5, "RULES.md"), ("classic", 3, "RULES.md")])
def test_the_sheriff_weight_read_is_the_weight_played(ruleset: str, weight: float, book: str) -> None:
    opts = in_force(ruleset, {"sheriff_vote_weight": weight})
    for lang in LANGS:
        got = explain("sheriff_vote_weight", lang, ruleset, opts)
        shown = re.findall(r"\d+(?:\.\d+)?", got["text"])
        assert str(weight).removesuffix(".0") in shown and got["book"] == book, got
        other = "2" if weight != 2 else "1.5"
        assert other not in shown


# -- sampled games -----------------------------------------------------------------------------------------
def _values(ruleset: str, name: str) -> list[Any]:
    """The values of an option a sample plays: every value of a choice or a flag, a few of a number."""
    hint = get_type_hints(option_type(ruleset))[name]
    args = get_args(hint)
    if hint is bool:
        return [True, False]
    if get_origin(hint) is not None and args and all(isinstance(a, str) for a in args):
        return list(args)
    if name == "sheriff_vote_weight":
        return [1, 1.5, 2, 3]
    if name in ("hunter_blocked_causes", "wolf_king_blocked_causes"):
        return [[], ["poison"], ["poison", "lover"]]
    if name == "allow_self_vote":
        return [True, False]
    return []  # numbers, lists and tables: the ruleset's own value


@cache
def option_sets() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = [(r, {}) for r in MODULES]
    for r in MODULES:
        for name in accepted(r):
            for value in _values(r, name):
                try:
                    make_options(r, {name: value})
                except SetupError:
                    continue
                out.append((r, {name: value}))
    return out


def _games(ruleset: str, options: dict[str, Any], n: int) -> list[Game]:
    decks = sorted(get_ruleset(ruleset).decks())
    rng = random.Random(f"{ruleset}{sorted(options.items())}")
    out = []
    for _ in range(n):
        seed = rng.randrange(1 << 30)
        try:
            game = Game(Setup(ruleset, deck=rng.choice(decks), options=options, seed=seed))
        except SetupError:
            continue  # an option this deck cannot play (a tie order, a preset's cards)
        game.play_out(random.Random(seed))
        out.append(game)
    return out


def _living_neighbour(ref: int, living: set[int], n: int, step: int) -> int | None:
    for k in range(1, n + 1):
        s = (ref - 1 + step * k) % n + 1
        if s in living:
            return s
    return None


def check_fits(ruleset: str, options: dict[str, Any], events: list[Event], table_opts: Any) -> int:
    """Every ruling of one game, as explained at its table, agrees with the game: the number checked."""
    checked = 0
    # The options the log's game_start records are the ones the table played (presets included).
    opts = in_force(ruleset, next(e.data.get("options") for e in events if e.type == "game_start"))
    assert opts == {f.name: getattr(table_opts, f.name) for f in dataclasses.fields(table_opts)}
    n = next(e.data["players"] for e in events if e.type == "game_start")
    candidates: list[int] = []
    announced: dict[str, list[int]] = {}
    deaths = 0
    role_of: dict[int, str] = {}
    for e in events:
        d = e.data
        if e.type in ("role", "took") and "role" in d and "seat" in d:
            role_of[d["seat"]] = d["role"]
        if e.type == "candidates":
            candidates = list(d["seats"])
        if e.type == "announce":
            announced[e.phase] = list(d["seats"])
        rule = d.get("rule")
        if isinstance(rule, str) and rule:
            checked += 1
            shown = {lang: explain(rule, lang, ruleset, opts) for lang in LANGS}
            got = shown["en"]
            assert got["known"], rule
            for lang, x in shown.items():
                assert "{" not in x["text"], (rule, lang, x["text"])
                if x["proposal"] and lang != "en":
                    assert CJK.search(x["proposal"]), (rule, lang)
            # A ruling an option decides reads the option when the table plays another value than its book.
            option = DECIDED_BY.get(rule)
            if option is not None:
                own = getattr(make_options(ruleset), option)
                if opts[option] != own or ruleset not in OWN_BOOK:
                    assert got["book"] == "RULES.md" and got["proposal"], (rule, ruleset, options, got)
                else:
                    assert got["book"] in (OWN_BOOK[ruleset], "RULES.md"), (rule, ruleset, got)
                    assert got["book"] != "RULES.md" or got["proposal"], (rule, ruleset, got)
            # The facts of the event.
            if rule == "sheriff_vote_weight":
                w = str(opts["sheriff_vote_weight"]).removesuffix(".0")
                for lang, x in shown.items():
                    assert w in re.findall(r"\d+(?:\.\d+)?", x["text"]), (lang, w, x["text"])
            elif rule == "sheriff_election_vote":
                voters = {int(v) for v in d.get("ballots", {})}
                everyone = got["variant"] in ("all_living", "all_living_by_option")
                assert everyone == (opts["sheriff_electorate"] == "all_living"), (ruleset, options, got)
                if voters & set(candidates):
                    assert everyone, "a candidate voted, and the sentence says only non-candidates vote"
            elif rule in ("speech_from_the_deaths", "speech_by_seat_number", "speech_from_the_last_dead"):
                order = list(d["seats"])
                dead = announced.get(f"day{e.phase[3:]}", [])
                if rule == "speech_by_seat_number":
                    assert order in (sorted(order), sorted(order, reverse=True)), order
                    if opts["speech_without_sheriff"] == "clock_deaths":
                        assert not dead and "last night" in got["text"], (dead, got["text"])
                    else:
                        assert deaths == 0 and "nobody has died yet" in got["text"], got["text"]
                elif rule == "speech_from_the_deaths":
                    assert dead, "speeches said to start beside last night's dead after a peaceful night"
                    ref, living = min(dead), set(order)
                    assert order[0] in (_living_neighbour(ref, living, n, 1), _living_neighbour(ref, living, n, -1))
                else:
                    assert deaths > 0, "speeches said to start beside the last dead before anyone died"
            elif rule == "shot_refused_by_cause":
                role = role_of.get(d["seat"], "hunter")
                blocked = opts["hunter_blocked_causes" if role == "hunter" else "wolf_king_blocked_causes"]
                assert d["cause"] in blocked, (d, blocked)
                classic_default = ruleset == "classic" and opts["hunter_blocked_causes"] == DEFAULTS_CLASSIC_CAUSES
                own = make_options(ruleset).hunter_blocked_causes
                if ruleset == "classic" or opts["hunter_blocked_causes"] != own:
                    assert got["book"] == "RULES.md" and got["proposal"], got  # the boxed card is silent
                if classic_default:
                    assert got["variant"] == "classic"
        if e.type == "death":
            deaths += 1
    return checked


DEFAULTS_CLASSIC_CAUSES = make_options("classic").hunter_blocked_causes


def test_every_option_set_is_sampled() -> None:
    sets = option_sets()
    assert {r for r, _ in sets} == set(MODULES)
    names = {name for _, o in sets for name in o}
    assert {"sheriff_vote_weight", "sheriff_electorate", "speech_without_sheriff", "hunter_blocked_causes",
            "same_guard_save_dies", "exile_tie", "allow_self_vote"} <= names
    assert len(sets) > 150
    assert DEFAULTS["wechat"]["sheriff_electorate"] == "all_living"


@pytest.mark.parametrize("ruleset", sorted(MODULES))
def test_sampled_games_read_the_sentence_of_their_table(ruleset: str) -> None:
    checked, rules = 0, set()
    for r, options in option_sets():
        if r != ruleset:
            continue
        for game in _games(r, options, 3):
            checked += check_fits(r, options, game.events, game.table.opts)
            rules |= {e.data["rule"] for e in game.events if "rule" in e.data}
    assert checked > (500 if ruleset in ("classic", "facetoface", "wechat") else 20), checked
    if ruleset in ("classic", "facetoface", "wechat"):
        assert {"sheriff_vote_weight", "speech_by_seat_number"} <= rules, rules
        assert "sheriff_election_vote" in rules or ruleset == "classic"  # classic's vote is secret by default


def test_the_replay_and_explain_read_the_table() -> None:
    """The replay and `werewolf explain` give each ruling its table's sentence (from the log's game_start)."""
    game = Game(Setup("wechat", deck="wechat12", seed=3, stop_after_day=3))
    game.play_out(random.Random(3))
    record = Record([e.as_json() for e in game.events])
    opts = record.options()
    assert opts is not None and opts["sheriff_vote_weight"] == 2
    for r in rulings(record, "zh-Hant"):
        assert r["rule"] == explain(r["rule"]["rule"], "zh-Hant", "wechat", opts)
    for step in replay(record, "all", "en")["steps"]:
        if "rule" in step:
            assert step["rule"] == explain(step["rule"]["rule"], "en", "wechat", opts)


def test_a_seat_replay_keeps_the_other_players_speaking_turns() -> None:
    game = Game(Setup("classic", deck="classic9", seed=5, options={"self_destruct_allowed": False}))
    game.play_out(random.Random(5))
    record = Record([e.as_json() for e in game.events])
    speeches = [i for i, e in enumerate(record.events) if e["type"] == "speech" and e["seat"] != 1]
    assert len(speeches) > 5
    steps = {s["i"]: s for s in replay(record, 1, "en")["steps"]}
    for i in speeches:
        assert i in steps and steps[i]["text"], record.events[i]


def test_variant_falls_back_to_the_entry_without_a_table() -> None:
    assert variant("sheriff_vote_weight") == (None, rule_catalogue()["sheriff_vote_weight"])
    assert explain("sheriff_vote_weight", "en")["variant"] is None
