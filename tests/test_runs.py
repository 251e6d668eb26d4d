"""Recorded runs (issue 27, items 7, 9, 10): a killed run continues where it stopped, LLM seats in
parallel games, their usage in the report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from werewolf.agents.fakellm import FakeLLM
from werewolf.cli import main

ROOT = Path(__file__).resolve().parents[1]
SIM = ["simulate", "-q", "-r", "onenight", "-n", "5", "--bots", "heuristic", "--seed", "4",
       "--agent", "1-2=llm:fake?price_in=0.15&price_out=0.6"]


def lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def without_latency(usage: dict[str, Any]) -> dict[str, Any]:
    def clean(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items() if k != "latency_s"}
        return x

    return clean(usage)


def test_a_killed_simulation_continues_where_it_stopped_to_the_same_totals(tmp_path: Path) -> None:
    games = "60"
    with FakeLLM(stateless=True, speech="I am the seer, 2 is a wolf") as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "werewolf.cli", *SIM, "-g", games]
        whole, part = tmp_path / "whole", tmp_path / "part"
        subprocess.run([*cmd, "--run-dir", str(whole), "--out", str(tmp_path / "whole.json")], check=True, env=env,
                       cwd=ROOT, capture_output=True)
        proc = subprocess.Popen([*cmd, "--run-dir", str(part), "--out", str(tmp_path / "part.json")], env=env,
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        journal = part / "games.jsonl"
        deadline = time.monotonic() + 120
        while lines(journal) < 5 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)  # polling for the journal to hold five games
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed_at = lines(journal)
        assert 5 <= killed_at < int(games), killed_at
        assert not (tmp_path / "part.json").exists()  # it never finished
        done = subprocess.run([*cmd, "--run-dir", str(part), "--out", str(tmp_path / "part.json")], env=env,
                              cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    a = json.loads((tmp_path / "whole.json").read_text())
    b = json.loads((tmp_path / "part.json").read_text())
    assert b["stats"] == a["stats"] and b["stats"]["games"] == int(games)
    assert without_latency(b["llm_usage"]) == without_latency(a["llm_usage"])
    recs = [json.loads(x) for x in journal.read_text().splitlines()]
    assert sorted(r["game"] for r in recs) == list(range(int(games)))  # each game once: none lost, none twice


def test_another_run_in_a_run_directory_is_refused(tmp_path: Path) -> None:
    run = CliRunner().invoke(main, ["simulate", "-q", "-r", "onenight", "-n", "5", "-g", "3", "--run-dir",
                                    str(tmp_path)])
    assert run.exit_code == 0, run.output
    other = CliRunner().invoke(main, ["simulate", "-q", "-r", "onenight", "-n", "5", "-g", "3", "--seed", "9",
                                      "--run-dir", str(tmp_path)])
    assert other.exit_code == 2 and "holds another run" in other.output and "seed" in other.output
    # more games of the same run: only the new ones are played
    more = CliRunner().invoke(main, ["simulate", "-q", "-r", "onenight", "-n", "5", "-g", "5", "--run-dir",
                                     str(tmp_path)])
    assert more.exit_code == 0 and lines(tmp_path / "games.jsonl") == 5


def test_a_line_cut_short_by_a_kill_is_played_again(tmp_path: Path) -> None:
    args = ["simulate", "-q", "-r", "onenight", "-n", "5", "-g", "4", "--run-dir", str(tmp_path), "--out"]
    assert CliRunner().invoke(main, [*args, str(tmp_path / "a.json")]).exit_code == 0
    journal = tmp_path / "games.jsonl"
    text = journal.read_text().splitlines(keepends=True)
    journal.write_text("".join(text[:2]) + text[2][:40])  # two whole records and half a third
    assert CliRunner().invoke(main, [*args, str(tmp_path / "b.json")]).exit_code == 0
    a, b = (json.loads((tmp_path / f).read_text())["stats"] for f in ("a.json", "b.json"))
    assert a == b and sorted(json.loads(x)["game"] for x in journal.read_text().splitlines()) == [0, 1, 2, 3]


def test_llm_seats_in_parallel_games_and_their_usage_per_seat_and_kind(tmp_path: Path) -> None:
    with FakeLLM(stateless=True) as server:
        env = {"OPENAI_BASE_URL": server.base_url}
        one = CliRunner().invoke(main, [*SIM, "-g", "6", "--out", str(tmp_path / "1.json")], env=env)
        two = CliRunner().invoke(main, [*SIM, "-g", "6", "-j", "2", "--out", str(tmp_path / "2.json")], env=env)
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("1.json", "2.json"))
    assert a["stats"] == b["stats"] and without_latency(a["llm_usage"]) == without_latency(b["llm_usage"])
    usage = a["llm_usage"]
    kind = "llm:fake?price_in=0.15&price_out=0.6"
    assert set(usage["by_kind"]) == {kind} and set(usage["by_seat"]) == {"1", "2"}
    k = usage["by_kind"][kind]
    assert k["seat_games"] == 12 and k["calls"] > 0 and k["prompt_tokens"] > 0
    assert k["calls"] == usage["by_seat"]["1"]["calls"] + usage["by_seat"]["2"]["calls"]
    want = round((k["prompt_tokens"] * 0.15 + k["completion_tokens"] * 0.6) / 1e6, 6)
    assert abs(k["cost"] - want) < 1e-5
    assert "LLM usage" in one.output and "seat 1" in one.output


def test_several_providers_in_one_run_from_an_endpoints_file(tmp_path: Path) -> None:
    with FakeLLM(stateless=True) as one, FakeLLM(stateless=True) as two:
        toml = tmp_path / "endpoints.toml"
        toml.write_text(f'[endpoints.one]\nbase_url = "{one.base_url}"\nkey_env = "ONE_KEY"\nprice_in = 1.0\n\n'
                        f'[endpoints.two]\nbase_url = "{two.base_url}"\nkey_env = "TWO_KEY"\ntimeout = 9\n')
        env = {"ONE_KEY": "sk-one", "TWO_KEY": "sk-two", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
        out = tmp_path / "o.json"
        result = CliRunner().invoke(main, ["simulate", "-q", "-r", "onenight", "-n", "5", "-g", "3", "--endpoints",
                                           str(toml), "--agent", "1-2=llm:alpha@one", "--agent",
                                           "3=llm:beta@two?temperature=0.5", "--out", str(out)], env=env)
        assert result.exit_code == 0, result.output
        assert one.requests and two.requests
        assert {r["model"] for r in one.requests} == {"alpha"} and {r["model"] for r in two.requests} == {"beta"}
        assert one.keys == {"sk-one"} and two.keys == {"sk-two"}  # each its key, from the environment
        assert all(r["temperature"] == 0.5 for r in two.requests)
    usage = json.loads(out.read_text())["llm_usage"]
    assert set(usage["by_kind"]) == {"llm:alpha@one", "llm:beta@two?temperature=0.5"}
    assert usage["by_kind"]["llm:alpha@one"]["cost"] > 0 and usage["by_kind"]["llm:beta@two?temperature=0.5"][
        "cost"] is None  # priced / not priced
    assert set(usage["by_seat"]) == {"1", "2", "3"}
    assert "sk-one" not in out.read_text() and "sk-one" not in result.output  # no key in any report
    # a key's variable not set, an unknown endpoint, a key in the file: refused before any game
    bad = CliRunner().invoke(main, ["simulate", "-q", "-r", "onenight", "-n", "5", "-g", "1", "--endpoints",
                                    str(toml), "--agent", "1=llm:a@one"], env={"ONE_KEY": None})
    assert bad.exit_code == 2 and "ONE_KEY is not set" in bad.output
    bad = CliRunner().invoke(main, ["simulate", "-q", "-r", "onenight", "-n", "5", "--endpoints", str(toml),
                                    "--agent", "1=llm:a@three"], env=env)
    assert bad.exit_code == 2 and "no endpoint named 'three'" in bad.output
    (tmp_path / "keyed.toml").write_text('[endpoints.x]\nbase_url = "http://h/v1"\napi_key = "sk-x"\n')
    bad = CliRunner().invoke(main, ["simulate", "-q", "--endpoints", str(tmp_path / "keyed.toml")])
    assert bad.exit_code == 2 and "key_env" in bad.output


def test_a_failed_game_is_played_again_by_the_next_run(tmp_path: Path) -> None:
    args = ["simulate", "-q", "-r", "onenight", "-n", "5", "-g", "3", "--agent", "1=llm:m", "--run-dir",
            str(tmp_path / "run"), "--out"]
    # no server at all: every game fails (never reached: a configuration error, not a fallback)
    failed = CliRunner().invoke(main, [*args, str(tmp_path / "a.json")], env={"OPENAI_BASE_URL":
                                                                              "http://127.0.0.1:9/v1"})
    assert failed.exit_code == 1 and "3 game(s) failed" in failed.output
    with FakeLLM(stateless=True) as server:
        again = CliRunner().invoke(main, [*args, str(tmp_path / "b.json")], env={"OPENAI_BASE_URL": server.base_url})
        assert again.exit_code == 0, again.output
        assert server.requests
    stats = json.loads((tmp_path / "b.json").read_text())["stats"]
    assert stats["games"] == 3 and stats["errors"] == 0
