"""A table of friends on a real server: ``werewolf serve --pace 0.3 0.6``, a classic game of nine with one
person and eight bots, played over HTTP while the person's phone and a spectator's screen watch the
WebSocket. The game ends; every message holds only what its screen may see, extends the one before it and
carries at most one night step; no request gets a 5xx and the server logs no error."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from .conftest import Server, auth
from .test_api import NINE


def mine(events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """The full log's events ``seat`` may see (the spectator: the public ones), as views show them."""
    return [{k: v for k, v in e.items() if k != "to"} for e in events
            if "to" not in e or (seat is not None and seat in e["to"])]


def test_a_paced_game_of_one_person_and_eight_bots_over_a_real_server(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = Server(str(tmp_path / "friends.sqlite"), log=log, pace=(0.3, 0.6)).start()
    statuses: list[int] = []
    messages: dict[str, list[dict[str, Any]]] = {"seat": [], "spectator": []}
    try:
        with httpx.Client(base_url=server.url, timeout=30) as c:
            room = c.post("/api/rooms", json={"ruleset": "classic", "deck": NINE, "bots": list(range(2, 10))}).json()
            rid, host = room["room"], room["host_token"]
            token = c.post(f"/api/rooms/{rid}/join", json={"name": "Ann", "seat": 1}).json()["token"]
            ws_url = f"ws://127.0.0.1:{server.port}/api/rooms/{rid}/ws"

            def watch(who: str, url: str, protocols: list[str] | None) -> None:
                with connect(url, subprotocols=protocols, open_timeout=10) as ws:  # type: ignore[arg-type]
                    try:
                        while True:
                            v = json.loads(ws.recv(timeout=60))
                            messages[who].append(v)
                            if v.get("game_over") or "error" in v:
                                return
                    except (TimeoutError, ConnectionClosed):
                        return

            watchers = [threading.Thread(target=watch, args=("seat", ws_url, ["werewolf", f"token.{token}"])),
                        threading.Thread(target=watch, args=("spectator", f"{ws_url}?spectator=true", None))]
            for w in watchers:
                w.start()
            time.sleep(0.3)  # both screens are open before the game starts
            r = c.post(f"/api/rooms/{rid}/start", headers=auth(host))
            statuses.append(r.status_code)
            # A tap of what is not asked, once for sure (Ann may die before she is ever asked anything).
            statuses.append(c.post(f"/api/rooms/{rid}/act", json={"act": "nonsense"}, headers=auth(token)).status_code)
            rng = random.Random(1)
            deadline = time.time() + 60
            over = False
            while not over and time.time() < deadline:
                r = c.get(f"/api/rooms/{rid}/view", headers=auth(token))
                statuses.append(r.status_code)
                v = r.json()
                over = v["game_over"] is not None
                if v["pending"]:
                    calm = [m for m in v["pending"] if m["act"] not in ("explode", "duel")] or v["pending"]
                    time.sleep(rng.random() * 0.3)  # a person thinks a little
                    if rng.random() < 0.2:  # and now and then taps what is not asked
                        statuses.append(c.post(f"/api/rooms/{rid}/act", json={"act": "nonsense"},
                                               headers=auth(token)).status_code)
                    statuses.append(c.post(f"/api/rooms/{rid}/act", json=rng.choice(calm),
                                           headers=auth(token)).status_code)
                else:
                    time.sleep(0.05)
            assert over, "the game did not end"
            for w in watchers:
                w.join(15)
            full = c.get(f"/api/rooms/{rid}/log").json()["events"]
    finally:
        server.stop()
    assert all(s < 500 for s in statuses), statuses
    assert 200 in statuses and (422 in statuses or 409 in statuses)
    for who, seat in (("seat", 1), ("spectator", None)):
        seen: list[dict[str, Any]] = []
        assert messages[who] and messages[who][-1]["game_over"], who
        allowed = mine(full, seat)
        for v in messages[who]:
            events = v["events"]
            assert events == allowed[:len(events)], who  # only what it may see, in the log's order
            assert events[:len(seen)] == seen, who  # nothing taken back
            assert sum(e["type"] == "step" for e in events[len(seen):]) <= 1, events[len(seen):]
            seen = events
        assert sum(e["type"] == "step" for e in seen) >= 4
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and " 500 " not in text and "ERROR" not in text, text[-3000:]
