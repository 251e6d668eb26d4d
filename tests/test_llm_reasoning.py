"""Reasoning models' replies (issue 27, item 8): the draft in <think> never beats the final answer."""

from __future__ import annotations

import io
import json

from werewolf.agents import play, seat_view
from werewolf.agents.fakellm import FakeLLM
from werewolf.agents.llm import LLMAgent, Transcript, json_object, split_reasoning
from werewolf.core import Game, Setup


def first_kill() -> tuple[Game, object]:
    game = Game(Setup("classic", players=12, seed=7))
    d = game.request[0]
    return game, seat_view(game, d.seat, d)


def test_the_last_object_of_the_schema_wins_and_the_draft_is_reasoning() -> None:
    text = '<think>maybe {"option": "kill:4"}, or {"option": "kill:6"}</think> Final: {"option": "kill:5"}'
    assert json_object(text, "option") == {"option": "kill:5"}
    answer, reasoning = split_reasoning(text)
    assert answer == 'Final: {"option": "kill:5"}' and '"kill:4"' in reasoning and '"kill:6"' in reasoning
    # without tags, the last object holding the key: an object of another shape after it does not count
    assert json_object('{"option": "a"} then {"option": "b"} {"note": 1}', "option") == {"option": "b"}
    # a reply that is all thinking (cut short): its last object rather than nothing
    assert json_object('<think>I go with {"option": "x"}', "option") == {"option": "x"}
    assert json_object("<think>nothing</think> no json") is None


def test_a_think_draft_with_json_loses_to_the_answer_and_is_recorded_apart() -> None:
    _, view = first_kill()
    buf = io.StringIO()
    reply = '<think>Kill 4? {"option": "kill:4"} No, 5 is the seer-like one.</think>\n{"option": "kill:5"}'
    with FakeLLM([reply]) as server:
        agent = LLMAgent("m", base_url=server.base_url, transcript=Transcript(buf))
        assert agent.act(view) == {"act": "kill", "target": 5}
    (rec,) = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert rec["option"] == "kill:5" and rec["outcome"] == "ok"
    assert rec["reasoning"].startswith("Kill 4?") and "kill:4" in rec["reasoning"]


def test_a_bare_id_in_the_draft_is_not_the_answer() -> None:
    _, view = first_kill()
    reply = "<think>kill:4 looks weak</think> I kill kill:6 tonight."
    with FakeLLM([reply]) as server:
        assert LLMAgent("m", base_url=server.base_url).act(view) == {"act": "kill", "target": 6}


def test_a_servers_reasoning_field_is_recorded() -> None:
    _, view = first_kill()
    buf = io.StringIO()
    with FakeLLM(['{"option": "kill:5"}'], reasoning="5 talks too much") as server:
        LLMAgent("m", base_url=server.base_url, transcript=Transcript(buf)).act(view)
    assert json.loads(buf.getvalue())["reasoning"] == "5 talks too much"


def test_a_speech_after_a_draft_is_the_final_one() -> None:
    game = Game(Setup("classic", players=12, seed=7))
    reply = '<think>{"speech": "I am the seer"} too risky</think>{"speech": "I am a villager."}'
    with FakeLLM([reply]) as server:
        agent = LLMAgent("m", base_url=server.base_url)
        assert agent.speak(seat_view(game, 1)) == "I am a villager."


def test_whole_games_with_a_reasoning_model_play_only_its_answers() -> None:
    buf = io.StringIO()
    with FakeLLM(seed=5, think=True) as server:
        transcript = Transcript(buf, game=0)
        agents = {s: LLMAgent("m", base_url=server.base_url, transcript=transcript) for s in range(1, 6)}
        game = play(Game(Setup("onenight", players=5, seed=3)), agents)
    assert game.over
    acts = [json.loads(line) for line in buf.getvalue().splitlines()]
    acts = [r for r in acts if r["call"] == "act"]
    assert acts and all(r["outcome"] == "ok" and r["attempt"] == 1 for r in acts)
    for r in acts:  # the move played is the one after the draft, never the draft's
        final = json.loads(r["reply"].split("</think>")[1])["option"]
        assert r["option"] == final and "At first" in r["reasoning"]
