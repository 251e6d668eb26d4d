"""A flaky provider (issue 27, item 7): retries with backoff, Retry-After, timeouts, fallbacks, settings."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from email.utils import formatdate
from typing import Any

import pytest

from werewolf.agents import play, seat_view
from werewolf.agents.fakellm import FakeLLM
from werewolf.agents.kinds import build, parse_rule
from werewolf.agents.llm import LLMAgent, Transcript, retry_after
from werewolf.agents.llmkind import parse_llm
from werewolf.core import Game, Setup
from werewolf.core.errors import SetupError


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    """The backoff waits asked for (and waited: they are tiny in these tests)."""
    import werewolf.agents.llm as llm

    asked: list[float] = []
    real = llm.time.sleep

    def sleep(s: float) -> None:
        asked.append(s)
        real(min(s, 0.2))

    monkeypatch.setattr(llm.time, "sleep", sleep)
    yield asked


def first_kill() -> Any:
    game = Game(Setup("classic", players=12, seed=7))
    d = game.request[0]
    return seat_view(game, d.seat, d)


def test_a_429_and_a_500_are_retried_honouring_retry_after(waits: list[float]) -> None:
    view = first_kill()
    buf = io.StringIO()
    with FakeLLM(['{"option": "kill:5"}'], faults=["429:0.05", "500"]) as server:
        agent = LLMAgent("m", base_url=server.base_url, backoff=0.001, transcript=Transcript(buf))
        assert agent.act(view) == {"act": "kill", "target": 5}
        assert server.faulted == ["429:0.05", "500"] and len(server.requests) == 1
    assert waits[0] >= 0.05 and waits[1] < 0.01  # the server's Retry-After, then the tiny backoff
    rec = json.loads(buf.getvalue())
    assert rec["outcome"] == "ok" and rec["retried"] == ["RateLimitError 429", "InternalServerError 500"]
    usage = agent.usage()
    assert usage["retries"] == 2 and usage["calls"] == 1 and usage["fallbacks"] == 0


def test_a_reply_slower_than_the_timeout_is_retried(waits: list[float]) -> None:
    view = first_kill()
    with FakeLLM(['{"option": "kill:6"}'], faults=["slow:30"]) as server:
        agent = LLMAgent("m", base_url=server.base_url, backoff=0.001, timeout=0.5)
        assert agent.act(view) == {"act": "kill", "target": 6}
    assert agent.usage()["retries"] == 1 and len(waits) == 1


def test_after_n_failures_the_move_is_the_fallback_logged_as_such(waits: list[float]) -> None:
    view = first_kill()
    buf = io.StringIO()
    with FakeLLM(faults=["503"] * 3) as server:
        agent = LLMAgent("m", base_url=server.base_url, retries=2, backoff=0.001, transcript=Transcript(buf))
        assert agent.act(view) is None  # the decision's default
    rec = json.loads(buf.getvalue())
    assert rec["outcome"] == "fallback" and "failed 3 times" in rec["reason"] and "503" in rec["reason"]
    assert agent.usage()["fallbacks"] == 1 and agent.usage()["failed_calls"] == 1 and len(waits) == 2


def test_a_game_against_a_server_that_keeps_failing_ends_with_fallbacks(waits: list[float]) -> None:
    with FakeLLM(faults=["500"] * 10_000) as server:
        agents = {s: LLMAgent("m", base_url=server.base_url, retries=1, backoff=0.0) for s in (1, 2)}
        game = play(Game(Setup("onenight", players=5, seed=3)), agents)
    assert game.over
    assert sum(a.usage()["fallbacks"] for a in agents.values()) > 0
    assert all(a.usage()["calls"] == 0 for a in agents.values())


def test_retry_after_reads_seconds_milliseconds_and_dates() -> None:
    class Response:
        def __init__(self, headers: dict[str, str]) -> None:
            self.headers = headers

    class Err:
        def __init__(self, headers: dict[str, str]) -> None:
            self.response = Response(headers)

    assert retry_after(Err({"retry-after": "2.5"})) == 2.5
    assert retry_after(Err({"retry-after-ms": "150", "retry-after": "9"})) == 0.15
    import time

    later = retry_after(Err({"retry-after": formatdate(time.time() + 30, usegmt=True)}))
    assert later is not None and 25 < later <= 31
    assert retry_after(Err({})) is None and retry_after(Err({"retry-after": "soon"})) is None
    assert retry_after(object()) is None


def test_settings_per_seat_reach_the_server() -> None:
    with FakeLLM() as server:
        kind = f"llm:small@{server.base_url}?temperature=0.3&seed=9&max_tokens=64&timeout=7&retries=1"
        agents = build({2: kind, 3: "llm:big"}, seed=1, ruleset="classic")
        view = first_kill()
        agents[2].act(view)
        req = server.requests[0]
    assert req["model"] == "small" and req["temperature"] == 0.3 and req["seed"] == 9 and req["max_tokens"] == 64
    a2, a3 = agents[2], agents[3]
    assert isinstance(a2, LLMAgent) and isinstance(a3, LLMAgent)
    assert a2.timeout == 7 and a2.retries == 1 and a3.timeout == 120 and a3.temperature is None


@pytest.mark.parametrize("kind, message", [
    ("llm:m?temperature=hot", "is not a float"),
    ("llm:m?colour=red", "unknown setting 'colour'"),
    ("llm:m?timeout=0", "timeout must be more than 0"),
    ("llm:m?retries=-1", "cannot be negative"),
    ("llm:m@nowhere", "no endpoint named 'nowhere'"),
    ("llm:m?key_env=WEREWOLF_NO_SUCH_KEY", "WEREWOLF_NO_SUCH_KEY is not set"),
    ("llm:@http://x/v1", "no model name"),
])
def test_bad_settings_are_refused_by_name(kind: str, message: str) -> None:
    with pytest.raises(SetupError, match=message):
        parse_rule(f"1={kind}")


def test_spec_reading() -> None:
    spec = parse_llm("llm:qwen@http://127.0.0.1:9/v1?structured=0&beliefs=yes&price_in=0.5")
    assert spec.model == "qwen" and spec.base_url == "http://127.0.0.1:9/v1"
    assert spec.params == {"structured": False, "beliefs": True, "price_in": 0.5}
