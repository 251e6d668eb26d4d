"""The public JSON API: every endpoint, and every error leaves everything as it was."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from werewolf.core.game import Game, Setup

from .conftest import auth

NINE = ["werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "villager", "villager", "villager"]


def create(client: Any, **body: Any) -> dict[str, Any]:
    body.setdefault("ruleset", "classic")
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def join(client: Any, room: str, name: str, **body: Any) -> dict[str, Any]:
    r = client.post(f"/api/rooms/{room}/join", json={"name": name, **body})
    assert r.status_code == 200, r.text
    return dict(r.json())


def error(r: Any, status: int, *words: str) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    message = r.json()["error"]
    assert isinstance(message, str) and message
    for w in words:
        assert w in message, message
    return str(message)


def started(client: Any, humans: int = 2, **body: Any) -> tuple[str, str, list[dict[str, Any]]]:
    """A 9-seat room with ``humans`` people in seats 1.. and bots elsewhere, started."""
    body.setdefault("deck", NINE)
    body.setdefault("seed", 3)
    room = create(client, bots=list(range(humans + 1, 10)), **body)
    players = [join(client, room["room"], f"P{i}") for i in range(1, humans + 1)]
    r = client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"]))
    assert r.status_code == 200, r.text
    return room["room"], room["host_token"], players


def view(client: Any, room: str, token: str, **params: Any) -> dict[str, Any]:
    r = client.get(f"/api/rooms/{room}/view", headers=auth(token), params=params)
    assert r.status_code == 200, r.text
    return dict(r.json())


def snapshot(client: Any, room: str, tokens: list[str]) -> list[dict[str, Any]]:
    return [view(client, room, t) for t in tokens]


# -- creating rooms --------------------------------------------------------------------------
def test_create_room_returns_an_id_and_a_host_token(client: Any) -> None:
    room = create(client, deck="classic12", bots=[2, 3], seed=1, lang="zh-TW", mode="face_to_face")
    assert room["players"] == 12 and len(room["host_token"]) >= 40 and room["url"].endswith("/r/" + room["room"])
    info = client.get(f"/api/rooms/{room['room']}").json()
    assert info["status"] == "lobby" and info["lang"] == "zh-Hant" and info["mode"] == "face_to_face"
    assert [s["seat"] for s in info["seats"] if s["bot"]] == [2, 3]
    assert "host_token" not in json.dumps(info) and room["host_token"] not in json.dumps(info)


def test_create_room_with_role_ids_a_preset_or_a_standard_size(client: Any) -> None:
    assert create(client, deck=NINE)["players"] == 9
    assert create(client, ruleset="facetoface", deck="ff9_standard")["players"] == 9
    assert create(client, ruleset="classic", players=10)["players"] == 10
    assert create(client, ruleset="onuw", deck="onuw5")["players"] == 5


@pytest.mark.parametrize("body, words", [
    ({"ruleset": "chess"}, ["unknown ruleset"]),
    ({"ruleset": "classic", "deck": "nope"}, ["unknown deck"]),
    ({"ruleset": "classic", "options": {"nonsense": 1}}, ["unknown option"]),
    ({"ruleset": "classic", "deck": "classic9", "bots": [0, 10]}, ["seat(s) 0, 10"]),
    ({"ruleset": "classic", "mode": "telepathy"}, ["mode"]),
    ({"ruleset": "classic", "bots": "all"}, ["bots"]),
    ({"ruleset": "classic", "colour": "red"}, ["colour"]),
    ({"ruleset": "classic", "seed": -1}, ["seed"]),
])
def test_create_room_rejects_bad_bodies(client: Any, body: dict[str, Any], words: list[str]) -> None:
    error(client.post("/api/rooms", json=body), 422, *words)


def test_malformed_json_is_a_clear_422(client: Any) -> None:
    r = client.post("/api/rooms", content=b"{not json", headers={"Content-Type": "application/json"})
    error(r, 422, "malformed")
    error(client.post("/api/rooms", json=[1, 2]), 422, "malformed")


def test_unknown_room_is_404_everywhere(client: Any) -> None:
    for r in (client.get("/api/rooms/nope"), client.post("/api/rooms/nope/join", json={"name": "a"}),
              client.post("/api/rooms/nope/start", headers=auth("x")), client.get("/api/rooms/nope/view",
                                                                                   headers=auth("x")),
              client.post("/api/rooms/nope/act", json={"act": "vote"}, headers=auth("x")),
              client.get("/api/rooms/nope/public"), client.get("/api/rooms/nope/qr.svg")):
        error(r, 404, "nope")


# -- joining ---------------------------------------------------------------------------------
def test_join_takes_free_seats_in_order_or_the_one_asked(client: Any) -> None:
    room = create(client, deck=NINE, bots=[1, 2])["room"]
    a = join(client, room, "  Ann   Lee ")
    b = join(client, room, "Bob", seat=7)
    c = join(client, room, "Cy")
    assert (a["seat"], b["seat"], c["seat"]) == (3, 7, 4)
    assert a["token"] != b["token"] and len(a["token"]) >= 40
    names = {s["seat"]: s["name"] for s in client.get(f"/api/rooms/{room}").json()["seats"]}
    assert names[3] == "Ann Lee" and names[7] == "Bob" and names[1] is None


def test_join_errors(client: Any) -> None:
    room = create(client, deck=NINE, bots=[1, 2, 3, 4, 5, 6, 7])["room"]
    error(client.post(f"/api/rooms/{room}/join", json={"name": "x", "seat": 1}), 409, "seat 1 is taken")
    error(client.post(f"/api/rooms/{room}/join", json={"name": "x", "seat": 10}), 422, "seat 10 does not exist")
    error(client.post(f"/api/rooms/{room}/join", json={"name": "   "}), 422, "name")
    error(client.post(f"/api/rooms/{room}/join", json={"name": "x" * 41}), 422, "name")
    error(client.post(f"/api/rooms/{room}/join", json={}), 422, "name")
    error(client.post(f"/api/rooms/{room}/join", json={"name": "x", "token": "y"}), 422, "token")
    join(client, room, "a")
    join(client, room, "b")
    error(client.post(f"/api/rooms/{room}/join", json={"name": "c"}), 409, "full")


# -- starting --------------------------------------------------------------------------------
def test_start_needs_the_host_token_and_full_seats(client: Any) -> None:
    room = create(client, deck=NINE, bots=[3, 4, 5, 6, 7, 8, 9])
    rid, host = room["room"], room["host_token"]
    p = join(client, rid, "a")
    error(client.post(f"/api/rooms/{rid}/start"), 401, "token")
    error(client.post(f"/api/rooms/{rid}/start", headers=auth("forged" + host[6:])), 403)
    error(client.post(f"/api/rooms/{rid}/start", headers={"Authorization": f"Token {host}"}), 401, "Bearer")
    error(client.post(f"/api/rooms/{rid}/start", headers=auth(p["token"])), 403, "host")
    error(client.post(f"/api/rooms/{rid}/start", headers=auth(host)), 409, "seat(s) 2")
    assert client.get(f"/api/rooms/{rid}").json()["status"] == "lobby"
    r = client.post(f"/api/rooms/{rid}/start", headers=auth(host), json={"fill_with_bots": True})
    assert r.status_code == 200 and r.json() == {"ok": True}
    info = client.get(f"/api/rooms/{rid}").json()
    assert info["status"] == "playing" and [s["seat"] for s in info["seats"] if s["bot"]] == list(range(2, 10))
    error(client.post(f"/api/rooms/{rid}/start", headers=auth(host)), 409, "already started")
    error(client.post(f"/api/rooms/{rid}/join", json={"name": "late"}), 409, "started")


def test_a_room_of_bots_plays_to_the_end_at_once(client: Any) -> None:
    room = create(client, deck=NINE, bots=list(range(1, 10)), seed=11)
    client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"]))
    v = view(client, room["room"], room["host_token"])
    assert v["game_over"] is not None and v["room"]["status"] == "over" and v["pending"] is None
    log = client.get(f"/api/rooms/{room['room']}/log").json()
    setup = Setup(**{**log["setup"], "seats": tuple(log["setup"]["seats"] or ()) or None,
                     "deck": tuple(log["setup"]["deck"]), "center": ()})
    replayed = Game.replay(setup, [tuple(a) for a in log["answers"]])
    assert json.loads(json.dumps([e.as_json() for e in replayed.events])) == log["events"]
    narrated = client.get(f"/api/rooms/{room['room']}/log?lang=zh-Hans").json()["text"]
    assert len(narrated) == len(log["events"]) and any(x and "狼人" in x for x in narrated)


# -- views -----------------------------------------------------------------------------------
def test_view_needs_a_token_of_this_room(client: Any) -> None:
    rid, host, players = started(client)
    other, _, other_players = started(client)
    error(client.get(f"/api/rooms/{rid}/view"), 401, "token")
    error(client.get(f"/api/rooms/{rid}/view", headers={"Authorization": "Bearer"}), 401)
    error(client.get(f"/api/rooms/{rid}/view", headers=auth("x" * 43)), 403)
    error(client.get(f"/api/rooms/{rid}/view", headers=auth(other_players[0]["token"])), 403)
    error(client.get(f"/api/rooms/{rid}/view", headers=auth(players[0]["token"][:-1])), 403)


def test_a_seat_sees_its_role_and_only_its_events(client: Any) -> None:
    rid, host, players = started(client, humans=9, seed=5)
    game = Game(Setup("classic", deck=tuple(NINE), seed=5, live_speech=True))
    roles = game.table.roles_by_seat()
    for p in players:
        v = view(client, rid, p["token"])
        assert v["seat"] == p["seat"] and v["role"] == roles[p["seat"]]
        assert all(e.get("seat") == p["seat"] for e in v["events"] if e["type"] == "role")
        owed = game.pending(p["seat"])
        assert v["pending"] == ([o for d in owed for o in d.options()] or None)
        assert all(isinstance(m, dict) and isinstance(m["act"], str) and "seat" not in m for m in v["pending"] or [])
    spectator = client.get(f"/api/rooms/{rid}/public").json()
    assert spectator["seat"] is None and spectator["role"] is None and spectator["pending"] is None
    assert all(e["type"] != "role" for e in spectator["events"])
    assert view(client, rid, host)["events"] == spectator["events"]


def test_lobby_view_and_narrated_view(client: Any) -> None:
    room = create(client, deck=NINE, bots=[2, 3, 4, 5, 6, 7, 8, 9], seed=2)
    p = join(client, room["room"], "Ann")
    v = view(client, room["room"], p["token"])
    assert v["phase"] == "lobby" and v["role"] is None and v["events"] == [] and v["pending"] is None
    client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"]))
    v = view(client, room["room"], p["token"], lang="zh-Hant")
    text = v["text"]
    assert text["lang"] == "zh-Hant" and len(text["events"]) == len(v["events"])
    assert text["role"]["name"] and text["role"]["description"]
    assert any(s and "第1夜" in s for s in text["events"])
    if v["pending"]:
        assert [o["move"] for d in text["decisions"] for o in d["options"]] == v["pending"]
        assert all(o["label"] for d in text["decisions"] for o in d["options"])


# -- acting ----------------------------------------------------------------------------------
def first_pending(client: Any, rid: str, players: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    for p in players:
        v = view(client, rid, p["token"])
        if v["pending"]:
            return p, v
    raise AssertionError("nobody is asked anything")


def test_act_answers_and_every_error_changes_nothing(client: Any) -> None:
    rid, host, players = started(client, humans=9, seed=5)
    tokens = [p["token"] for p in players]
    asked, v = first_pending(client, rid, players)
    idle = next(p for p in players if not view(client, rid, p["token"])["pending"])
    before = snapshot(client, rid, tokens + [host])
    bad = [
        (client.post(f"/api/rooms/{rid}/act", json=v["pending"][0]), 401, ["token"]),
        (client.post(f"/api/rooms/{rid}/act", json=v["pending"][0], headers=auth("f" * 43)), 403, []),
        (client.post(f"/api/rooms/{rid}/act", json=v["pending"][0], headers=auth(host)), 403, ["player token"]),
        (client.post(f"/api/rooms/{rid}/act", json=v["pending"][0], headers=auth(idle["token"])), 409,
         ["not your turn"]),
        (client.post(f"/api/rooms/{rid}/act", json={"target": 1}, headers=auth(asked["token"])), 422, ["act"]),
        (client.post(f"/api/rooms/{rid}/act", json=[1], headers=auth(asked["token"])), 422, ["malformed"]),
        (client.post(f"/api/rooms/{rid}/act", content=b"nope", headers={**auth(asked["token"]),
                                                                      "Content-Type": "application/json"}),
         422, ["malformed"]),
        (client.post(f"/api/rooms/{rid}/act", json={**v["pending"][0], "seat": asked["seat"] % 9 + 1},
                     headers=auth(asked["token"])), 403, ["seat"]),
        (client.post(f"/api/rooms/{rid}/act", json={"act": "shoot", "target": 1}, headers=auth(asked["token"])),
         422, ["not asked for this now"]),
        (client.post(f"/api/rooms/{rid}/act", json={"act": v["pending"][0]["act"], "target": 99, "targets": [1, 99]},
                     headers=auth(asked["token"])), 422, ["night1", f"seat {asked['seat']}"]),
    ]
    for r, status, words in bad:
        error(r, status, *words)
    assert snapshot(client, rid, tokens + [host]) == before
    r = client.post(f"/api/rooms/{rid}/act", json=v["pending"][0], headers=auth(asked["token"]))
    assert r.status_code == 200 and r.json() == {"ok": True}
    assert snapshot(client, rid, tokens + [host]) != before


def test_act_before_the_start_and_after_the_end(client: Any) -> None:
    room = create(client, deck=NINE, bots=[2, 3, 4, 5, 6, 7, 8, 9], seed=4)
    p = join(client, room["room"], "Ann")
    error(client.post(f"/api/rooms/{room['room']}/act", json={"act": "vote", "target": 2}, headers=auth(p["token"])),
          409, "not started")
    error(client.get(f"/api/rooms/{room['room']}/log"), 409, "over")
    client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"]))
    play_out(client, room["room"], [p])
    error(client.post(f"/api/rooms/{room['room']}/act", json={"act": "vote", "target": 2}, headers=auth(p["token"])),
          409, "over")


def play_out(client: Any, rid: str, players: list[dict[str, Any]], limit: int = 2000) -> dict[str, Any]:
    """Every person answers the first legal move until the game ends."""
    for _ in range(limit):
        progressed = False
        for p in players:
            v = view(client, rid, p["token"])
            if v["game_over"] is not None:
                return v
            if v["pending"]:
                r = client.post(f"/api/rooms/{rid}/act", json=v["pending"][-1], headers=auth(p["token"]))
                assert r.status_code == 200, r.text
                progressed = True
        assert progressed, "nobody is asked anything and the game is not over"
    raise AssertionError("the game did not end")


def test_a_speech_is_an_act_with_text(client: Any) -> None:
    rid, host, players = started(client, humans=9, seed=8)
    said = 0
    for _ in range(400):
        moved = False
        for p in players:
            v = view(client, rid, p["token"])
            for m in v["pending"] or []:
                if m["act"] == "speak":
                    r = client.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": f"hi from {p['seat']}"},
                                    headers=auth(p["token"]))
                    assert r.status_code == 200, r.text
                    said += 1
                    moved = True
                    break
            else:
                if v["pending"]:
                    client.post(f"/api/rooms/{rid}/act", json=v["pending"][-1], headers=auth(p["token"]))
                    moved = True
        if said >= 2 or not moved:
            break
    assert said >= 2
    spoken = [e for e in client.get(f"/api/rooms/{rid}/public").json()["events"] if e["type"] == "speech"]
    assert any(e.get("text") == f"hi from {e['seat']}" for e in spoken)


# -- timeouts --------------------------------------------------------------------------------
def test_a_person_who_does_not_answer_gets_the_default_after_the_timeout(tmp_path: Any) -> None:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app

    with TestClient(create_app(str(tmp_path / "t.sqlite"), timeout=600, tick=0.05)) as client:
        room = create(client, deck=NINE, bots=[2, 3, 4, 5, 6, 7, 8, 9], seed=4, timeout=0.3)
        p = join(client, room["room"], "Sleepy")
        client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"]))
        v = view(client, room["room"], p["token"])
        assert v["room"]["timeout"] == 0.3
        deadline = time.time() + 30
        while v["game_over"] is None and time.time() < deadline:
            if v["pending"]:
                assert v["deadline"] is not None and v["deadline"] <= time.time() + 0.3
            time.sleep(0.1)
            v = view(client, room["room"], p["token"])
        assert v["game_over"] is not None
        answers = client.get(f"/api/rooms/{room['room']}/log").json()["answers"]
        assert any(seat == 1 for seat, _, _ in answers)


# -- WebSocket -------------------------------------------------------------------------------
def test_websocket_pushes_the_view_on_connect_and_on_every_change(client: Any) -> None:
    rid, host, players = started(client, humans=9, seed=5)
    asked, v = first_pending(client, rid, players)
    with client.websocket_connect(f"/api/rooms/{rid}/ws?token={asked['token']}") as ws, \
            client.websocket_connect(f"/api/rooms/{rid}/ws?spectator=true&lang=en") as spec:
        first = ws.receive_json()
        assert first == v
        public = spec.receive_json()
        assert public["seat"] is None and "text" in public
        client.post(f"/api/rooms/{rid}/act", json=v["pending"][0], headers=auth(asked["token"]))
        assert ws.receive_json() == view(client, rid, asked["token"])


@pytest.mark.parametrize("query, code", [("", 4401), ("?token=nope", 4403)])
def test_websocket_refuses_bad_tokens(client: Any, query: str, code: int) -> None:
    rid, _, _ = started(client)
    with client.websocket_connect(f"/api/rooms/{rid}/ws{query}") as ws:
        assert "error" in ws.receive_json()
        with pytest.raises(WebSocketDisconnect) as exc:
            ws.receive_json()
        assert exc.value.code == code


# -- the rest --------------------------------------------------------------------------------
def test_decks_qr_openapi_and_pages(client: Any) -> None:
    decks = client.get("/api/decks?lang=zh-Hans").json()
    classic = next(r for r in decks["rulesets"] if r["id"] == "classic")
    assert any(d["id"] == "classic12" and d["players"] == 12 for d in classic["decks"])
    assert "预言家" in json.dumps(classic, ensure_ascii=False)
    room = create(client)
    svg = client.get(f"/api/rooms/{room['room']}/qr.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg") and b"<svg" in svg.content
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/rooms", "/api/rooms/{room_id}/join", "/api/rooms/{room_id}/start",
                 "/api/rooms/{room_id}/view", "/api/rooms/{room_id}/act", "/api/decks"):
        assert path in paths
    assert client.get("/").status_code == 200 and b"<html" in client.get(f"/r/{room['room']}").content.lower()
    assert client.get("/static/app.js").status_code == 200
