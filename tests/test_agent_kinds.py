"""Any agent in any seat: ``--agent SEATS=KIND`` for simulate and play (werewolf.agents.kinds)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from werewolf.agents.fakellm import FakeLLM
from werewolf.agents.kinds import check_kind, kinds_by_seat, parse_rule, parse_rules
from werewolf.cli import main
from werewolf.core.errors import SetupError

# `werewolf play` keys a menu by seat number (0 none, letters for the rest; several seats typed as
# seats): answers that suit every menu sooner or later; a statement prompt takes any line.
TYPED = "".join(f"{k}\n" for k in [*map(str, range(1, 13)), "0", "a", "1 2", "5 6", "8 9"]) * 300

USER_AGENTS = '''
from werewolf.agents import Agent

CALLS = []


class FirstOption(Agent):
    """Always the first legal move; counts its calls (in this process)."""

    def __init__(self, seed=None, seat=None):
        self.seed, self.seat = seed, seat

    def act(self, view):
        CALLS.append(view.seat)
        assert view.seat == self.seat
        opts = view.options()
        return next(iter(opts.values())) if opts else None


class Cheat(Agent):
    def act(self, view):
        return {"act": "no_such_act"}


class NotAnAgent:
    pass


class NeedsAModel(Agent):
    def __init__(self, model, seed=None):
        self.model = model
'''


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "kinds_test_agents.py").write_text(textwrap.dedent(USER_AGENTS), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "kinds_test_agents"


def test_rules_and_kinds(user_module: str) -> None:
    assert parse_rule("1, 3=heuristic") == (("1", "3"), "heuristic")
    assert parse_rule("wolves=llm:gpt-4o-mini") == (("wolves",), "llm:gpt-4o-mini")
    assert parse_rule("all=llm:llama3:8b") == (("all",), "llm:llama3:8b")  # a model name may hold colons
    assert check_kind(f"{user_module}:FirstOption") == f"{user_module}:FirstOption"
    for bad, message in [("3", "use SEATS=KIND"), ("x=random", "bad seat 'x'"), ("0=random", "bad seat '0'"),
                         ("1=smart", "unknown agent kind"), ("1=llm:", "unknown agent kind"),
                         ("1=no_such_module_x:A", "cannot import"), (f"1={user_module}:Nope", "has no 'Nope'"),
                         (f"1={user_module}:NotAnAgent", "not a subclass"),
                         (f"1={user_module}:NeedsAModel", "its constructor needs model")]:
        with pytest.raises(SetupError, match=message):
            parse_rule(bad)
    with pytest.raises(SetupError, match="names seat 2 twice"):
        parse_rules(["1,2=random", "2=heuristic"])


def test_a_seat_wins_over_a_side_a_side_over_all_and_any_rule_over_the_bots() -> None:
    sides = {1: "wolves", 2: "village", 3: "village", 4: "others"}
    rules = parse_rules(["2=random", "village=llm:m", "all=heuristic"])
    assert kinds_by_seat(rules, sides, "random") == {1: "heuristic", 2: "random", 3: "llm:m", 4: "heuristic"}
    assert kinds_by_seat(parse_rules(["1=heuristic"]), sides, {"village": "heuristic"}) == {
        1: "heuristic", 2: "heuristic", 3: "heuristic", 4: "random"}
    with pytest.raises(SetupError, match="names seat 9, but the game has 4 seats"):
        kinds_by_seat(parse_rules(["9=random"]), sides, "random")


def _simulate(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["simulate", "-q", *args])
    return result.exit_code, result.output


def test_simulate_seats_a_users_class_in_this_process_and_in_workers(user_module: str, tmp_path: Path) -> None:
    import kinds_test_agents  # type: ignore[import-not-found]

    out = tmp_path / "stats.json"
    code, text = _simulate("-g", "4", "--agent", f"1,wolves={user_module}:FirstOption", "--bots", "heuristic",
                           "--out", str(out))
    assert code == 0, text
    assert 1 in kinds_test_agents.CALLS  # seat 1 is the user's, in every game
    assert f"1,wolves={user_module}:FirstOption; others heuristic" in text
    doc = json.loads(out.read_text())
    assert doc["config"]["agents"] == [f"1,wolves={user_module}:FirstOption"] and doc["config"]["games"] == 4
    code, text = _simulate("-g", "6", "-j", "2", "--agent", f"village={user_module}:FirstOption")
    assert code == 0 and "6 games" in text, text


def test_a_seat_the_game_does_not_have_is_refused_before_any_game() -> None:
    code, text = _simulate("-r", "onenight", "-n", "5", "-g", "2", "--agent", "6=heuristic")
    assert code == 2 and "names seat 6, but the game has 5 seats" in text, text


def test_an_agents_illegal_move_fails_its_game_with_the_engines_reason(user_module: str) -> None:
    code, text = _simulate("-g", "2", "--agent", f"all={user_module}:Cheat")
    assert code == 1 and "2 game(s) failed" in text and "no_such_act" in text, text


def test_simulate_with_llm_seats_keeps_their_transcripts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "transcripts"
    with FakeLLM(speech="I am a villager") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code, text = _simulate("-r", "onenight", "-n", "5", "-g", "3", "--agent", "1,2=llm:fake-model",
                               "--transcripts", str(folder))
    assert code == 0, text
    files = sorted(p.name for p in folder.iterdir())
    assert files == ["game-000000.jsonl", "game-000001.jsonl", "game-000002.jsonl"]
    recs = [json.loads(line) for line in (folder / files[1]).read_text().splitlines()]
    assert recs and {r["seat"] for r in recs} <= {1, 2} and all(r["game"] == 1 for r in recs)
    assert all(r["model"] == "fake-model" and r["tokens"]["total"] for r in recs)


def test_play_seats_other_agents_beside_the_person(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    with FakeLLM() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        result = runner.invoke(main, ["play", "--seed", "4", "--seat", "2", "--agent", "3,4=llm:m", "--agent",
                                      "wolves=random", "--transcripts", str(tmp_path)], input=TYPED)
        assert result.exit_code == 0, result.output[-2000:]
        assert server.requests  # the LLM seats were asked
    lines = (tmp_path / "play-4.jsonl").read_text().splitlines()
    assert {json.loads(line)["seat"] for line in lines} <= {3, 4}
    result = runner.invoke(main, ["play", "--seed", "4", "--seat", "2", "--agent", "2=random"], input="1\n")
    assert result.exit_code == 2 and "your own seat" in result.output
