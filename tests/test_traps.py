"""Traps (issue 27, item 12): a RandomAgent subclass is asked, arena names stay whole in a narrow
terminal, arena checks its optional packages before the first game, its --out has every game and the
pairwise comparison."""

from __future__ import annotations

import importlib.util
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from werewolf.agents import Host, RandomAgent, plain_random, play
from werewolf.cli import main
from werewolf.core import Game, Setup
from werewolf.sim import command
from werewolf.sim.config import SimConfig


class Loud(RandomAgent):
    """A random player that talks and counts its moves."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.acted = 0
        self.spoke = 0

    def act(self, view: Any) -> Any:
        self.acted += 1
        return super().act(view)

    def speak(self, view: Any) -> Any:
        self.spoke += 1
        return "I am the seer, 2 is a wolf"


class Reseeded(RandomAgent):
    def __init__(self) -> None:
        super().__init__(rng=random.Random(5))


def test_a_subclass_of_random_agent_is_asked_through_its_own_methods() -> None:
    loud = Loud(3)
    host = Host(Game(Setup("classic", players=12, seed=7)), {1: loud}, default=RandomAgent(1))
    host.run()
    assert loud.acted > 0 and loud.spoke > 0
    assert any(e.type == "statement" and e.data["seat"] == 1 and e.data["kind"] == "claim" for e in host.public)
    # as the only agent, through play(): no fast path around it
    only = Loud(4)
    play(Game(Setup("onenight", players=5, seed=2)), {}, default=only)
    assert only.acted > 0
    # a subclass that changes nothing the fast path skips still takes it
    assert plain_random(RandomAgent(1)) and plain_random(Reseeded()) and not plain_random(Loud())


def test_arena_kind_names_are_never_cut_to_one_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    import werewolf.sim.command as cmd

    real = cmd.Console
    monkeypatch.setattr(cmd, "Console", lambda file=None, **kw: real(file=file, width=40, **kw))  # a narrow terminal
    long = ("werewolf.agents:RandomAgent", "tests.test_traps:Loud")
    out = io.StringIO()
    assert command.arena(SimConfig(ruleset="onenight", players=5, games=4), long, outs=(), quiet=True,
                         stdout=out) == 0
    text = out.getvalue()
    for kind in long:
        assert kind in text  # whole, on one line of the legend, at 40 columns
    assert "A = werewolf.agents:RandomAgent" in text and "B = tests.test_traps:Loud" in text


def test_arena_refuses_before_its_first_game_without_its_package(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "openskill" else real(name, *a))
    run = tmp_path / "run"
    result = CliRunner().invoke(main, ["arena", "-q", "heuristic", "random", "-r", "onenight", "-n", "5", "-g", "4",
                                       "--run-dir", str(run)])
    assert result.exit_code == 2 and "pip install 'werewolf[arena]'" in result.output
    assert not run.exists()  # not one game played
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "openai" else real(name, *a))
    result = CliRunner().invoke(main, ["arena", "-q", "heuristic", "llm:m", "-r", "onenight", "-n", "5"])
    assert result.exit_code == 2 and "pip install 'werewolf[llm]'" in result.output


def test_arena_out_has_every_game_and_the_pairwise_comparison(tmp_path: Path) -> None:
    out = tmp_path / "a.json"
    result = CliRunner().invoke(main, ["arena", "-q", "heuristic", "random", "-r", "onenight", "-n", "5", "-g", "20",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    games = doc["game_records"]
    assert [g["game"] for g in games] == list(range(20))
    for g in games:
        assert g["block"] == g["game"] // 2 and g["rotation"] == g["game"] % 2 and len(g["seats"]) == 5
        assert {s["kind"] for s in g["seats"]} == {"heuristic", "random"}
    (pair,) = doc["pairwise"]
    assert pair["a"] == "heuristic" and pair["b"] == "random" and pair["blocks"] == 10 and pair["pairs"] == 50
    # recomputed from the games: each (block, seat) once per kind
    won = {(g["block"], s["seat"], s["kind"]): s["won"] for g in games for s in g["seats"]}
    a_only = sum(won[(b, s, "heuristic")] and not won[(b, s, "random")] for b in range(10) for s in range(1, 6))
    diff = sum(won[(b, s, "heuristic")] - won[(b, s, "random")] for b in range(10) for s in range(1, 6)) / 50
    assert pair["a_only"] == a_only and abs(pair["mean_difference"] - diff) < 1e-12
    lo, hi = pair["interval"]
    assert lo <= pair["mean_difference"] <= hi
    assert "pairwise" in result.output


def test_arena_continues_a_stopped_run_to_the_same_results(tmp_path: Path) -> None:
    args = ["arena", "-q", "heuristic", "random", "-r", "onenight", "-n", "5", "-g", "12", "--run-dir",
            str(tmp_path / "run"), "--out"]
    assert CliRunner().invoke(main, [*args, str(tmp_path / "whole.json")]).exit_code == 0
    journal = tmp_path / "run" / "games.jsonl"
    kept = journal.read_text().splitlines(keepends=True)[:5]
    journal.write_text("".join(kept))  # as if killed after five games
    assert CliRunner().invoke(main, [*args, str(tmp_path / "resumed.json")]).exit_code == 0
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("whole.json", "resumed.json"))
    for key in ("kinds", "roles", "sides", "pairwise", "game_records"):
        assert a[key] == b[key], key
    assert len(journal.read_text().splitlines()) == 12
