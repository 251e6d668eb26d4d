"""`werewolf arena`: kinds against each other, every kind in every seat of every deal (werewolf.sim.arena)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from werewolf.agents.fakellm import FakeLLM
from werewolf.cli import main
from werewolf.sim.arena import Played, Seat, play_one, rate, rotation_kinds, tally
from werewolf.sim.config import SimConfig
from werewolf.sim.stats import clustered, wilson


@pytest.mark.parametrize("k, players", [(2, 5), (3, 12), (4, 7), (5, 3)])
def test_a_block_puts_every_kind_in_every_seat_once(k: int, players: int) -> None:
    kinds = [f"k{i}" for i in range(k)]
    for seat in range(1, players + 1):
        assert sorted(rotation_kinds(kinds, players, r)[seat] for r in range(k)) == kinds


def test_a_blocks_games_share_their_deal() -> None:
    config = SimConfig(ruleset="onenight", players=5, seed=3)
    kinds = ("heuristic", "random")
    a, b, c = (play_one(config, kinds, g) for g in range(3))
    assert a.block == b.block == 0 and c.block == 1
    assert [s.role for s in a.seats] == [s.role for s in b.seats]
    assert [s.kind for s in a.seats] == ["heuristic", "random", "heuristic", "random", "heuristic"]
    assert [s.kind for s in b.seats] == ["random", "heuristic", "random", "heuristic", "random"]


def _arena(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["arena", "-q", *args])
    return result.exit_code, result.output


def test_a_tiny_tournament_is_fair_and_reported(tmp_path: Path) -> None:
    out = tmp_path / "arena.json"
    code, text = _arena("heuristic", "random", "-r", "onenight", "-n", "5", "-g", "7", "--out", str(out))
    assert code == 0, text
    assert "8 games in 4 blocks" in text and "agent kinds" in text and "each role" in text
    doc = json.loads(out.read_text())
    assert doc["games"] == 8 and doc["config"]["kinds"] == ["heuristic", "random"]
    # every kind played every card dealt equally often
    by_role: dict[str, Counter[str]] = {}
    for row in doc["roles"]:
        by_role.setdefault(row["role"], Counter())[row["kind"]] = row["seat_games"]
    assert by_role and all(c["heuristic"] == c["random"] for c in by_role.values()), by_role
    for kind in ("heuristic", "random"):
        row = doc["kinds"][kind]
        assert row["seat_games"] == 20 and 0 <= row["interval"][0] <= row["win_rate"] <= row["interval"][1] <= 1
        assert row["rating"]["sigma"] < 25 / 3  # rated
    # workers play the same games: the same results, whatever the order chunks finish in
    out2 = tmp_path / "arena2.json"
    code, text = _arena("heuristic", "random", "-r", "onenight", "-n", "5", "-g", "7", "-j", "2", "--out", str(out2))
    assert code == 0, text
    doc2 = json.loads(out2.read_text())
    assert doc2["kinds"] == doc["kinds"] and doc2["roles"] == doc["roles"]


def test_the_rating_ranks_the_kind_whose_seats_won_more() -> None:
    games = [Played(g, g // 2, g % 2, (Seat(1, "a", "werewolf", True), Seat(2, "b", "villager", False),
                                       Seat(3, "a", "seer", g % 3 == 0)), ("wolves",)) for g in range(12)]
    ratings = rate(["a", "b"], games)
    assert ratings["a"][0] > 25 > ratings["b"][0] and ratings["a"][1] < 25 / 3


def test_bad_kinds_are_refused() -> None:
    code, text = _arena("heuristic")
    assert code == 2 and "at least two agent kinds" in text
    code, text = _arena("heuristic", "heuristic")
    assert code == 2 and "named twice" in text
    code, text = _arena("heuristic", "clever")
    assert code == 2 and "unknown agent kind" in text


def test_an_llm_kind_in_the_arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLM(speech="I am the seer, 2 is a wolf") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code, text = _arena("heuristic", "llm:fake", "-r", "onenight", "-n", "4", "-g", "2", "--transcripts",
                            str(tmp_path))
    assert code == 0, text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game-000000.jsonl", "game-000001.jsonl"]


def test_a_kinds_interval_counts_games_not_seats() -> None:
    """Seats of one kind that share their game's result make one game's worth of evidence, not several:
    the interval is the cluster-robust one (``clustered``), wider than a seat-by-seat Wilson interval."""
    # kind a holds both wolf seats of every game (they win or lose together); b the villagers, alike (no
    # rotation: a block a game, not paired)
    games = [Played(g, g, 0, (Seat(1, "a", "werewolf", g % 3 == 0), Seat(2, "a", "werewolf", g % 3 == 0),
                                       Seat(3, "b", "villager", g % 3 != 0), Seat(4, "b", "villager", g % 3 != 0),
                                       Seat(5, "b", "seer", g % 3 != 0)), ())
             for g in range(30)]
    res = tally(("a", "b"), games)
    a = res.by_kind["a"]
    assert (a.n, a.wins, a.games) == (60, 20, 30)
    row = res.by_kind["a"].row()
    # by hand: 30 games of 2 seats, k_g = 2 in 10 of them
    lo, hi, deff = clustered(20, 60, 10 * 4, 30 * 4, 10 * 4, 30)
    # worth 29 trials, not 60 (the games, with the G/(G-1) of a variance estimated from them)
    assert row["interval"] == [lo, hi] and row["design_effect"] == pytest.approx(deff) == pytest.approx(60 / 29)
    per_seat = wilson(20, 60)
    assert lo < per_seat[0] and hi > per_seat[1]  # wider than the per-seat interval
    assert [lo, hi] == pytest.approx(list(wilson(29 / 3, 29)))
    # per kind and role, and per kind and side, counted by game too
    assert res.by_role["b", "villager"].row()["interval"] == list(clustered(40, 60, 20 * 4, 30 * 4, 20 * 4, 30)[:2])
    assert res.by_side["b", "village"].row()["design_effect"] == pytest.approx(90 / 29)  # 3 seats a game
