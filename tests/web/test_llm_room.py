"""A room may seat LLMs (bot_kind "llm") when the server names a model: against the fake server, no network."""

from __future__ import annotations

import re
from typing import Any

import pytest

from werewolf.agents.fakellm import FakeLLM

from .conftest import auth
from .test_api import NINE, create, error, view


def test_without_a_model_a_room_cannot_seat_llms(client: Any) -> None:
    from werewolf.web import seats

    if "llm" in seats.BOTS:
        pytest.skip("this server was started with WEREWOLF_LLM_MODEL set")
    error(client.post("/api/rooms", json={"ruleset": "classic", "bot_kind": "llm"}), 422, "bot_kind must be one of")


def test_a_room_of_llm_bots_plays_to_the_end(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from werewolf.web import seats

    with FakeLLM(speech="I'm the seer, 2 is a wolf") as server:
        monkeypatch.setenv("WEREWOLF_LLM_MODEL", "fake-model")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setitem(seats.BOTS, "llm", seats.llm_bots)
        room = create(client, deck=NINE, bots=list(range(1, 10)), seed=11, bot_kind="llm", live_speech=False)
        assert client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"])).status_code == 200
        v = view(client, room["room"], room["host_token"])
        assert v["game_over"] is not None, v["room"]
        assert server.requests and {r["model"] for r in server.requests} == {"fake-model"}
        assert client.get(f"/api/rooms/{room['room']}").json()["bot_kind"] == "llm"


def _seats_prompted(server: FakeLLM) -> dict[int, set[str]]:
    """The models each seat's prompts went to (the system prompt names the seat)."""
    out: dict[int, set[str]] = {}
    for r in server.requests:
        system = next(m["content"] for m in r["messages"] if m["role"] == "system")
        seat = int(re.search(r"as seat (\d+) of", system).group(1))  # type: ignore[union-attr]
        out.setdefault(seat, set()).add(r["model"])
    return out


def test_a_room_seats_a_kind_per_bot_seat_llms_of_several_models_among_them(
        client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLM(speech="I'm the seer, 2 is a wolf") as server:
        monkeypatch.setenv("WEREWOLF_LLM_MODELS", "fake-a, fake-b")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        kinds = {"1": "llm:fake-a", "2": "llm:fake-b", "4": "llm", "5": "random", "6": "heuristic"}
        room = create(client, deck=NINE, bots=list(range(1, 10)), seed=11, bot_kinds=kinds, live_speech=False)
        info = client.get(f"/api/rooms/{room['room']}").json()
        # Written out in full: "llm" is the server's first model; the other seats play the room's kind.
        assert info["bot_kinds"] == {**kinds, "4": "llm:fake-a"} and info["bot_kind"] == "heuristic"
        assert client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"])).status_code == 200
        v = view(client, room["room"], room["host_token"])
        assert v["game_over"] is not None, v["room"]
        # Only the LLM seats asked a model, each its own.
        assert _seats_prompted(server) == {1: {"fake-a"}, 2: {"fake-b"}, 4: {"fake-a"}}


@pytest.mark.parametrize("bots,kinds,words", [
    ([2, 3], {"5": "random"}, ["bot_kinds", "seat 5 is not a bot seat (bots: 2, 3)"]),
    ([], {"1": "heuristic"}, ["bot_kinds", "seat 1 is not a bot seat (bots: none)"]),
    ([2], {"2": "werewolf.agents:RandomAgent"}, ["bot_kinds.2", "should match pattern"]),  # no user's class
    ([2], {"2": "llm:"}, ["bot_kinds.2", "should match pattern"]),
    ([2], {"2": "LLM"}, ["bot_kinds.2", "should match pattern"]),
    ([2], {"0": "random"}, ["bot_kinds", "should match pattern"]),
    ([2], {"two": "random"}, ["bot_kinds", "should match pattern"]),
    ([2], {"2": 3}, ["bot_kinds.2", "should be a valid string"]),
    ([2], ["random"], ["bot_kinds", "should be a valid dictionary"]),
    ([2, 3], {"3": "llm:fake-c"}, ["bot_kinds: seat 3: model 'fake-c' is not offered by this server",
                                   "offered: fake-a, fake-b"]),
])
def test_bot_kinds_are_checked_strictly_and_a_refused_room_is_not_made(
        client: Any, monkeypatch: pytest.MonkeyPatch, bots: list[int], kinds: Any, words: list[str]) -> None:
    monkeypatch.setenv("WEREWOLF_LLM_MODELS", "fake-a,fake-b")
    hub = client.app.state.hub
    before = dict(hub.rooms)
    error(client.post("/api/rooms", json={"ruleset": "classic", "deck": NINE, "bots": bots, "bot_kinds": kinds}),
          422, *words)
    assert hub.rooms == before


def test_a_server_that_offers_no_model_seats_no_llm(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEREWOLF_LLM_MODELS", raising=False)
    monkeypatch.delenv("WEREWOLF_LLM_MODEL", raising=False)
    for kind in ("llm", "llm:gpt-4o-mini"):
        error(client.post("/api/rooms", json={"deck": NINE, "bots": [4], "bot_kinds": {"4": kind}}), 422,
              "bot_kinds: seat 4: this server seats no LLM")
    # The plain kinds need no model.
    room = create(client, deck=NINE, bots=[4, 5], bot_kinds={"4": "random"})
    assert client.get(f"/api/rooms/{room['room']}").json()["bot_kinds"] == {"4": "random"}


def test_the_kinds_are_stored_with_the_room(tmp_path: Any) -> None:
    """A restarted server reads each seat's kind back (werewolf.web.store), as the room wrote it out."""
    from werewolf.web.store import RoomRecord, Store

    store = Store(f"sqlite:///{tmp_path / 'kinds.sqlite'}")
    try:
        rec = RoomRecord(id="abc", created=1.0, status="lobby", setup={"ruleset": "classic"}, mode="online",
                         lang="en", bots=[2, 3], host_hash="h", timeout=None, bot_kinds={2: "llm:m", 3: "random"})
        store.call(Store.create_room(rec))
        plain = RoomRecord(id="def", created=2.0, status="lobby", setup={"ruleset": "classic"}, mode="online",
                           lang="en", bots=[2], host_hash="h", timeout=None)
        store.call(Store.create_room(plain))
        loaded = {r.id: r for r in store.call(Store.load(["abc", "def"]))}
        assert loaded["abc"].bot_kinds == {2: "llm:m", 3: "random"}
        assert loaded["def"].bot_kinds is None
    finally:
        store.close()
