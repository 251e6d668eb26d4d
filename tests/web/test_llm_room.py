"""A room may seat LLMs (bot_kind "llm") when the server names a model: against the fake server, no network."""

from __future__ import annotations

from typing import Any

import pytest

from werewolf.agents.fakellm import FakeLLM

from .conftest import auth
from .test_api import NINE, create, error, view


def test_without_a_model_a_room_cannot_seat_llms(client: Any) -> None:
    from werewolf.web import rooms

    if "llm" in rooms.BOTS:
        pytest.skip("this server was started with WEREWOLF_LLM_MODEL set")
    error(client.post("/api/rooms", json={"ruleset": "classic", "bot_kind": "llm"}), 422, "bot_kind must be one of")


def test_a_room_of_llm_bots_plays_to_the_end(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from werewolf.web import rooms

    with FakeLLM(speech="I'm the seer, 2 is a wolf") as server:
        monkeypatch.setenv("WEREWOLF_LLM_MODEL", "fake-model")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setitem(rooms.BOTS, "llm", rooms.llm_bots)
        room = create(client, deck=NINE, bots=list(range(1, 10)), seed=11, bot_kind="llm", live_speech=False)
        assert client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"])).status_code == 200
        v = view(client, room["room"], room["host_token"])
        assert v["game_over"] is not None, v["room"]
        assert server.requests and {r["model"] for r in server.requests} == {"fake-model"}
        assert client.get(f"/api/rooms/{room['room']}").json()["bot_kind"] == "llm"
