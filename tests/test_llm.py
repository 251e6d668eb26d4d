"""LLM seats (werewolf.agents.llm) against the fake chat-completions server: no network, no model."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator

import pytest

from werewolf.agents import Host, play, seat_view
from werewolf.agents.fakellm import FakeLLM
from werewolf.agents.heuristic import HeuristicAgent
from werewolf.agents.llm import LLMAgent, LLMError, Transcript, json_object
from werewolf.agents.prompt import Prompter
from werewolf.core import Game, Setup
from werewolf.core.views import SeatView


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    with FakeLLM() as s:
        yield s


def first_kill() -> tuple[Game, SeatView]:
    """Classic, seed 7: seats 3, 8, 9 and 11 are the wolves; seat 3 owes the first kill."""
    game = Game(Setup("classic", players=12, seed=7))
    d = game.request[0]
    return game, seat_view(game, d.seat, d)


def records(buf: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in buf.getvalue().splitlines()]


def test_a_legal_reply_is_the_move_and_the_call_is_in_the_transcript(server: FakeLLM) -> None:
    game, view = first_kill()
    server.replies = ['{"option": "kill:5"}']
    buf = io.StringIO()
    agent = LLMAgent("fake-model", base_url=server.base_url, transcript=Transcript(buf, game=7))
    assert agent.act(view) == {"act": "kill", "target": 5}
    (rec,) = records(buf)
    assert rec["game"] == 7 and rec["seat"] == view.seat and rec["role"] == "werewolf" and rec["call"] == "act"
    assert rec["option"] == "kill:5" and rec["outcome"] == "ok" and rec["attempt"] == 1
    assert rec["tokens"]["total"] > 0 and rec["tokens"]["prompt"] > 0 and rec["latency_s"] >= 0
    # the prompt: the rules and the role, the seat's log, the legal moves by id
    system, user = rec["messages"]
    assert "Classic Werewolf" in system["content"] and "Werewolf" in system["content"]
    assert "- kill:5: Seat 5" in user["content"] and "kill:none" in user["content"]
    # the structured output: the legal ids as an enum
    request = server.requests[0]
    schema = request["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["option"]["enum"] == list(view.options())
    assert request["model"] == "fake-model"


def test_an_illegal_reply_is_asked_again_once_with_the_reason(server: FakeLLM) -> None:
    _, view = first_kill()
    server.replies = ['{"option": "kill:42"}', '{"option": "kill:6"}']
    buf = io.StringIO()
    agent = LLMAgent("m", base_url=server.base_url, transcript=Transcript(buf))
    assert agent.act(view) == {"act": "kill", "target": 6}
    first, second = records(buf)
    assert first["outcome"] == "illegal" and "kill:42 is not a legal id" in first["reason"]
    assert second["attempt"] == 2 and second["outcome"] == "ok"
    retry = server.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": '{"option": "kill:42"}'}
    assert "not accepted: kill:42 is not a legal id" in retry[-1]["content"]


def test_a_move_the_engine_refuses_is_asked_again_with_the_engines_reason(server: FakeLLM) -> None:
    _, view = first_kill()
    server.replies = ['{"act": "kill", "target": 99}', "I kill kill:4 tonight."]
    buf = io.StringIO()
    agent = LLMAgent("m", base_url=server.base_url, transcript=Transcript(buf))
    assert agent.act(view) == {"act": "kill", "target": 4}
    first, second = records(buf)
    assert view.decision is not None and first["reason"] == view.decision.check({"act": "kill", "target": 99})
    assert first["reason"] in server.requests[1]["messages"][-1]["content"]
    assert second["option"] == "kill:4"


def test_garbage_twice_gets_the_decisions_default(server: FakeLLM) -> None:
    game, view = first_kill()
    server.replies = ["I would rather not say.", "{not json"]
    buf = io.StringIO()
    agent = LLMAgent("m", base_url=server.base_url, transcript=Transcript(buf))
    assert agent.act(view) is None  # None: the decision's default, as the Host plays it
    first, second = records(buf)
    assert first["outcome"] == "unreadable" and second["outcome"] == "unreadable, default"
    assert len(server.requests) == 2


def test_json_in_text_from_a_server_without_schemas(server: FakeLLM) -> None:
    _, view = first_kill()
    server.structured = False  # answers 400 to a response_format: the agent asks again without
    server.replies = ['Sure. Here is my move:\n```json\n{"option": "kill:10"}\n```']
    agent = LLMAgent("m", base_url=server.base_url)
    assert agent.act(view) == {"act": "kill", "target": 10}
    assert agent.structured is False and len(server.requests) == 1  # the refused request never reached a reply
    assert "response_format" not in server.requests[0]


def test_json_object_reader() -> None:
    assert json_object('{"option": "vote:4"}') == {"option": "vote:4"}
    assert json_object('I pick {"option": "save"} because {x}') == {"option": "save"}
    assert json_object("no json {here") is None


def test_an_unreachable_server_is_a_clear_error() -> None:
    import openai

    with FakeLLM() as s:
        url = s.base_url
    _, view = first_kill()
    agent = LLMAgent("m", client=openai.OpenAI(base_url=url, api_key="x", max_retries=0, timeout=2))
    with pytest.raises(LLMError, match="OPENAI_BASE_URL"):
        agent.act(view)


def test_the_prompt_is_in_the_chosen_language() -> None:
    _, view = first_kill()
    messages = Prompter("zh-Hant").act_messages(view)
    assert "經典狼人殺" in messages[0]["content"] and "狼人" in messages[0]["content"]
    assert "kill:5" in messages[1]["content"] and "合法的選擇" in messages[1]["content"]
    zh = Prompter("zh-Hans").act_messages(view)
    assert "经典狼人杀" in zh[0]["content"]


def test_an_llm_seats_speech_goes_into_the_game_as_its_statements() -> None:
    # Seat 1 (a villager in this deal) claims the seer and names seat 9 (a wolf) at each speech.
    buf = io.StringIO()
    with FakeLLM(speech="I'm the seer, 9 is a wolf") as server:
        llm = LLMAgent("m", base_url=server.base_url, transcript=Transcript(buf))
        game = Game(Setup("classic", players=12, seed=7))
        host = Host(game, {1: llm}, default=HeuristicAgent(random.Random(7)))
        host.run()
    said = [{k: v for k, v in e.data.items() if k != "parsed"} for e in host.public
            if e.type == "statement" and e.data["seat"] == 1]
    assert {"seat": 1, "kind": "claim", "role": "seer"} in said
    assert any(d["kind"] in ("check", "accuse") and d.get("target") == 9 for d in said), said
    speeches = [r for r in records(buf) if r["call"] == "speak"]
    assert speeches and speeches[0]["speech"] == "I'm the seer, 9 is a wolf"


@pytest.mark.parametrize("ruleset, players", [("classic", 12), ("onenight", 5), ("wechat", 9)])
def test_llm_seats_play_whole_games(ruleset: str, players: int) -> None:
    buf = io.StringIO()
    with FakeLLM(seed=3, speech="I am a villager.") as server:
        transcript = Transcript(buf, game=0)
        agents = {s: LLMAgent("m", base_url=server.base_url, transcript=transcript) for s in range(1, players + 1)}
        game = play(Game(Setup(ruleset, players=players, seed=11)), agents)
    assert game.over
    recs = records(buf)
    assert recs and all(r["outcome"] in ("ok", "silent") for r in recs)
    assert {r["seat"] for r in recs} <= set(range(1, players + 1))


def test_a_live_discussion_ends_though_the_model_always_talks() -> None:
    with FakeLLM(speech="I am a villager, trust me") as server:
        agents = {s: LLMAgent("m", base_url=server.base_url, discussion_rounds=2) for s in range(1, 6)}
        game = play(Game(Setup("onenight", players=5, seed=11, live_speech=True)), agents)
    assert game.over
    said = [e.data["seat"] for e in game.events if e.type == "speech" and e.data.get("part") == "discussion"]
    assert sorted(said) == sorted(list(range(1, 6)) * 2)  # two rounds each, then ready to vote
