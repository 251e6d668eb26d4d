"""`werewolf simulate`: seeds, backends, statistics, outputs and the command line."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from werewolf.cli import main
from werewolf.core.errors import SetupError
from werewolf.sim import SimConfig, Stats, game_seed, parse_bots, simulate, wilson
from werewolf.sim.config import BotSpec
from werewolf.sim.runner import play_game, run_chunk

NINE = "classic9"


def test_game_seed_is_a_pure_function_of_seed_and_index() -> None:
    assert game_seed(7, 3) == game_seed(7, 3)
    seeds = {game_seed(7, i) for i in range(1000)}
    assert len(seeds) == 1000  # no collisions among a run's games
    assert game_seed(7, 3) != game_seed(8, 3)
    assert all(0 <= s < 2 ** 63 for s in seeds)


def test_a_game_is_the_same_whoever_plays_it_and_whenever() -> None:
    config = SimConfig(deck=NINE, bots=parse_bots("heuristic"), games=10, seed=4)
    a, b = play_game(config, 6), play_game(config, 6)
    assert [e.as_json() for e in a.events] == [e.as_json() for e in b.events]
    assert a.answers == b.answers


@pytest.mark.parametrize("bots", ["random", "heuristic", "wolves=heuristic,village=random"])
def test_jobs_and_chunks_do_not_change_the_numbers(bots: str) -> None:
    base = SimConfig(deck=NINE, bots=parse_bots(bots), games=120, seed=11)
    one = simulate(base)
    assert one.games == 120 and one.errors == 0
    assert simulate(SimConfig(**{**base.__dict__, "jobs": 2})) == one
    assert simulate(SimConfig(**{**base.__dict__, "chunk": 7})) == one
    # and the statistics are the merge of any split of the games
    left, _ = run_chunk(base, 0, 50)
    right, _ = run_chunk(base, 50, 120)
    assert right.merge(left) == one


def test_a_different_seed_gives_different_games() -> None:
    a = simulate(SimConfig(deck=NINE, games=60, seed=1))
    b = simulate(SimConfig(deck=NINE, games=60, seed=2))
    assert a != b


def test_ray_backend_gives_the_local_numbers() -> None:
    import ray  # a test dependency (the `test` extra): never skipped
    config = SimConfig(ruleset="classic", deck=NINE, bots=parse_bots("wolves=heuristic"), games=80, seed=3,
                       jobs=2, chunk=10)
    local = simulate(config)
    logs: list[dict] = []
    on_ray = simulate(SimConfig(**{**config.__dict__, "backend": "ray"}), logs=logs.extend)
    assert not ray.is_initialized()  # the backend started its own local instance and shut it down
    assert on_ray == local
    assert [g["game"] for g in logs] == list(range(80))  # logs come back in game order


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert math.isclose(lo, 0.4038, abs_tol=1e-4) and math.isclose(hi, 0.5962, abs_tol=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_stats_stream_counts_only() -> None:
    s = Stats()
    s.add(["wolves"], 3, ["kill", "exile"], ["pk", "pk", "wolf_kill_first"], "wolf_kill_first", 40)
    s.add([], 30, [], [], "max_days", 400)
    s.add(["village", "tanner"], 1, ["exile"], [], "village_wins", 7)
    d = s.as_dict()
    assert d["games"] == 3 and d["draws"]["games"] == 1
    assert d["teams"]["wolves"]["wins"] == 1 and d["teams"]["tanner"]["wins"] == 1
    assert d["special"]["pk"] == {"times": 2, "games": 1, "rate": 1 / 3}
    assert d["length_days"]["max"] == 30 and d["length_days"]["median"] == 3
    assert d["deaths"]["exile"]["deaths"] == 2
    json.dumps(d)  # JSON-able


def test_special_rules_are_counted() -> None:
    stats = simulate(SimConfig(ruleset="classic", deck="c12_wolfking_guard", games=150, seed=5))
    assert stats.errors == 0
    d = stats.as_dict()
    for name in ("pk", "wolf_kill_first", "self_destruct", "sheriff_pk", "same_guard_save_dies"):
        assert d["special"][name]["times"] > 0, name
    assert set(d["deaths"]) >= {"kill", "exile", "poison", "shot"}


def test_bot_specs() -> None:
    assert parse_bots("random") == BotSpec("random")
    spec = parse_bots("wolves=heuristic, village=random")
    assert spec.kind("wolves") == "heuristic" and spec.kind("village") == "random" and spec.kind("others") == "random"
    for bad in ("clever", "wolves=clever", "werewolves=heuristic", "wolves=heuristic,wolves=random"):
        with pytest.raises(SetupError):
            parse_bots(bad)


# -- the command -----------------------------------------------------------------------------
def run_cli(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, ["simulate", *args])
    return r.exit_code, r.stdout, r.stderr


def test_cli_prints_the_table_and_writes_json_csv_and_a_chart(tmp_path: Path) -> None:
    out_json, out_csv, png = tmp_path / "s.json", tmp_path / "s.csv", tmp_path / "s.png"
    code, out, err = run_cli("--deck", NINE, "--games", "200", "--seed", "9", "--out", str(out_json),
                             "--plot", str(png))
    assert code == 0, err
    for words in ("who wins", "wolves", "village", "95% interval (Wilson)", "game length (days)", "deaths by cause",
                  "special rules and events", "wolf_kill_first (狼刀在先)", "games/s"):
        assert words in out, words
    doc = json.loads(out_json.read_text(encoding="utf-8"))
    assert doc["config"]["deck"] == NINE and doc["stats"]["games"] == 200
    rates = {t: r["rate"] for t, r in doc["stats"]["teams"].items()}
    assert math.isclose(sum(rates.values()) + doc["stats"]["draws"]["rate"], 1.0)
    for r in doc["stats"]["teams"].values():
        assert r["ci95"][0] <= r["rate"] <= r["ci95"][1]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    code, out, err = run_cli("--deck", NINE, "--games", "200", "--seed", "9", "--out", str(out_csv), "-q",
                             "--jobs", "2")
    assert code == 0, err
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    wins = {r["name"]: int(r["count"]) for r in rows if r["section"] == "win"}
    assert wins == {t: r["wins"] for t, r in doc["stats"]["teams"].items()} | {"(nobody)": 0}
    assert {r["section"] for r in rows} >= {"games", "win", "length_days", "death", "special", "ending"}


def test_cli_keeps_logs_only_when_asked(tmp_path: Path) -> None:
    logs = tmp_path / "games.jsonl"
    code, _, err = run_cli("--ruleset", "onuw", "--games", "30", "--bots", "heuristic", "-q", "--logs", str(logs))
    assert code == 0, err
    lines = [json.loads(x) for x in logs.read_text(encoding="utf-8").splitlines()]
    assert [g["game"] for g in lines] == list(range(30))
    assert all(g["events"][-2]["type"] == "game_over" for g in lines)


@pytest.mark.parametrize("args, words", [
    (["--ruleset", "chess"], "unknown ruleset"),
    (["--deck", "nope"], "unknown deck"),
    (["--deck", "werewolf,dragon"], "unknown role"),
    (["--options", "{bad"], "not valid JSON"),
    (["--options", '{"no_such": 1}'], "unknown option"),
    (["--bots", "clever"], "--bots"),
    (["--games", "0"], "at least 1"),
    (["--out", "x.txt"], ".json or .csv"),
    (["--address", "1.2.3.4:6379"], "--backend ray"),
    (["--plot", "chart.jpg"], ".png"),
    (["--logs", "/no/such/folder/games.jsonl"], "no such folder"),
])
def test_cli_rejects_bad_input_in_one_line(args: list[str], words: str) -> None:
    code, out, err = run_cli(*args, "--games", args[1] if args[0] == "--games" else "5", "-q")
    assert code == 2, (out, err)
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
