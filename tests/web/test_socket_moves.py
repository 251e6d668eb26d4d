"""A seat's moves on its own socket (werewolf.web.moves): the same bodies, rulings and refusals as the POST
routes, a reply for each, and a refused move changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from werewolf.web.app import carry

from .conftest import auth
from .test_api import NINE, create, first_pending, join, snapshot, started, view

REPLY = ("reply", "ok", "status", "error")


def send_move(ws: Any, message: Any) -> dict[str, Any]:
    """Send ``message`` (a dict, or raw text) and read up to its reply (without the push it may ride on:
    ``?replies=inline``); the views pushed meanwhile are skipped."""
    if isinstance(message, str):
        ws.send_text(message)
    else:
        ws.send_json(message)
    while True:
        got = ws.receive_json()
        if "reply" in got:
            return {k: got[k] for k in REPLY if k in got}


@pytest.mark.parametrize("replies", ["apart", "inline"])
def test_a_game_answered_on_the_seats_sockets_only(client: Any, replies: str) -> None:
    rid, _, players = started(client, humans=3, seed=11)
    acked: dict[int, list[str]] = {p["seat"]: [] for p in players}
    sockets = {p["seat"]: client.websocket_connect(f"/api/rooms/{rid}/ws?token={p['token']}&replies={replies}")
               for p in players}
    try:
        opened = {s: ws.__enter__() for s, ws in sockets.items()}
        for ws in opened.values():
            ws.receive_json()  # the view on connect
        n = 0
        for _ in range(2000):
            vs = {p["seat"]: view(client, rid, p["token"]) for p in players}
            if any(v["game_over"] for v in vs.values()):
                break
            # (A wolf whose pick at the pack's knife is final waits for the pack: asked still, nothing to add.)
            seat, v = next((s, v) for s, v in vs.items() if v["pending"] and s not in (v.get("pack_ready") or []))
            move = v["pending"][-1]  # (as test_api.play_out: the last option ends a game soonest)
            n += 1
            assert send_move(opened[seat], {"id": n, "post": "act", "body": move}) == {"reply": n, "ok": True}
            acked[seat].append(move["act"])
        assert view(client, rid, players[0]["token"])["game_over"]
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)
    answers = client.get(f"/api/rooms/{rid}/log").json()["answers"]
    for seat, acts in acked.items():  # (a person's interrupt offers are answered by the room, not the person)
        logged = [a for s, a, _ in answers if s == seat and a not in ("explode", "duel")]
        assert len(logged) == len(acts) and all(m in a.split("|") for m, a in zip(acts, logged)), (acts, logged)


def test_every_refused_move_is_answered_with_the_routes_words_and_changes_nothing(client: Any) -> None:
    rid, host, players = started(client, humans=9, seed=5)
    tokens = [p["token"] for p in players]
    asked, v = first_pending(client, rid, players)
    idle = next(p for p in players if not view(client, rid, p["token"])["pending"])
    move = v["pending"][0]
    before = snapshot(client, rid, tokens + [host])
    http_illegal = client.post(f"/api/rooms/{rid}/act", json={"act": move["act"], "target": 99},
                               headers=auth(asked["token"])).json()["error"]
    with client.websocket_connect(f"/api/rooms/{rid}/ws?token={asked['token']}") as ws, \
            client.websocket_connect(f"/api/rooms/{rid}/ws?token={idle['token']}") as other, \
            client.websocket_connect(f"/api/rooms/{rid}/ws?token={host}") as hosting, \
            client.websocket_connect(f"/api/rooms/{rid}/ws?spectator=true") as watching:
        for s in (ws, other, hosting, watching):
            s.receive_json()
        refused = [
            (other, {"id": 1, "post": "act", "body": move}, 409, "not your turn"),
            (hosting, {"id": 2, "post": "act", "body": move}, 403, "player token"),
            (watching, {"id": 3, "post": "act", "body": move}, 403, "spectator"),
            (ws, {"id": 4, "post": "act", "body": {"target": 1}}, 422, "act"),
            (ws, {"id": 5, "post": "act", "body": [1]}, 422, "malformed"),
            (ws, {"id": 6, "post": "act", "body": {**move, "seat": asked["seat"] % 9 + 1}}, 403, "seat"),
            (ws, {"id": 7, "post": "act", "body": {"act": "shoot", "target": 1}}, 422, "not asked for this now"),
            (ws, {"id": 8, "post": "fly", "body": move}, 422, "'post' must be one of act, pick"),
            (ws, {"id": 9, "post": "act"}, 422, "needs a 'body'"),
            (ws, {"id": 10, "post": "act", "body": move, "seat": 3}, 422, "unexpected field(s) seat"),
            (ws, {"id": 11, "post": "pick", "body": {"target": 1, "confirm": "yes"}}, 422, "malformed"),
            (other, {"id": 12, "post": "pick", "body": {"target": 1}}, 409, "names no victim now"),
            (ws, {"id": 13, "post": "pack_chat", "body": {"text": "\u202ehi"}}, 422, "line"),
        ]
        for sock, message, status, words in refused:
            reply = send_move(sock, message)
            assert reply["reply"] == message["id"] and reply.get("status") == status, (message, reply)
            assert words in reply["error"], (message, reply)
        # The engine's refusal reads as the route's, word for word.
        reply = send_move(ws, {"id": 14, "post": "act", "body": {"act": move["act"], "target": 99}})
        assert reply == {"reply": 14, "status": 422, "error": http_illegal}
        # Messages that are no move at all: a reply without an id when none could be read.
        for raw, words in [("not json", "not valid JSON"), ('{"post": "act", "body": {}}', "'id'"),
                           ('{"id": true, "post": "act", "body": {}}', "'id'"),
                           ('{"id": -1, "post": "act", "body": {}}', "'id'"), ('["post"]', "'id', 'post'"),
                           ('{"hello": 1}', "or {'full': true}")]:
            reply = send_move(ws, raw)
            assert reply["reply"] is None and reply["status"] == 422 and words in reply["error"], (raw, reply)
        assert snapshot(client, rid, tokens + [host]) == before
        # The socket is still open and its move is taken.
        assert send_move(ws, {"id": 15, "post": "act", "body": move}) == {"reply": 15, "ok": True}
    assert snapshot(client, rid, tokens + [host]) != before


@pytest.mark.parametrize("delta", [False, True])
def test_the_view_that_shows_the_answer_comes_on_the_same_socket(client: Any, delta: bool) -> None:
    room = create(client, deck=NINE, bots=[2, 3, 4, 5, 6, 7, 8, 9], seed=4)
    p = join(client, room["room"], "Ann")
    rid = room["room"]
    client.post(f"/api/rooms/{rid}/start", headers=auth(room["host_token"]))
    with client.websocket_connect(f"/api/rooms/{rid}/ws?token={p['token']}&delta={str(delta).lower()}") as ws:
        ws.receive_json()
        v = view(client, rid, p["token"])
        while not v["pending"] and not v["game_over"]:
            v = view(client, rid, p["token"])
        before = len(v["events"])
        ws.send_json({"id": 1, "post": "act", "body": v["pending"][0]})
        replied = pushed = False
        while not (replied and pushed):
            got = ws.receive_json()
            if "reply" in got:
                assert got == {"reply": 1, "ok": True}
                replied = True
            else:
                pushed = pushed or (len(got["events"]) > (0 if delta else before))
        assert len(view(client, rid, p["token"])["events"]) > before


def test_an_inline_reply_rides_on_the_push_that_shows_the_answer(client: Any) -> None:
    """``?replies=inline``: the move's reply comes in the push whose view shows it taken (one message, not
    two), and nothing of it comes alone after; a refusal still comes alone, at once, and changes nothing."""
    room = create(client, deck=NINE, bots=[2, 3, 4, 5, 6, 7, 8, 9], seed=4)
    p = join(client, room["room"], "Ann")
    rid = room["room"]
    client.post(f"/api/rooms/{rid}/start", headers=auth(room["host_token"]))
    with client.websocket_connect(f"/api/rooms/{rid}/ws?token={p['token']}&delta=true&replies=inline") as ws:
        full = ws.receive_json()
        v = view(client, rid, p["token"])
        while not v["pending"] and not v["game_over"]:
            v = view(client, rid, p["token"])
        shown = {**full}
        refused = send_move(ws, {"id": 1, "post": "act", "body": {"act": v["pending"][0]["act"], "target": 99}})
        assert refused["reply"] == 1 and refused["status"] == 422, refused
        assert view(client, rid, p["token"])["pending"] == v["pending"]
        ws.send_json({"id": 2, "post": "act", "body": v["pending"][0]})
        while True:
            got = ws.receive_json()
            assert "v" in got  # every message a push: no reply comes alone when the view moved
            if "reply" in got:
                break
            shown = {**shown, **got["set"]}
        assert got["reply"] == 2 and got["ok"] is True and got["base"] == got["v"] - 1, got
        shown = {**shown, **got["set"]}
        assert shown["pending"] != v["pending"]  # the view it rides on shows the answer taken
        assert len(view(client, rid, p["token"])["events"]) >= len(v["events"])


def test_a_socket_asking_for_an_unknown_way_of_replies_is_refused(client: Any) -> None:
    rid, _, players = started(client, humans=1, seed=2)
    with client.websocket_connect(f"/api/rooms/{rid}/ws?token={players[0]['token']}&replies=sideways") as ws:
        got = ws.receive_json()
        assert "replies" in got["error"] and "'apart' or 'inline'" in got["error"], got
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 4422


def test_carry_puts_the_reply_and_the_push_in_one_object() -> None:
    assert json.loads(carry('{"reply":3,"ok":true}', '{"v":2,"base":1,"set":{}}')) == \
        {"reply": 3, "ok": True, "v": 2, "base": 1, "set": {}}
    assert carry('{"reply":3,"ok":true}', None) == '{"reply":3,"ok":true}'
