"""No secret in any log line: a real server (uvicorn, on loopback) logs everything it may at its most
verbose level while a whole game is played over HTTP and WebSockets, and no token is in its output."""

from __future__ import annotations

import contextlib
import json
import logging
import time
from pathlib import Path

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from werewolf.web.logs import REDACTED, Redact, redact

from .conftest import Server, auth
from .test_api import NINE


def test_the_server_log_holds_no_token(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = Server(str(tmp_path / "logs.sqlite"), log=log, log_level="trace").start()
    forged = "F" * 43
    try:
        with httpx.Client(base_url=server.url, timeout=30) as c, contextlib.ExitStack() as stack:
            room = c.post("/api/rooms", json={"ruleset": "classic", "deck": NINE, "bots": [4, 5, 6, 7, 8, 9],
                                              "seed": 7}).json()
            rid, host = room["room"], room["host_token"]
            players = [c.post(f"/api/rooms/{rid}/join", json={"name": f"P{i}"}).json() for i in (1, 2, 3)]
            tokens = [host] + [p["token"] for p in players]
            ws_url = f"ws://127.0.0.1:{server.port}/api/rooms/{rid}/ws"
            # Every way a token may reach the server: the subprotocol (the browser's way), the old ?token=,
            # the Authorization header, and forged ones in each.
            sockets = [stack.enter_context(connect(url, subprotocols=protocols))  # type: ignore[arg-type]
                       for url, protocols in ((ws_url, ["werewolf", f"token.{players[0]['token']}"]),
                                              (f"{ws_url}?token={players[1]['token']}", None),
                                              (f"{ws_url}?lang=en", ["werewolf", f"token.{host}"]),
                                              (f"{ws_url}?spectator=true", None))]
            for ws in sockets:
                assert "room" in json.loads(ws.recv(timeout=10))
            with connect(f"{ws_url}?token={forged}") as bad:
                assert "error" in json.loads(bad.recv(timeout=10))
            c.get(f"/api/rooms/{rid}/view", headers=auth(forged))
            c.get(f"/api/rooms/{rid}/view?token={players[2]['token']}", headers=auth(players[2]["token"]))
            assert c.post(f"/api/rooms/{rid}/start", headers=auth(host)).status_code == 200
            deadline = time.time() + 120
            over = False
            while not over and time.time() < deadline:
                moved = False
                for p in players:
                    v = c.get(f"/api/rooms/{rid}/view", headers=auth(p["token"])).json()
                    over = v["game_over"] is not None
                    if v["pending"]:
                        c.post(f"/api/rooms/{rid}/act", json=v["pending"][-1], headers=auth(p["token"]))
                        c.post(f"/api/rooms/{rid}/act", json={"act": "nonsense"}, headers=auth(p["token"]))
                        moved = True
                assert moved or over
            assert over, "the game did not end"
            for ws in sockets:
                try:
                    while True:  # every push of the game
                        ws.recv(timeout=0.5)
                except (TimeoutError, ConnectionClosed):
                    pass
    finally:
        server.stop()
    text = log.read_text(errors="replace")
    assert "WebSocket" in text and "ASGI" in text and REDACTED in text, text[-2000:]  # it logged, verbosely
    for token in [*tokens, forged]:
        assert token not in text
        assert token[:20] not in text  # nor a part of one


def test_redaction_of_each_form_a_secret_takes() -> None:
    token = "abcDEF012_-" * 4
    for line in (f'GET /api/rooms/x/ws?token={token}&lang=en', f"Authorization: Bearer {token}",
                 f"(b'sec-websocket-protocol', b'werewolf, token.{token}')", f"the token {token} was bad"):
        assert token not in redact(line) and token[:10] not in redact(line) and REDACTED in redact(line)
    assert redact("room abcd1234 seat 3") == "room abcd1234 seat 3"
    record = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, '%s - "WebSocket %s" %s',
                               ("127.0.0.1:5", f"/api/rooms/x/ws?token={token}", "[accepted]"), None)
    assert Redact().filter(record) and token not in record.getMessage()
