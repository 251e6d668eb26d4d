"""Free speech (issue 27, item 6): an LLM's words reach every seat (LLM seats verbatim, bots through the
parser) in simulate, arena and play; --structured-only passes the statements alone."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from werewolf.agents import Host
from werewolf.agents.fakellm import FakeLLM
from werewolf.agents.heuristic import HeuristicAgent
from werewolf.agents.llm import LLMAgent
from werewolf.cli import main
from werewolf.core import Game, Setup

WORDS = "I'm the seer, 9 is a wolf. Trust me on this, seat 9 was twitchy all night"


def users_of(server: FakeLLM, seat: int) -> list[str]:
    return [r["messages"][-1]["content"] for r in server.requests
            if f"seat {seat} of" in r["messages"][0]["content"]]


def game_with_two_models(free_speech: bool) -> tuple[Host, FakeLLM]:
    with FakeLLM(speech=WORDS, seed=2) as server:
        agents = {s: LLMAgent("m", base_url=server.base_url) for s in (1, 2)}
        host = Host(Game(Setup("classic", players=12, seed=7)), agents, default=HeuristicAgent(random.Random(7)),
                    free_speech=free_speech)
        host.run()
    return host, server


def test_a_models_words_reach_the_other_models_verbatim_and_the_bots_as_statements() -> None:
    host, server = game_with_two_models(free_speech=True)
    said = [e for e in host.public if e.type == "said"]
    assert said and {e.data["text"] for e in said} == {WORDS}
    # the bots' statements: read from the words, marked as such
    parsed = [e.data for e in host.public if e.type == "statement" and e.data.get("parsed")]
    assert {"seat": 1, "kind": "claim", "role": "seer", "parsed": True} in parsed
    # seat 2's prompts after seat 1 spoke hold seat 1's words, not the sentence rendered from them
    later = [u for u in users_of(server, 2) if "Seat 1: “" in u]
    assert later and all(WORDS in u for u in later)
    assert not any("Seat 1: I am the Seer." in u for u in users_of(server, 2))


def test_structured_only_passes_the_statements_alone() -> None:
    host, server = game_with_two_models(free_speech=False)
    assert not [e for e in host.public if e.type == "said"]
    assert any(e.type == "statement" and e.data == {"seat": 1, "kind": "claim", "role": "seer"} for e in host.public)
    users = users_of(server, 2)
    assert any("Seat 1: I am the Seer." in u for u in users) and not any("twitchy" in u for u in users)


@pytest.mark.parametrize("command", ["simulate", "arena"])
def test_simulate_and_arena_pass_free_speech_unless_told_not_to(command: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def prompts(*flags: str) -> list[str]:
        folder = tmp_path / "-".join(flags or ("free",))
        with FakeLLM(speech=WORDS) as server:
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
            args = (["simulate", "--agent", "all=llm:m", "-g", "1"] if command == "simulate"
                    else ["arena", "llm:m", "llm:n", "-g", "2"])
            result = CliRunner().invoke(main, [*args, "-q", "-r", "classic", "-n", "12", "--transcripts",
                                               str(folder), *flags])
            assert result.exit_code == 0, result.output
        recs = [json.loads(line) for f in sorted(folder.iterdir()) for line in f.read_text().splitlines()]
        return [r["messages"][-1]["content"] for r in recs]

    free = prompts()
    assert any("“" + WORDS + "”" in p for p in free)
    structured = prompts("--structured-only")
    assert structured and not any("twitchy" in p for p in structured)
    assert any("I am the Seer." in p for p in structured)


def test_play_passes_typed_words_to_llm_seats_unless_structured_only(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.test_agent_kinds import TYPED

    def prompts(*flags: str) -> list[dict[str, Any]]:
        with FakeLLM() as server:
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
            result = CliRunner().invoke(main, ["play", "--seed", "4", "--seat", "2", "--agent", "3,4=llm:m",
                                               *flags], input=TYPED)
            assert result.exit_code == 0, result.output[-2000:]
            return list(server.requests)

    free = prompts()
    # the table's speeches (the person's typed lines, the bots' words) as said, in quotes
    assert any("Seat 2: “" in r["messages"][-1]["content"] for r in free)
    structured = prompts("--structured-only")
    assert structured and not any("“" in r["messages"][-1]["content"] for r in structured)
