"""Game records for datasets (issue 27, item 10): agents, every statement, each seat's view at each
decision, stated beliefs; the JSONL schema, the metrics and the Parquet export."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from werewolf.agents import Agent
from werewolf.agents.fakellm import FakeLLM
from werewolf.cli import main
from werewolf.core import Game, Setup
from werewolf.sim.dataset import SCHEMA, RecordingHost, metrics, record, view_at


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_simulate_logs_carry_agents_statements_and_decisions(tmp_path: Path) -> None:
    logs = tmp_path / "g.jsonl"
    result = CliRunner().invoke(main, ["simulate", "-q", "-g", "3", "--bots", "wolves=heuristic,village=random",
                                       "--logs", str(logs)])
    assert result.exit_code == 0, result.output
    recs = records(logs)
    assert [r["game"] for r in recs] == [0, 1, 2]
    for r in recs:
        assert r["schema"] == SCHEMA and r["error"] is None and r["players"] == 12
        assert set(r["agents"]) == set(r["roles"]) == {str(s) for s in range(1, 13)}
        for s, kind in r["agents"].items():  # the kinds follow the cards' sides, as --bots says
            assert kind == ("heuristic" if r["roles"][s] == "werewolf" else "random")
        heuristic = {int(s) for s, k in r["agents"].items() if k == "heuristic"}
        assert r["talk"] and {t["seat"] for t in r["talk"]} <= heuristic  # random seats say nothing
        assert all(t["acts"] and t["text"] is None for t in r["talk"])
        assert len(r["decisions"]) == r["summary"]["decisions"]
    # explain and replay still read the file
    from werewolf.replay import load

    assert load(logs, game=1).events


class Spy(Agent):
    """Plays at random, says the same words, and keeps every view it was shown."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seen: list[tuple[int, list[dict[str, Any]]]] = []

    def act(self, view: Any) -> Any:
        self.seen.append((view.seat, json.loads(json.dumps([e.as_json() for e in view.events()]))))
        opts = list(view.options().values())
        return self.rng.choice(opts) if opts else None

    def speak(self, view: Any) -> Any:
        return f"I'm the seer, {view.seat % 12 + 1} is a wolf"


@pytest.mark.parametrize("ruleset, players", [("classic", 12), ("onenight", 5)])
def test_a_decisions_view_is_exactly_what_the_seat_was_shown(ruleset: str, players: int) -> None:
    spy = Spy(3)
    game = Game(Setup(ruleset, players=players, seed=9))
    host = RecordingHost(game, {}, free_speech=True)
    host.default = spy
    host.run()
    rec = record(0, game, dict.fromkeys(range(1, players + 1), "spy"), host, {})
    rec = json.loads(json.dumps(rec))  # as read back from the file
    assert spy.seen
    views = iter(spy.seen)
    checked = 0
    for k, d in enumerate(rec["decisions"]):
        view = view_at(rec, k)
        events = [e for e in view if e["type"] != "talk"]
        # never an event addressed only to others
        assert all(e.get("to") is None or d["seat"] in e["to"] for e in events)
        if d["act"] == "speak" or d["seat"] not in range(1, players + 1):
            continue
        seat, shown = next(views)  # the agent's own view of this decision
        assert seat == d["seat"]
        assert events == [e for e in shown if e["type"] not in ("statement", "said")]
        assert [t["text"] for t in view if t["type"] == "talk"] == [e["text"] for e in shown if e["type"] == "said"]
        checked += 1
    assert checked == len(spy.seen)  # every view the agent was shown was checked


def test_beliefs_metrics_and_parquet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow.parquet as pq

    logs = tmp_path / "g.jsonl"
    with FakeLLM(speech="I am the seer, 2 is a wolf") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        result = CliRunner().invoke(main, ["arena", "-q", "heuristic", "llm:m?beliefs=1", "-r", "onenight", "-n",
                                           "5", "-g", "4", "--logs", str(logs)])
    assert result.exit_code == 0, result.output
    recs = records(logs)
    assert sorted(r["game"] for r in recs) == [0, 1, 2, 3]
    believed = [d for r in recs for d in r["decisions"] if "belief" in d]
    assert believed and all(set(d["belief"]) == {"1", "2", "3", "4", "5"} for d in believed)
    assert all(r["agents"][str(d["seat"])] == "llm:m?beliefs=1" for r in recs for d in r["decisions"]
               if "belief" in d)
    found = metrics(recs)
    llm = found["kinds"]["llm:m?beliefs=1"]
    assert found["games"] == 4 and llm["claims"] > 0 and llm["beliefs"] > 0
    assert 0 <= llm["belief_accuracy"] <= 1 and llm["false_claim_rate"] is not None
    # the Parquet tables, through the command
    out = tmp_path / "pq"
    run = CliRunner().invoke(main, ["dataset", str(logs), "--parquet", str(out)])
    assert run.exit_code == 0, run.output
    assert "llm:m?beliefs=1: claims" in run.output and "Parquet tables in" in run.output
    games = pq.read_table(out / "games.parquet")
    assert games.num_rows == 4 and sorted(games.column("game").to_pylist()) == [0, 1, 2, 3]
    seats = pq.read_table(out / "seats.parquet").to_pylist()
    assert len(seats) == 20 and all(s["calls"] is not None for s in seats if s["kind"].startswith("llm"))
    beliefs = pq.read_table(out / "beliefs.parquet").to_pylist()
    assert beliefs and all(b["correct"] == (b["role"] == b["truth"]) for b in beliefs)
    talk = pq.read_table(out / "talk.parquet").to_pylist()
    assert any(t["text"] == "I am the seer, 2 is a wolf" and t["acts"] for t in talk)
    events = pq.read_table(out / "events.parquet")
    assert events.num_rows == sum(len(r["events"]) for r in recs)
    decisions = pq.read_table(out / "decisions.parquet")
    assert decisions.num_rows == sum(len(r["decisions"]) for r in recs)
