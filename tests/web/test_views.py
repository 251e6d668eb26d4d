"""Property: across random games played over the API, every view holds exactly the events addressed to its seat.

Each seat's view (and the spectator's) is compared, at every step of random
games of every ruleset, with the engine's log filtered by audience: a view
never holds an event not addressed to its seat, another seat's role, or another
seat's decisions.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from werewolf.core.events import Event

from .conftest import auth

CASES = [("classic", "classic12"), ("facetoface", "ff12_444_guard"), ("wechat", "wechat12"), ("classic", "classic9"),
         ("onuw", "onuw6"), ("onenight", "onenight5")]


def addressed(events: list[Event], seat: int | None) -> list[dict[str, Any]]:
    mine = [e.as_json(with_audience=False) for e in events if e.to is None or (seat is not None and seat in e.to)]
    return list(json.loads(json.dumps(mine)))


def check(v: dict[str, Any], room: Any, seat: int | None) -> None:
    game = room.game
    assert v["seat"] == seat
    assert v["events"] == addressed(game.events, seat)
    roles = game.table.roles_by_seat()
    if seat is None:
        assert v["role"] is None and v["pending"] is None and not v["decisions"]
    else:
        told = [e for e in game.events if e.type in ("role", "took") and e.to is not None and seat in e.to
                and e.data.get("seat") == seat]
        assert v["role"] == (told[-1].data["role"] if told else None)
        assert v["role"] is None or v["role"] in roles.values()
        for d in v["decisions"] or []:
            assert d["seat"] == seat
        assert v["pending"] == ([o for d in game.pending(seat) for o in d.options()] or None)
    if "text" in v:
        assert len(v["text"]["events"]) == len(v["events"])


@settings(max_examples=8, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**31 - 1))
def test_no_view_ever_holds_an_event_not_addressed_to_its_seat(client: Any, case: tuple[str, str],
                                                               seed: int) -> None:
    ruleset, deck = case
    r = client.post("/api/rooms", json={"ruleset": ruleset, "deck": deck, "seed": seed})
    assert r.status_code == 201, r.text
    rid, host, n = r.json()["room"], r.json()["host_token"], r.json()["players"]
    tokens = {client.post(f"/api/rooms/{rid}/join", json={"name": f"p{i}"}).json()["token"]: i
              for i in range(1, n + 1)}
    by_seat = {s: t for t, s in tokens.items()}
    assert sorted(tokens.values()) == list(range(1, n + 1))
    assert client.post(f"/api/rooms/{rid}/start", headers=auth(host)).status_code == 200
    room = client.app.state.hub.rooms[rid]
    rng = random.Random(seed)
    for step in range(3000):
        # Everyone's view now and then; the seats asked, a random seat and the spectator every step.
        asked = sorted({d.seat for d in room.game.pending()})
        look = list(by_seat) if step % 25 == 0 else [*asked, rng.randint(1, n)]
        for seat in look:
            lang = rng.choice([None, "en", "zh-Hant"])
            v = client.get(f"/api/rooms/{rid}/view", headers=auth(by_seat[seat]),
                           params={"lang": lang} if lang else {}).json()
            check(v, room, seat)
        check(client.get(f"/api/rooms/{rid}/public").json(), room, None)
        if room.game.over:
            break
        seat = rng.choice(asked)
        v = client.get(f"/api/rooms/{rid}/view", headers=auth(by_seat[seat])).json()
        calm = [m for m in v["pending"] if m["act"] not in ("explode", "duel")]  # interrupts: rarely
        move = rng.choice(calm if calm and rng.random() < 0.95 else v["pending"])
        r = client.post(f"/api/rooms/{rid}/act", json=move, headers=auth(by_seat[seat]))
        assert r.status_code == 200, r.text
    assert room.game.over
