"""Issue 15, points 5, 7 and 8 through the API: seats in the lobby, the speech timer, play again.

Every bad request gets a 4xx naming what was wrong and changes nothing, in memory (the room's info)
and in the database (the same room read back by a new server on the same file).
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from werewolf.core.game import Setup
from werewolf.web.hub import Hub
from werewolf.web.state import Subscriber
from werewolf.web.store import PlayerRecord, RoomRecord, Store, database_url

from .conftest import auth
from .test_api import NINE, create, error, join, view
from .test_discussion import old_database


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "lobby.sqlite")


def app_client(database: str) -> Any:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app
    from werewolf.web.limits import Limits

    return TestClient(create_app(database, timeout=0, limits=Limits.off()))


@pytest.fixture
def c(db: str) -> Iterator[Any]:
    with app_client(db) as client:
        yield client


def info(client: Any, room: str) -> dict[str, Any]:
    r = client.get(f"/api/rooms/{room}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def seating(client: Any, room: str) -> list[tuple[int, str | None, bool]]:
    return [(s["seat"], s["name"], s["bot"]) for s in info(client, room)["seats"]]


def stored(db: str, room: str) -> tuple[list[tuple[int, str, str]], str, list[tuple[str, int, str]]]:
    """What the database holds of a lobby: its players, its bot seats, the tokens removed."""
    with sqlite3.connect(db) as conn:
        players = conn.execute("SELECT seat, name, token_hash FROM players WHERE room_id = ? ORDER BY seat",
                               (room,)).fetchall()
        (bots,) = conn.execute("SELECT bots FROM rooms WHERE id = ?", (room,)).fetchone()
        removed = conn.execute("SELECT token_hash, seat, name FROM removed WHERE room_id = ?", (room,)).fetchall()
    return players, bots, removed


def seat(client: Any, room: str, token: str, **body: Any) -> Any:
    return client.post(f"/api/rooms/{room}/seat", json=body, headers=auth(token))


def lobby(client: Any) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
    """A 9-seat lobby: Ann in seat 1, Bob in seat 2, a bot in seat 9."""
    room = create(client, deck=NINE, bots=[9], seed=5)
    ann, bob = join(client, room["room"], "Ann"), join(client, room["room"], "Bob")
    assert (ann["seat"], bob["seat"]) == (1, 2)
    return room["room"], room["host_token"], ann, bob


# -- 5. seats and names --------------------------------------------------------------------------
def test_a_player_taps_the_free_seat_they_sit_in(c: Any) -> None:
    rid, _, ann, bob = lobby(c)
    r = seat(c, rid, ann["token"], to=5)
    assert r.status_code == 200, r.text
    assert r.json() == {"ok": True, "seat": 5}
    assert seating(c, rid)[0] == (1, None, False) and seating(c, rid)[4] == (5, "Ann", False)
    assert view(c, rid, ann["token"])["seat"] == 5 and view(c, rid, bob["token"])["seat"] == 2
    # Joining takes the first free seat, now seat 1 again; a seat may be named at joining too.
    assert join(c, rid, "Cat")["seat"] == 1 and join(c, rid, "Dan", seat=7)["seat"] == 7


def test_the_host_moves_swaps_and_removes_players_and_bots(c: Any, db: str) -> None:
    rid, host, ann, bob = lobby(c)
    assert seat(c, rid, host, seat=1, to=4).json()["seat"] == 4  # Ann to a free seat
    assert seat(c, rid, host, seat=4, to=2).status_code == 200  # Ann and Bob swap
    assert seat(c, rid, host, seat=9, to=3).status_code == 200  # the bot moves too
    assert seat(c, rid, host, seat=3, to=2).status_code == 200  # a bot and a player swap
    assert [s for s in seating(c, rid) if s[1] or s[2]] == [(2, None, True), (3, "Ann", False), (4, "Bob", False)]
    assert view(c, rid, ann["token"])["seat"] == 3 and view(c, rid, bob["token"])["seat"] == 4
    players, bots, _ = stored(db, rid)
    assert [(s, n) for s, n, _ in players] == [(3, "Ann"), (4, "Bob")] and bots == "[2]"
    # Removed: the bot's seat is free; Bob's token stops working, with a message that says why.
    assert c.post(f"/api/rooms/{rid}/remove", json={"seat": 2}, headers=auth(host)).status_code == 200
    assert c.post(f"/api/rooms/{rid}/remove", json={"seat": 4}, headers=auth(host)).status_code == 200
    assert [s for s in seating(c, rid) if s[1] or s[2]] == [(3, "Ann", False)]
    for r in (c.get(f"/api/rooms/{rid}/view", headers=auth(bob["token"])), seat(c, rid, bob["token"], to=6)):
        error(r, 403, "the host removed Bob from seat 4", "token no longer works", "join again")
    assert stored(db, rid)[2][0][1:] == (4, "Bob")
    # The name is free again; names stay unique (case- and width-insensitively) whoever moved where.
    assert join(c, rid, "Bob")["seat"] == 1
    error(c.post(f"/api/rooms/{rid}/join", json={"name": "ＡＮＮ"}), 409, "taken")
    # A restarted server still says why Bob's old token fails.
    c2 = app_client(db)
    with c2:
        error(c2.get(f"/api/rooms/{rid}/view", headers=auth(bob["token"])), 403, "the host removed Bob")


BAD_SEATS = [
    ("player", {"to": 2}, 409, ["seat 2 is taken", "ask the host"]),
    ("player", {"seat": 2, "to": 5}, 403, ["only the host may move seat 2"]),
    ("player", {"to": 10}, 422, ["seat 10 does not exist", "seats 1 to 9"]),
    ("player", {"to": 0}, 422, ["seat 0 does not exist"]),
    ("player", {"to": 1}, 409, ["already there"]),
    ("player", {"to": "5"}, 422, ["to"]),
    ("player", {"to": 5, "name": "x"}, 422, ["name"]),
    ("player", {}, 422, ["to"]),
    ("host", {"to": 5}, 422, ["host token holds no seat"]),
    ("host", {"seat": 6, "to": 5}, 409, ["seat 6 is empty"]),
    ("host", {"seat": 100, "to": 5}, 422, ["seat"]),
    ("stranger", {"to": 5}, 403, ["does not belong to this room"]),
    ("none", {"to": 5}, 401, ["missing token"]),
]


@pytest.mark.parametrize("who, body, status, words", BAD_SEATS)
def test_a_bad_seat_request_changes_nothing(c: Any, db: str, who: str, body: dict[str, Any], status: int,
                                            words: list[str]) -> None:
    rid, host, ann, _ = lobby(c)
    before, before_db = info(c, rid), stored(db, rid)
    token = {"player": ann["token"], "host": host, "stranger": "x" * 43, "none": ""}[who]
    headers = auth(token) if token else {}
    error(c.post(f"/api/rooms/{rid}/seat", json=body, headers=headers), status, *words)
    assert info(c, rid) == before and stored(db, rid) == before_db


@pytest.mark.parametrize("who, body, status, words", [
    ("player", {"seat": 2}, 403, ["only the host may remove"]),
    ("host", {"seat": 6}, 409, ["seat 6 is empty"]),
    ("host", {"seat": 10}, 422, ["seat 10 does not exist"]),
    ("host", {"seat": True}, 422, ["seat"]),
    ("host", {}, 422, ["seat"]),
])
def test_a_bad_removal_changes_nothing(c: Any, db: str, who: str, body: dict[str, Any], status: int,
                                       words: list[str]) -> None:
    rid, host, ann, _ = lobby(c)
    before, before_db = info(c, rid), stored(db, rid)
    token = ann["token"] if who == "player" else host
    error(c.post(f"/api/rooms/{rid}/remove", json=body, headers=auth(token)), status, *words)
    assert info(c, rid) == before and stored(db, rid) == before_db


def test_seats_are_fixed_once_the_game_has_started(c: Any, db: str) -> None:
    rid, host, ann, _ = lobby(c)
    assert c.post(f"/api/rooms/{rid}/start", json={"fill_with_bots": True}, headers=auth(host)).status_code == 200
    before, before_db = info(c, rid)["seats"], stored(db, rid)
    error(seat(c, rid, ann["token"], to=5), 409, "the game has started")
    error(seat(c, rid, host, seat=1, to=2), 409, "the game has started")
    error(c.post(f"/api/rooms/{rid}/remove", json={"seat": 2}, headers=auth(host)), 409, "the game has started")
    assert info(c, rid)["seats"] == before and stored(db, rid) == before_db


def test_a_moved_players_socket_is_closed_and_reconnects_as_its_new_seat(c: Any) -> None:
    rid, host, ann, bob = lobby(c)
    with c.websocket_connect(f"/api/rooms/{rid}/ws", subprotocols=["werewolf", "token." + ann["token"]]) as ws:
        assert ws.receive_json()["seat"] == 1
        assert seat(c, rid, host, seat=1, to=2).status_code == 200  # Ann and Bob swap
        with pytest.raises(WebSocketDisconnect):
            for _ in range(5):  # never the view of seat 1, now Bob's
                assert ws.receive_json().get("seat") != 1
    with c.websocket_connect(f"/api/rooms/{rid}/ws", subprotocols=["werewolf", "token." + ann["token"]]) as ws:
        assert ws.receive_json()["seat"] == 2


# -- 7. timers --------------------------------------------------------------------------------------
def test_speech_time_defaults_per_ruleset_and_is_checked(c: Any) -> None:
    assert info(c, create(c, deck=NINE)["room"])["speech_time"] == 120
    assert info(c, create(c, ruleset="onuw", deck="onuw5")["room"])["speech_time"] is None
    assert info(c, create(c, deck=NINE, speech_time=45, timeout=300)["room"])["speech_time"] == 45
    assert info(c, create(c, deck=NINE, speech_time=0)["room"])["speech_time"] is None
    for bad, words in ((5, ["under 10 seconds"]), (3601, ["speech_time"]), ("60", ["speech_time"]),
                       (-1, ["speech_time"]), (True, ["speech_time"])):
        error(c.post("/api/rooms", json={"ruleset": "classic", "deck": NINE, "speech_time": bad}), 422, *words)
    error(c.post("/api/rooms", json={"ruleset": "onuw", "speech_time": 60}), 422, "no speaking turns",
          "discussion_seconds")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


# A wolf in seat 1 (a person), whose packmate is a bot: no witch, no guard, so nobody can kill seat 1 before
# its first speech (the pack needs both picks; seat 1 declines).
WOLF_FIRST = ("werewolf", "werewolf", "seer", "villager", "villager", "villager", "villager", "hunter", "villager")


async def _speech_room(store: Store, clock: Clock, room_id: str) -> tuple[Hub, Any]:
    """A started classic game of seat 1 (Ann, a person: WOLF_FIRST's wolf) and eight bots, each speech 60 s, on
    a hub of the test's clock whose timers the test runs by hand (``hub.sweep``)."""
    setup = Setup("classic", seats=WOLF_FIRST, seed=7, live_speech=True)
    rec = RoomRecord(id=room_id, created=clock.now, status="lobby", setup=setup.as_json(), mode="online",
                     lang="en", bots=list(range(2, 10)), host_hash="h" * 64, timeout=0, bot_kind="heuristic",
                     paced=0, speech_time=60, players=[PlayerRecord(1, "Ann", "a" * 64, clock.now)])
    await store.submit(Store.create_room(rec))
    hub = Hub(store, timeout=0, clock=clock, timers=False)
    await hub.start()
    room = await hub.room(room_id)
    await hub.start_game(room, False)
    return hub, room


def test_a_speech_is_ended_by_the_server_at_its_time_after_a_warning(tmp_path: Path) -> None:
    async def run() -> None:
        clock = Clock()
        store = Store(database_url(str(tmp_path / "speech.sqlite")))
        try:
            hub, room = await _speech_room(store, clock, "talk")
            speech = await _to_first_speech(hub, room, clock)
            public, own = room.view(None), room.view(1)
            deadline = clock.now + 60
            for v in (public, own, room.view(2)):  # public: the same for every seat and for spectators
                assert (v["speaker_deadline"], v["speech_warning"], v["speech_warned"]) == (deadline, 15, False)
            sub = Subscriber(None, False, None)
            room.subs.add(sub)
            await hub.push(room, sub)
            sub.dirty.clear()
            clock.now = deadline - 15.5
            await hub.sweep()
            assert not sub.dirty.is_set() and room.view(None)["speech_warned"] is False
            clock.now = deadline - 15  # the warning: every socket is told, the speech goes on
            await hub.sweep()
            assert sub.dirty.is_set() and room.view(None)["speech_warned"] is True
            assert any(d is speech for d in room.pending(1))
            spoken = len(room.game.answers)
            clock.now = deadline - 0.5
            await hub.sweep()
            assert any(d is speech for d in room.pending(1))
            clock.now = deadline  # time is up: the server ends the speech with its default
            await hub.sweep()
            assert not any(d is speech for d in room.pending(1))
            assert room.game.answers[spoken] == (1, "speak", None)
            assert room.view(None)["speaker_deadline"] != deadline
            stored_rec = (await store.submit(Store.load(["talk"])))[0]
            assert stored_rec.answers[spoken] == (1, "speak", None) and stored_rec.speech_time == 60
            await hub.stop()
        finally:
            store.close()

    asyncio.run(run())


async def _to_first_speech(hub: Hub, room: Any, clock: Clock) -> Any:
    """Seat 1 declines what it is asked until it has the floor; its speech."""
    for _ in range(200):
        mine = room.pending(1)
        if any(d.act == "speak" for d in mine):
            return next(d for d in mine if d.act == "speak")
        assert mine and not room.over(), "seat 1 is asked nothing before its speech"
        clock.now += 1
        await hub.decline(room, mine)
    raise AssertionError("seat 1 never had the floor")


def _time_lines(room: Any) -> list[list[dict[str, Any]]]:
    """Every seat's (and the spectators') timed-out speeches, as the speech events their views place them at."""
    out = []
    for seat in [None, *range(1, 10)]:
        v = room.view(seat)
        assert json.loads(room.view_json(seat, False, "en"))["timeouts"] == v["timeouts"]
        out.append([v["events"][i] for i in v["timeouts"]])
    return out


@pytest.mark.parametrize("ended_by", ["timer", "speaker"])
def test_a_timed_out_speech_is_in_every_log_and_stays_after_a_restart(tmp_path: Path, ended_by: str) -> None:
    async def run() -> None:
        clock = Clock()
        store = Store(database_url(str(tmp_path / "timeout.sqlite")))
        try:
            hub, room = await _speech_room(store, clock, "late")
            speech = await _to_first_speech(hub, room, clock)
            spoken = len(room.game.answers)
            assert _time_lines(room) == [[]] * 10  # the bots' speeches before it ended as theirs do: no line
            if ended_by == "timer":
                clock.now += 60
                await hub.sweep()
            else:  # the speaker says "done" (nothing typed) just in time: the same answer, but hers
                clock.now += 59.5
                await hub.act(room, 1, {"act": "speak", "text": None})
                await hub.sweep()
            assert not any(d is speech for d in room.pending(1))
            assert room.game.answers[spoken] == (1, "speak", None)  # the answer alone cannot tell the two apart
            lines = _time_lines(room)
            if ended_by == "timer":
                # after her speech's own line (a "done": no text), once
                assert lines[0] == [{"type": "speech", "phase": "day1", "seat": 1, "part": speech.part}]
                assert all(seen == lines[0] for seen in lines)  # public: the same line for everyone
            else:
                assert lines == [[]] * 10
            await hub.stop()
            hub = Hub(store, timeout=0, clock=clock, timers=False)  # a restart: the room from the store
            await hub.start()
            again = await hub.room("late")
            assert again is not room
            assert _time_lines(again) == lines
            await hub.stop()
        finally:
            store.close()

    asyncio.run(run())


# -- 8. play again --------------------------------------------------------------------------------
def finish(client: Any, rid: str, tokens: list[str], rng: random.Random) -> None:
    """The people answer (calmly: no self-destruct) until the game is over."""
    for _ in range(2000):
        views = [view(client, rid, t) for t in tokens]
        if views[0]["game_over"]:
            return
        for t, v in zip(tokens, views):
            if v["pending"]:
                moves = [m for m in v["pending"] if m["act"] not in ("explode", "duel")] or v["pending"]
                r = client.post(f"/api/rooms/{rid}/act", json=rng.choice(moves), headers=auth(t))
                assert r.status_code in (200, 409), r.text
    raise AssertionError("the game did not end")


def played(client: Any, **body: Any) -> tuple[str, str, list[dict[str, Any]]]:
    room = create(client, deck=NINE, bots=list(range(3, 10)), bot_kind="random", **body)
    players = [join(client, room["room"], n) for n in ("Ann", "Bob")]
    assert client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"])).status_code == 200
    finish(client, room["room"], [p["token"] for p in players], random.Random(2))
    return room["room"], room["host_token"], players


def test_play_again_same_players_same_seats_a_new_deal(c: Any, db: str) -> None:
    rid, host, players = played(c)
    old = c.app.state.hub.rooms[rid]
    error(c.post(f"/api/rooms/{rid}/again", headers=auth(players[0]["token"])), 403, "only the host")
    r = c.post(f"/api/rooms/{rid}/again", headers=auth(host))
    assert r.status_code == 201, r.text
    nxt = r.json()
    assert nxt["game"] == 2 and nxt["status"] == "playing" and nxt["url"].endswith("/r/" + nxt["room"])
    first, second = info(c, rid), info(c, nxt["room"])
    assert (first["next"], first["game"], first["series"]) == (nxt["room"], 1, rid)
    assert (second["prev"], second["game"], second["series"], second["next"]) == (rid, 2, rid, None)
    assert second["seats"] == first["seats"] and second["fixed_deal"] is False
    new = c.app.state.hub.rooms[nxt["room"]]
    assert new.setup.seed != old.setup.seed and new.setup.deck == old.setup.deck
    for p in players:  # the phones' tokens work in the new game, in the same seats
        assert view(c, nxt["room"], p["token"])["seat"] == p["seat"]
    assert view(c, nxt["room"], host)["host"] is True
    # Once only; the old game's log is unchanged and still replayable.
    error(c.post(f"/api/rooms/{rid}/again", headers=auth(host)), 409, "already made")
    assert c.get(f"/api/rooms/{rid}/replay").status_code == 200
    games = c.get(f"/api/rooms/{nxt['room']}/games").json()
    assert games == {"series": rid, "games": [
        {"room": rid, "game": 1, "status": "over", "replay": f"/replay/{rid}"},
        {"room": nxt["room"], "game": 2, "status": "playing", "replay": None}]}
    # A restarted server has the series as it was.
    with app_client(db) as c2:
        assert info(c2, rid)["next"] == nxt["room"] and info(c2, nxt["room"])["prev"] == rid
        assert c2.get(f"/api/rooms/{rid}/games").json() == games


def test_the_phones_of_the_finished_game_are_told_where_the_next_one_is(c: Any) -> None:
    rid, host, players = played(c)
    token = players[1]["token"]
    with c.websocket_connect(f"/api/rooms/{rid}/ws", subprotocols=["werewolf", "token." + token]) as ws:
        first = ws.receive_json()
        assert first["game_over"] and first["room"]["next"] is None
        nid = c.post(f"/api/rooms/{rid}/again", headers=auth(host)).json()["room"]
        told = ws.receive_json()
        assert told["room"]["next"] == nid and told["seat"] == players[1]["seat"]
    with c.websocket_connect(f"/api/rooms/{nid}/ws", subprotocols=["werewolf", "token." + token]) as ws:
        v = ws.receive_json()
        assert v["seat"] == players[1]["seat"] and v["room"]["prev"] == rid and v["phase"] != "lobby"


def test_play_again_is_refused_before_the_end_and_changes_nothing(c: Any, db: str) -> None:
    rid, host, _, _ = lobby(c)
    error(c.post(f"/api/rooms/{rid}/again", headers=auth(host)), 409, "not over")
    assert c.post(f"/api/rooms/{rid}/start", json={"fill_with_bots": True}, headers=auth(host)).status_code == 200
    error(c.post(f"/api/rooms/{rid}/again", headers=auth(host)), 409, "not over")
    error(c.post(f"/api/rooms/{rid}/again", json={"start": "yes"}, headers=auth(host)), 422, "start")
    assert info(c, rid)["next"] is None
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM rooms").fetchone() == (1,)


def test_a_fixed_deal_series_deals_its_next_games_from_secret_seeds(c: Any, db: str) -> None:
    # Issue 25, item 5: game 1's log shows its seed once it is over; the next games' seeds were derived
    # from it, so anyone could foresee every later deal. Two tables that played the very same fixed-deal
    # game (everything either was shown is the same) now get unrelated next deals, from secret seeds.
    import hashlib

    firsts, seeds = [], []
    for _ in range(2):
        rid, host, players = played(c, seed=3)
        assert c.get(f"/api/rooms/{rid}/log").json()["setup"]["seed"] == 3  # shown once the game is over
        r = c.post(f"/api/rooms/{rid}/again", json={"start": False}, headers=auth(host))
        assert r.status_code == 201 and r.json()["status"] == "lobby"
        firsts.append(c.get(f"/api/rooms/{rid}/log").json())
        seeds.append(c.app.state.hub.rooms[r.json()["room"]].setup.seed)
    nid = r.json()["room"]
    old = int.from_bytes(hashlib.sha256(b"werewolf-series:3:2").digest()[:8], "big") >> 1  # the old derivation
    assert firsts[0]["setup"] == firsts[1]["setup"] and old not in seeds and 3 not in seeds
    assert seeds[0] != seeds[1] and all(0 <= s < 2**63 for s in seeds)
    assert info(c, nid)["fixed_deal"] is False  # nobody knows this deal, the creator neither
    with app_client(db) as again:  # stored: a restart deals the same game
        assert again.get(f"/api/rooms/{nid}").status_code == 200
        assert again.app.state.hub.rooms[nid].setup.seed == seeds[1]


def test_a_lobby_of_a_series_may_be_reseated_before_its_start(c: Any) -> None:
    rid, host, players = played(c, seed=3)
    r = c.post(f"/api/rooms/{rid}/again", json={"start": False}, headers=auth(host))
    assert r.status_code == 201 and r.json()["status"] == "lobby"
    nid = r.json()["room"]
    assert seat(c, nid, players[0]["token"], to=2).status_code == 409  # Bob sits there
    assert seat(c, nid, host, seat=1, to=2).status_code == 200
    assert c.post(f"/api/rooms/{nid}/start", headers=auth(host)).status_code == 200
    assert view(c, nid, players[0]["token"])["seat"] == 2


def test_an_older_database_gets_the_series_columns_and_the_removed_table(tmp_path: Path) -> None:
    path = old_database(tmp_path, "classic")
    store = Store(database_url(str(path)))
    try:
        (rec,) = store.call(Store.load(["old"]))
        assert (rec.speech_time, rec.series_id, rec.game_no, rec.prev_id, rec.next_id) == (None, None, 1, None, None)
        assert rec.removed == {}
    finally:
        store.close()


# -- both databases -----------------------------------------------------------------------------------
OLD_ROOMS = ("CREATE TABLE rooms (id VARCHAR(32) PRIMARY KEY, created FLOAT NOT NULL, status VARCHAR(16) NOT NULL, "
             "setup TEXT NOT NULL, mode VARCHAR(16) NOT NULL, lang VARCHAR(16) NOT NULL, bots TEXT NOT NULL, "
             "host_hash VARCHAR(64) NOT NULL, timeout FLOAT)")


def backend_db(backend: str, tmp_path: Path, request: Any) -> str:
    if backend == "sqlite":
        return str(tmp_path / "both.sqlite")
    return str(request.getfixturevalue("postgres_db"))


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_seats_removals_and_series_are_stored_on_both_databases(backend: str, tmp_path: Path, request: Any) -> None:
    database = backend_db(backend, tmp_path, request)
    # A database of an older version: its rooms table lacks the new columns, and it has no "removed" table.
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url(database))
    with engine.begin() as conn:
        conn.execute(text(OLD_ROOMS))
        conn.execute(text("INSERT INTO rooms VALUES ('old', 1.0, 'over', '{\"ruleset\": \"classic\"}', 'online', "
                          "'en', '[]', 'h', NULL)"))
    engine.dispose()
    with app_client(database) as c1:
        rid, host, ann, bob = lobby(c1)
        assert seat(c1, rid, host, seat=1, to=2).status_code == 200  # Ann and Bob swap
        assert c1.post(f"/api/rooms/{rid}/remove", json={"seat": 9}, headers=auth(host)).status_code == 200
        assert c1.post(f"/api/rooms/{rid}/remove", json={"seat": 2}, headers=auth(host)).status_code == 200
        error(seat(c1, rid, host, seat=7, to=3), 409, "seat 7 is empty")
        done, dhost, players = played(c1, speech_time=30)
        nid = c1.post(f"/api/rooms/{done}/again", headers=auth(dhost)).json()["room"]
    with app_client(database) as c2:  # a restart: everything as it was
        assert [s for s in seating(c2, rid) if s[1] or s[2]] == [(1, "Bob", False)]
        error(c2.get(f"/api/rooms/{rid}/view", headers=auth(ann["token"])), 403, "removed Ann from seat 2")
        assert view(c2, rid, bob["token"])["seat"] == 1
        first, second = info(c2, done), info(c2, nid)
        assert (first["next"], second["prev"], second["series"], second["game"]) == (nid, done, done, 2)
        assert first["speech_time"] == second["speech_time"] == 30
        assert [g["room"] for g in c2.get(f"/api/rooms/{nid}/games").json()["games"]] == [done, nid]
        for p in players:
            assert view(c2, nid, p["token"])["seat"] == p["seat"]
        old = info(c2, "old")
        assert (old["game"], old["next"], old["speech_time"]) == (1, None, None)
