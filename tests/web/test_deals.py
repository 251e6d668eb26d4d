"""Fair deals (issue 14, point 2): without a seed the deal comes from the server's secret randomness and its
seed is shown nowhere before the end; a seed chosen by the creator marks the room "fixed deal"."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from .conftest import auth


def test_a_room_without_a_seed_never_shows_it_before_the_end(client: Any, tmp_path: Path) -> None:
    r = client.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9", "bots": list(range(2, 10))})
    assert r.status_code == 201
    room, host = r.json()["room"], r.json()["host_token"]
    seen = [r.text]
    token = client.post(f"/api/rooms/{room}/join", json={"name": "Ann"}).json()["token"]
    info = client.get(f"/api/rooms/{room}").json()
    assert info["fixed_deal"] is False
    seen.append(json.dumps(info))
    seen.append(client.post(f"/api/rooms/{room}/start", headers=auth(host)).text)
    with sqlite3.connect(tmp_path / "test.sqlite") as conn:
        (setup,) = conn.execute("SELECT setup FROM rooms WHERE id = ?", (room,)).fetchone()
    seed = json.loads(setup)["seed"]  # stored for replay
    assert isinstance(seed, int) and seed > 2**20
    for _ in range(400):
        for path, headers in ((f"/api/rooms/{room}/view", auth(token)), (f"/api/rooms/{room}/view", auth(host)),
                              (f"/api/rooms/{room}/public", {}), (f"/api/rooms/{room}", {})):
            for lang in (None, "zh-Hant"):
                seen.append(client.get(path, headers=headers, params={"lang": lang} if lang else {}).text)
        log = client.get(f"/api/rooms/{room}/log")
        if log.status_code == 200:
            break
        seen.append(log.text)
        v = client.get(f"/api/rooms/{room}/view", headers=auth(token)).json()
        if v["pending"]:
            move = next((m for m in v["pending"] if m["act"] not in ("explode", "duel")), v["pending"][0])
            seen.append(client.post(f"/api/rooms/{room}/act", json=move, headers=auth(token)).text)
    with client.websocket_connect(f"/api/rooms/{room}/ws?token={token}") as ws:
        seen.append(ws.receive_text())
    assert all(str(seed) not in text for text in seen)
    assert log.status_code == 200 and log.json()["setup"]["seed"] == seed  # the end shows it, for replay


def test_two_rooms_without_a_seed_get_different_seeds(client: Any, tmp_path: Path) -> None:
    rooms = [client.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9"}).json()["room"]
             for _ in range(5)]
    with sqlite3.connect(tmp_path / "test.sqlite") as conn:
        seeds = {json.loads(s)["seed"] for (s,) in conn.execute("SELECT setup FROM rooms")}
    assert len(seeds) == len(rooms)


def test_a_chosen_seed_marks_the_room_fixed_deal_everywhere(client: Any) -> None:
    r = client.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9", "seed": 42})
    room, host = r.json()["room"], r.json()["host_token"]
    token = client.post(f"/api/rooms/{room}/join", json={"name": "Ann"}).json()["token"]
    assert client.get(f"/api/rooms/{room}").json()["fixed_deal"] is True
    for v in (client.get(f"/api/rooms/{room}/view", headers=auth(token)).json(),
              client.get(f"/api/rooms/{room}/public").json()):
        assert v["room"]["fixed_deal"] is True  # from the lobby on
    client.post(f"/api/rooms/{room}/start", headers=auth(host), json={"fill_with_bots": True})
    assert client.get(f"/api/rooms/{room}/view", headers=auth(token)).json()["room"]["fixed_deal"] is True


def test_a_room_sets_its_pace_within_bounds(client: Any) -> None:
    r = client.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9", "pace": [1, 2.5]})
    assert r.status_code == 201, r.text
    assert client.get(f"/api/rooms/{r.json()['room']}").json()["pace"] == [1.0, 2.5]
    default = client.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9"}).json()["room"]
    assert client.get(f"/api/rooms/{default}").json()["pace"] == [0.0, 0.0]  # the tests' server default
    for bad in ([2, 1], [-1, 1], [0, 121], [1], [1, 2, 3], "4-9", [0, 10**400], [True, 2]):
        r = client.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9", "pace": bad})
        assert r.status_code == 422 and "pace" in r.json()["error"], (bad, r.text)
    for bad in ("[0, Infinity]", "[NaN, 1]", "[0, 1e309]"):
        r = client.post("/api/rooms", content='{"ruleset": "classic", "pace": ' + bad + "}",
                        headers={"Content-Type": "application/json"})
        assert r.status_code == 422 and "pace" in r.json()["error"], (bad, r.text)
