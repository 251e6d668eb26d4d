"""For deck designers: `werewolf compare`, `werewolf balance`, per-role and per-power counts, decks on the
command line, the HTML report. Small runs: seconds, not minutes."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from statistics import NormalDist

import pytest
from click.testing import CliRunner

from werewolf.cli import main
from werewolf.core.errors import SetupError
from werewolf.play import deck_spec, parse_deck
from werewolf.rulesets import MODULES, get_ruleset
from werewolf.sim import SimConfig, parse_bots, simulate
from werewolf.sim import balance as bal
from werewolf.sim import compare as cmp
from werewolf.sim.backends import Session
from werewolf.sim.paired import newcombe_paired, paired_chunk
from werewolf.sim.stats import wilson
from werewolf.sim.variants import aligned, duplicates

NINE = "classic9"
NO_SEER = "werewolf*3,villager*4,witch,hunter"  # classic 9 with the seer's card a villager's: the village is lost


def _compare(variants: list[cmp.Variant], **kw: object) -> cmp.Result:
    args = {"games": 60, "precision": None, "max_games": 1000, "batch": 50, **kw}
    with Session() as session:
        return cmp.run(variants, session=session, **args)  # type: ignore[arg-type]


# -- compare ---------------------------------------------------------------------------
def test_a_variant_that_changes_nothing_is_no_difference_and_is_flagged() -> None:
    base = SimConfig(deck=NINE, bots=parse_bots("heuristic"), games=60, seed=5)
    # classic 9 has no guard: the guard's rule never comes into play, and the games are the very same
    variants = cmp.make_variants(base, (), ("{}", '{"guard_rule": "free"}'), ())
    result = _compare(variants)
    assert result.games == 60
    assert result.paired.same[1] == result.paired.paired[1] == 60
    assert result.never_changed() == [variants[1].name]
    (diff,) = result.differences()
    assert diff.diff == 0 and diff.lo < 0 < diff.hi and not diff.shown and diff.p == 1.0
    assert cmp.verdict(diff).startswith("not shown: could not tell apart")
    assert any(w.startswith("never changed a game") for w in cmp.warnings(result))


def test_the_paired_games_are_the_simulations_games() -> None:
    config = SimConfig(deck=NINE, bots=parse_bots("wolves=heuristic"), games=40, seed=9)
    other = replace(config, deck="classic10")
    paired = paired_chunk((config, other), 0, 40)
    assert paired.stats[0] == simulate(config)
    assert paired.stats[1] == simulate(other)


def test_clearly_different_decks_are_a_real_difference() -> None:
    base = SimConfig(bots=parse_bots("heuristic"), games=80, seed=1)
    result = _compare(cmp.make_variants(base, (NINE, NO_SEER), (), ()))
    (diff,) = result.differences()
    assert diff.hi < 0 and diff.shown, diff  # without the seer the village wins much less
    assert cmp.verdict(diff).startswith("shown: village wins less")
    assert result.never_changed() == []
    assert result.paired.same[1] == 0


def test_precision_stops_early_in_whole_batches() -> None:
    base = SimConfig(deck=NINE, games=10, seed=2)
    variants = cmp.make_variants(base, (NINE, "classic10"), (), ())
    result = _compare(variants, precision=0.25, batch=40, max_games=4000)
    assert result.games < 4000 and result.games % 40 == 0
    assert result.widest() < 0.25
    assert "narrower than 25.0 points" in result.stopped
    shorter = _compare(variants, precision=0.25, batch=40, max_games=40)
    assert shorter.games == 40 and "--max-games" in shorter.stopped


def test_newcombe_paired_interval() -> None:
    d, lo, hi = newcombe_paired(12, 9, 2, 21)
    assert d == pytest.approx(7 / 44) and lo < d < hi
    assert 0 < lo < 0.05 and 0.25 < hi < 0.35  # a real difference, at about the size of the one observed
    assert newcombe_paired(12, 2, 9, 21) == pytest.approx((-d, -hi, -lo))  # the mirror
    assert newcombe_paired(0, 0, 0, 0) == (0.0, -1.0, 1.0)
    # more pairs that agree: a narrower interval for the same difference
    wide, narrow = newcombe_paired(10, 10, 0, 10), newcombe_paired(100, 10, 0, 100)
    assert narrow[2] - narrow[1] < wide[2] - wide[1]


def test_variant_syntax() -> None:
    assert cmp.parse_variant('deck=c12_bomber; options={"a": "x;y"} ;name=b') == {
        "deck": "c12_bomber", "options": '{"a": "x;y"}', "name": "b"}
    base = SimConfig(deck=NINE)
    variants = cmp.make_variants(base, (), (), ("name=plain", 'options={"sheriff": false};name=no sheriff'))
    assert [v.name for v in variants] == ["plain", "no sheriff"]
    assert variants[1].config.deck == NINE and variants[1].config.options == {"sheriff": False}
    for bad in ("colour=red", "deck=a;deck=b", ""):
        with pytest.raises(SetupError):
            cmp.make_variants(base, (), (), (bad, "name=x"))
    with pytest.raises(SetupError, match="at least two"):
        cmp.make_variants(base, (NINE,), (), ())
    with pytest.raises(SetupError, match="unknown|option"):
        cmp.make_variants(base, (), ("{}", '{"no_such_option": 1}'), ())


def test_compare_command_writes_json_csv_and_report(tmp_path: Path) -> None:
    out_json, out_csv, page = tmp_path / "c.json", tmp_path / "c.csv", tmp_path / "c.html"
    res = CliRunner().invoke(main, ["compare", "--deck", NINE, "--variant", "name=as is",
                                    "--variant", 'options={"guard_rule": "free"};name=free guard',
                                    "--bots", "random", "-g", "30", "-q", "--out", str(out_json), "--out",
                                    str(out_csv), "--report", str(page)])
    assert res.exit_code == 0, res.output
    assert "never changed a game" in res.output
    doc = json.loads(out_json.read_text())
    assert doc["differences"][0]["verdict"].startswith("not shown: could not tell apart")
    assert doc["agents"] == "random" and "measured with random bots" in res.output
    assert doc["never_changed_a_game"] == ["free guard"]
    assert doc["differences"][0]["pairs"]["this_only"] == doc["differences"][0]["pairs"]["first_only"] == 0
    assert out_csv.read_text().splitlines()[0].startswith("section,variant,team")
    assert_self_contained(page.read_text())


# -- balance ---------------------------------------------------------------------------
def _balance(cands: list[cmp.Variant], **kw: object) -> bal.Result:
    args = {"within": 0.1, "confidence": 0.8, "max_games": 400, "batch": 100, **kw}
    with Session() as session:
        return bal.run(cands, session=session, **args)  # type: ignore[arg-type]


def test_balance_finds_a_deck_within_the_band_and_says_what_it_showed() -> None:
    base = SimConfig(deck=NINE, bots=parse_bots("heuristic"), seed=3)
    cands = bal.candidates(base, ("seer:villager", ":villager"), ())
    assert [c.name for c in cands] == [NINE, "swap seer → villager", "add villager"]
    assert Counter(cands[1].config.deck) == Counter(parse_deck(NO_SEER))
    result = _balance(cands, within=0.15, max_games=800)
    no_seer = next(c for c in result.candidates if c.variant.name == "swap seer → villager")
    assert no_seer.status == "off" and no_seer.stopped_at == 100  # so far off that the first look settles it
    assert no_seer.games == 100  # and no game was spent on it after
    assert result.found and {c.variant.name for c in result.found} <= {NINE, "add villager"}
    for c in result.found:
        lo, hi = c.interval(result.z)
        assert 0.35 <= lo and hi <= 0.65 and c.status == "found"
    assert result.stopped.startswith(f"found: {result.found[0].variant.name} is within ±15.0 points of 50% at 80% "
                                     "confidence")
    lines = bal.findings(result)
    assert any(line.startswith("shown: swap seer → villager is off 50% by more than 15.0 points") for line in lines)
    assert any("measurably off 50%" in line and "swap seer → villager (the village wins less)" in line
               for line in lines)
    # the level: Bonferroni over 3 candidates and the looks of 100, 200, 400, 800 games
    assert result.looks == 4 and result.level == pytest.approx(1 - 0.2 / 12)


def test_balance_not_found_within_budget_says_so() -> None:
    base = SimConfig(deck=NINE, bots=parse_bots("heuristic"), seed=3)
    result = _balance(bal.candidates(base, ("seer:villager", "hunter:villager"), ()), within=0.01, max_games=200)
    assert not result.found and result.stopped.startswith("not found within budget")
    assert {c.status for c in result.candidates} <= {"off", "not settled", "farther"}
    lines = bal.findings(result)
    assert lines[0].startswith("not found within budget: no candidate of the 3 tried was shown within ±1.0 points")
    for c in result.candidates:  # each candidate is in a line saying what was shown of it, or that nothing was
        assert any(c.variant.name in line for line in lines[1:])


def test_balance_tells_close_candidates_apart_by_their_pairs() -> None:
    def candidate(name: str, bits: list[int]) -> bal.Candidate:
        c = bal.Candidate(cmp.Variant(name, SimConfig(deck=NINE)))
        c.bits.extend(bits)
        c.stats.games, c.stats.wins["village"] = len(bits), sum(bits)
        c.looks = 1
        return c

    n = 400
    farther = [1] * 152 + [0] * (n - 152)  # 38%
    closer = [1] * 176 + [0] * (n - 176)  # 44%: every game the first won, and 24 more
    a, b = candidate("a", farther), candidate("b", closer)
    z = NormalDist().inv_cdf(0.975)
    for c in (a, b):  # neither interval is wholly outside 40% - 60%: on its own, neither is settled
        assert c.interval(z)[0] < 0.4 < c.interval(z)[1] or 0.4 < c.interval(z)[0]
    bal._settle([a, b], z, 0.1)
    assert a.status == "farther" and "paired game by game" in a.reason and b.status == "not settled"
    # the same rates without the pairing (the wins in other games) show nothing
    shuffled = candidate("c", [0] * (n - 176) + [1] * 176)
    a2 = candidate("a", farther)
    bal._settle([a2, shuffled], z, 0.1)
    assert a2.status == "not settled"


def test_balance_searches_over_roles_and_player_counts() -> None:
    base = SimConfig(deck=NINE, bots=parse_bots("random"), seed=1)
    cands = bal.candidates(base, (), (), search=True)
    assert [c.name for c in cands] == [NINE]
    result = _balance(cands, search=True, max_candidates=5, within=0.02, max_games=200)
    names = [c.variant.name for c in result.candidates]
    assert len(names) == 5 and names[0] == NINE and all(n.startswith(NINE + " · ") for n in names[1:])
    decks = [tuple(sorted(bal.deck_roles(c.variant.config) or ())) for c in result.candidates]
    assert len(set(decks)) == 5  # never the same deck twice
    assert {len(d) for d in decks} - {9}, decks  # player counts too, not only swaps
    assert "not found within budget" in result.stopped and "(the search may try 5)" in result.stopped
    for c in result.candidates[1:]:  # each one step (a card in, out or swapped) from a deck tried before
        cards = Counter(bal.deck_roles(c.variant.config) or ())
        assert any(sum(((cards - Counter(d)) + (Counter(d) - cards)).values()) in (1, 2) for d in decks)


def test_swap_syntax() -> None:
    deck = ("werewolf", "seer", "villager")
    assert bal.swap(deck, "seer:idiot") == ("werewolf", "idiot", "villager")
    assert bal.swap(deck, "villager:") == ("werewolf", "seer")
    assert bal.swap(deck, ":hunter") == ("werewolf", "seer", "villager", "hunter")
    for bad in ("seer", "witch:idiot", "seer:nobody", ":"):
        with pytest.raises(SetupError):
            bal.swap(deck, bad)


# -- what happened in the games ------------------------------------------------------------
def test_role_counts_add_up_to_the_team_counts() -> None:
    stats = simulate(SimConfig(deck=NINE, games=150, seed=4))
    n = stats.games
    assert sum(stats.role_seats.values()) == 9 * n
    assert stats.role_seats["werewolf"] == 3 * n and stats.role_seats["seer"] == n
    # no card changes sides in classic 9: a card's seats win exactly when its side does
    assert stats.role_wins["werewolf"] == 3 * stats.wins["wolves"]
    for role in ("seer", "witch", "hunter"):
        assert stats.role_wins[role] == stats.wins["village"]
    assert stats.role_wins["villager"] == 3 * stats.wins["village"]
    # every death is one seat's, on one day
    assert sum(stats.role_deaths.values()) == sum(stats.deaths.values())
    for row in stats.roles().values():
        alive = row["alive_after_day"]
        assert all(a >= b for a, b in zip(alive, alive[1:])) and alive[-1] == row["alive_at_end"]


def test_powers_are_counted_from_the_events() -> None:
    stats = simulate(SimConfig(deck="c12_wolfking_guard", bots=parse_bots("heuristic"), games=40, seed=2))
    table = stats.power_table()
    # the seer checks and the witch's antidote is offered every first night
    assert table["seer_check"]["games"] == 40
    assert table["witch_save"]["times"] <= 40  # one antidote a game
    assert table["witch_save"]["times"] >= table.get("witch_self_save", {"times": 0})["times"]
    assert set(table) <= {"badge_passed", "badge_torn", "guard_protect", "guard_self_protect", "hunter_shot",
                          "seer_check", "seer_found_wolf", "sheriff_elected", "werewolf_self_destruct",
                          "witch_poison", "witch_save", "witch_self_save", "witch_self_save_after_night1",
                          "wolf_king_self_destruct", "wolf_king_shot", "wolves_kill_nobody"}
    assert stats.as_dict()["powers"] == table


def test_simulate_prints_roles_powers_and_options() -> None:
    res = CliRunner().invoke(main, ["simulate", "--deck", NINE, "-g", "20", "-q", "--options",
                                    '{"witch_self_save": "never"}'])
    assert res.exit_code == 0, res.output
    assert 'options witch_self_save="never"' in res.output
    assert "classic9 (werewolf*3,seer,witch,hunter,villager*3)" in res.output
    assert "each role: wins and survival" in res.output and "powers and choices used" in res.output


# -- decks on the command line -----------------------------------------------------------------
def test_decks_output_round_trips_through_deck() -> None:
    res = CliRunner().invoke(main, ["decks"])
    assert res.exit_code == 0
    ruleset = None
    seen = 0
    for line in res.output.splitlines():
        if not line.startswith(" "):
            ruleset = line.rstrip(":")
            continue
        deck_id, count, _, spec = line.split(maxsplit=3)
        want = get_ruleset(ruleset).decks()[deck_id]
        assert Counter(parse_deck(spec)) == Counter(want) and len(parse_deck(spec)) == int(count)
        seen += 1
    assert seen > 40 and ruleset == list(MODULES)[-1]


def test_deck_accepts_counts() -> None:
    assert parse_deck("werewolf×2, seer,villager*3") == ("werewolf", "werewolf", "seer", "villager", "villager",
                                                          "villager")
    assert parse_deck("werewolf*2") == ("werewolf", "werewolf")
    assert parse_deck("c12_bomber") == "c12_bomber"
    assert deck_spec(["werewolf", "seer", "werewolf"]) == "werewolf*2,seer"
    for bad in ("werewolf*", "werewolf*0", "*3", "werewolf*x"):
        with pytest.raises(SetupError, match="role\\*N"):
            parse_deck(bad)
    res = CliRunner().invoke(main, ["simulate", "--deck", "werewolf×3,seer,witch,hunter,villager*3", "-g", "5",
                                    "-q"])
    assert res.exit_code == 0, res.output


# -- the HTML report -------------------------------------------------------------------------------
VOID = {"meta", "img", "br", "hr", "link", "input"}


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.urls: list[str] = []
        self.images = 0
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "link", "iframe", "object"):
            self.errors.append(f"<{tag}>")
        for name, value in attrs:
            if name in ("src", "href") and value is not None:
                self.urls.append(value)
        if tag == "img":
            self.images += 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def assert_self_contained(text: str) -> None:
    assert text.startswith("<!DOCTYPE html>")
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert not checker.errors and not checker.stack, (checker.errors, checker.stack)
    assert checker.images >= 1
    assert all(u.startswith("data:image/png;base64,") for u in checker.urls), checker.urls
    assert not re.search(r"url\(|@import|https?://", text)


def test_simulate_report_is_one_self_contained_page(tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    res = CliRunner().invoke(main, ["simulate", "--deck", "c12_wolfking_guard", "-g", "20", "-q",
                                    "--report", str(page)])
    assert res.exit_code == 0, res.output
    text = page.read_text()
    assert_self_contained(text)
    for part in ("c12_wolfking_guard (wolf_king,werewolf*3,seer,witch,hunter,guard,villager*4)",
                 "the ruleset&#x27;s defaults", "each role: wins and survival", "powers and choices used",
                 "seeded from (seed 0, i)", "engine"):
        assert part in text, part
    assert CliRunner().invoke(main, ["simulate", "-g", "5", "--report", str(tmp_path / "r.txt")]).exit_code == 2


def test_balance_command(tmp_path: Path) -> None:
    page, out = tmp_path / "b.html", tmp_path / "b.json"
    res = CliRunner().invoke(main, ["balance", "--deck", NINE, "--swap", "seer:villager", "--swap", ":villager",
                                    "--within", "0.15", "--confidence", "0.8", "--max-games", "800", "--batch", "100",
                                    "-q", "--report", str(page), "--out", str(out), "--bots", "heuristic"])
    assert res.exit_code == 0, res.output
    assert "is within ±15.0 points of 50% at 80% confidence" in res.output
    assert "measured with heuristic bots" in res.output
    doc = json.loads(out.read_text())
    assert doc["found"] and set(doc["found"]) <= {NINE, "add villager"} and doc["agents"] == "heuristic"
    assert doc["ranking"][0]["status"] == "found"
    assert_self_contained(page.read_text())
    res = CliRunner().invoke(main, ["balance", "--deck", NINE, "--swap", "seer:villager", "--within", "0.01",
                                    "--max-games", "100", "--batch", "100", "-q"])
    assert res.exit_code == 3 and "not found within budget" in res.output
    res = CliRunner().invoke(main, ["balance", "--deck", NINE, "--search", "--within", "0.7"])
    assert res.exit_code == 2 and "--within" in res.output


def test_the_bar_and_the_headline_share_one_clock_that_leaves_start_up_out() -> None:
    from rich.progress import Progress

    from werewolf.sim.command import Clock, GamesPerSecond
    from werewolf.sim.report import rate_note

    clock = Clock()
    clock.start, clock.stop = 100.0, 104.0  # four seconds of games, whatever the workers' start-up took
    progress = Progress(GamesPerSecond(clock), disable=True)
    task = progress.add_task("games", total=1000, completed=1000)
    shown = str(GamesPerSecond(clock).render(progress.tasks[task])).strip()
    assert shown == "250 games/s"
    note = rate_note(SimConfig(backend="ray", jobs=2), clock.elapsed(), 9.0, 1000)
    assert "(250 games/s" in note and "9.0 s Ray start-up, not in the rate" in note


# -- the modules' structure ------------------------------------------------------------------
def sim_imports() -> dict[str, set[str]]:
    """Each module of werewolf.sim -> the modules of werewolf.sim it imports, at the top or in a function."""
    import ast

    folder = Path(__file__).parents[2] / "werewolf" / "sim"
    names = {p.stem for p in folder.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module == "werewolf.sim":
                    edges.update(a.name if a.name in names else "__init__" for a in node.names)
                elif node.module.startswith("werewolf.sim."):
                    edges.add(node.module.split(".")[2])
            elif isinstance(node, ast.Import):
                edges.update(a.name.split(".")[2] for a in node.names if a.name.startswith("werewolf.sim."))
        graph[path.stem] = edges - {path.stem}
    return graph


def test_the_sim_modules_import_each_other_in_no_circle() -> None:
    graph = sim_imports()
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        if state.get(module) == 2:
            return
        assert state.get(module) != 1, "an import circle: " + " -> ".join([*path, module])
        state[module] = 1
        for other in sorted(graph.get(module, ())):
            visit(other, [*path, module])
        state[module] = 2

    for module in sorted(graph):
        visit(module, [])
    # the commands' module is the top: nothing below it imports it
    assert not [m for m, edges in graph.items() if "command" in edges]


# -- compare: several variants, precision, decks in another order, the same setup twice, a mix of bots ---------
def test_holm_and_the_p_value_of_a_paired_interval() -> None:
    from werewolf.sim.paired import holm, newcombe_p

    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5] and holm([]) == []
    assert newcombe_p(10, 5, 5, 10) == 1.0
    for table in [(12, 9, 2, 21), (50, 30, 10, 110), (100, 12, 30, 300)]:
        p = newcombe_p(*table)
        z = NormalDist().inv_cdf(1 - p / 2)
        _, lo, hi = newcombe_paired(*table, z=z * 0.999)  # just inside its level: the interval excludes 0
        assert lo > 0 or hi < 0
        _, lo, hi = newcombe_paired(*table, z=z * 1.001)  # just beyond: it reaches 0
        assert lo <= 0 <= hi


def test_several_variants_are_tested_together() -> None:
    base = SimConfig(deck=NINE, bots=parse_bots("heuristic"), games=80, seed=1)
    result = _compare(cmp.make_variants(base, (NINE, NO_SEER, "classic10"), (), ()))
    diffs = result.differences()
    assert len(diffs) == 2
    assert all(d.p_holm >= d.p for d in diffs)
    first, second = sorted(diffs, key=lambda d: d.p)
    assert first.level == pytest.approx(0.975) and second.level == pytest.approx(0.95)
    assert first.p_holm == pytest.approx(min(1.0, 2 * first.p))
    for d in diffs:  # the verdict and the interval agree
        assert d.shown == (d.lo > 0 or d.hi < 0) or (not first.shown and d is second)
    # the first's interval at 97.5%: wider than a lone 95% one
    lone = newcombe_paired(*result.paired.table(first.k, "village"))
    assert first.hi - first.lo > lone[2] - lone[1]
    assert "Holm" in cmp.differences_table(result).note


def test_precision_waits_for_the_differences_only() -> None:
    base = SimConfig(deck=NINE, bots=parse_bots("random"), seed=4)
    # the guard's rule in a deck without a guard: the same games, a difference known at once to be 0
    variants = cmp.make_variants(base, (), ("{}", '{"guard_rule": "free"}'), ())
    result = _compare(variants, precision=0.05, batch=40, max_games=4000)
    assert result.games < 400 and "every difference's interval narrower than 5.0 points" in result.stopped
    lo, hi = wilson(result.paired.stats[0].wins["village"], result.games)
    assert hi - lo > 0.1  # each win rate is far from known to 5 points, and that was not waited for


def test_a_deck_written_in_another_order_keeps_the_pairing() -> None:
    cards = parse_deck("werewolf*3,seer,witch,hunter,villager*3")
    base = SimConfig(deck=NINE, bots=parse_bots("random"), games=30, seed=3)
    shuffled = ",".join(reversed(cards))
    variants = cmp.make_variants(base, (NINE, shuffled), (), ())
    assert variants[1].config.deck == NINE  # the same cards: the first's deck, the same deal
    result = _compare(variants, games=30)
    assert result.never_changed() == [variants[1].name]
    assert any(w.startswith("the same setup twice") for w in cmp.warnings(result))
    # one card swapped, written backwards: put back in the first's order, the swapped card in the hunter's place
    swapped = ",".join(reversed(["werewolf"] * 3 + ["seer", "witch", "idiot"] + ["villager"] * 3))
    variants = cmp.make_variants(base, (NINE, swapped), (), ())
    assert variants[1].config.deck == ("werewolf", "werewolf", "werewolf", "seer", "witch", "idiot", "villager",
                                       "villager", "villager")
    assert aligned(cards, ("villager", "seer", "werewolf")) == ("werewolf", "seer", "villager")


def test_the_same_setup_twice_is_flagged() -> None:
    base = SimConfig(deck=NINE, bots=parse_bots("random"), games=20, seed=3)
    variants = cmp.make_variants(base, (), (), ("name=a", "name=b;deck=classic9", 'name=c;options={"sheriff": false}'))
    assert duplicates(variants) == [("a", "b")]


def test_a_sole_candidate_is_an_elected_sheriff() -> None:
    from werewolf.core.game import Game, Setup
    from werewolf.sim.runner import powers_used

    found = 0
    for seed in range(300):
        game = Game(Setup("classic", deck="c12_wolfking_guard", seed=seed))
        game.play_out(random.Random(seed))
        sole = [e for e in game.events if e.type == "sheriff" and e.data.get("reason") == "sole candidate"]
        if sole:
            found += 1
            assert powers_used(game.events).count("sheriff_elected") == len(sole)
        if found >= 3:
            break
    assert found >= 3


def test_compare_over_a_mix_of_bots() -> None:
    base = SimConfig(deck=NINE, games=60, seed=6)
    variants = cmp.make_variants(base, (NINE, NO_SEER), (), ())
    mix = (parse_bots("heuristic"), parse_bots("random"))
    with Session() as session:
        result = cmp.run(variants, games=60, precision=None, max_games=1000, batch=50, session=session, mix=mix)
    assert set(result.by_kind) == {"heuristic", "random"}
    assert [p.games for p in result.by_kind.values()] == [30, 30]
    merged = result.by_kind["heuristic"].stats[1].__class__().merge(result.by_kind["heuristic"].stats[1]).merge(
        result.by_kind["random"].stats[1])
    assert merged == result.paired.stats[1]
    # the heuristic half is the heuristic run's even games
    alone = paired_chunk(tuple(replace(v.config, bots=mix[0]) for v in variants), 0, 1)
    assert alone.stats[0].wins.keys() <= result.by_kind["heuristic"].stats[0].wins.keys() | {"wolves", "village"}
    assert result.agents().startswith("heuristic + random")
    titles = [t.title for t in cmp.tables(result)]
    assert any("by the bots that played" in t for t in titles)
    doc = cmp.document(result)
    assert set(doc["by_agents"]) == {"heuristic", "random"} and doc["agents"].startswith("heuristic + random")


def test_every_command_defaults_to_heuristic_bots_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    res = CliRunner().invoke(main, ["simulate", "--deck", NINE, "-g", "10", "-q", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "bots heuristic" in res.output and "measured with heuristic bots" in res.output
    doc = json.loads(out.read_text())
    assert doc["config"]["bots"] == doc["agents"] == "heuristic"
    csv_out = tmp_path / "s.csv"
    assert CliRunner().invoke(main, ["simulate", "--deck", NINE, "-g", "5", "-q", "--out", str(csv_out)]).exit_code == 0
    assert "agents,heuristic" in csv_out.read_text()
    for command in ("compare", "balance"):
        option = next(o for o in main.commands[command].params if o.name == "bots")
        assert option.default == ("heuristic",)
    assert next(o for o in main.commands["simulate"].params if o.name == "bots").default == "heuristic"


def test_balance_over_a_mix_of_bots() -> None:
    base = SimConfig(deck=NINE, bots=parse_bots("heuristic"), seed=2)
    cands = bal.candidates(base, ("seer:villager",), ())
    mix = (parse_bots("heuristic"), parse_bots("random"))
    result = _balance(cands, mix=mix, max_games=100, batch=100)
    assert result.agents().startswith("heuristic + random")
    # game i of a candidate is the game i of its own bots in the mix: the same outcome as played alone
    from werewolf.sim.paired import outcome_chunk

    alone = outcome_chunk((replace(cands[0].config, bots=mix[1]),), (), 1, 2)[0][1]
    assert bytes(result.candidates[0].bits[1:2]) == alone
    assert bal.document(result)["agents"].startswith("heuristic + random")
