"""The one-night discussion in a room, and the bots: the server's clock, "ready to vote", heuristic bots."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from werewolf.i18n import t
from werewolf.web.store import Store, database_url

from .conftest import auth
from .test_api import NINE, create, error, join, play_out, view


@pytest.fixture
def fast(tmp_path: Path) -> Iterator[Any]:
    """An app whose clock ticks every 50 ms, with no per-decision timeout."""
    from fastapi.testclient import TestClient

    from werewolf.web import create_app

    with TestClient(create_app(str(tmp_path / "talk.sqlite"), timeout=0, tick=0.05)) as c:
        yield c


def talk_room(client: Any, humans: int = 2, **body: Any) -> tuple[str, str, list[dict[str, Any]]]:
    """A five-seat onuw room with ``humans`` people in seats 1.. and bots elsewhere, brought to the discussion."""
    room = create(client, ruleset="onuw", deck="onuw5", seed=21, bots=list(range(humans + 1, 6)), **body)
    rid = room["room"]
    players = [join(client, rid, f"P{i}") for i in range(1, humans + 1)]
    assert client.post(f"/api/rooms/{rid}/start", headers=auth(room["host_token"])).status_code == 200
    for _ in range(20):  # the night: each person takes the first legal answer
        vs = [view(client, rid, p["token"]) for p in players]
        if any(v["discussion"] for v in vs):
            return rid, room["host_token"], players
        for p, v in zip(players, vs):
            if v["pending"]:
                assert client.post(f"/api/rooms/{rid}/act", json=v["pending"][0],
                                   headers=auth(p["token"])).status_code == 200
    raise AssertionError("the discussion never came")


def speeches(client: Any, rid: str) -> list[dict[str, Any]]:
    return [e for e in client.get(f"/api/rooms/{rid}/public").json()["events"] if e["type"] == "speech"]


def test_the_server_ends_the_discussion_when_its_time_is_up(fast: Any) -> None:
    rid, host, players = talk_room(fast, options={"discussion_seconds": 1})
    a, b = players
    v = view(fast, rid, a["token"], lang="en")
    talk = v["discussion"]
    assert talk["seconds"] == 1 and talk["ends"] <= time.time() + 1 and talk["ready"] == []
    assert v["text"]["discussion"]["ready_button"] == "Ready to vote"
    assert v["text"]["discussion"]["clock"] == t("event.discussion", "en", seconds=1)
    assert [m["act"] for m in v["pending"]] == ["speak"] and v["text"]["speaking"] == []
    assert view(fast, rid, host)["discussion"] == talk  # every phone, the moderator's too
    # The bots said their piece at once; a person's statement joins the log as it is sent.
    r = fast.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": "I am the seer"}, headers=auth(a["token"]))
    assert r.status_code == 200
    assert fast.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": "me too"},
                     headers=auth(b["token"])).status_code == 200
    said = speeches(fast, rid)
    assert {"seat": 1, "part": "discussion", "text": "I am the seer"} in [
        {k: e[k] for k in ("seat", "part", "text")} for e in said]
    assert any(e["seat"] > 2 and e.get("text") for e in said), said  # the heuristic bots talk
    # Nobody answers again: the server declines the open turns once the second is over, and the vote follows.
    deadline = time.time() + 15
    while view(fast, rid, a["token"])["discussion"] is not None and time.time() < deadline:
        time.sleep(0.05)
    assert time.time() >= talk["ends"]
    v = view(fast, rid, a["token"])
    assert v["discussion"] is None and [m["act"] for m in v["pending"]] == ["vote"] * len(v["pending"])
    error(fast.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": "late"}, headers=auth(a["token"])),
          422, "not asked for this now")
    play_out(fast, rid, players)
    answers = fast.get(f"/api/rooms/{rid}/log").json()["answers"]
    assert [v for s, act, v in answers if s == 1 and act == "speak"] == ["I am the seer", None]


def test_an_unlimited_discussion_ends_when_everyone_is_ready(client: Any) -> None:
    rid, host, players = talk_room(client, options={"discussion_seconds": None})
    a, b = players
    v = view(client, rid, a["token"], lang="zh-Hant")
    assert v["discussion"]["seconds"] is None and v["discussion"]["ends"] is None
    assert v["text"]["discussion"]["ready_button"] == "準備投票"
    client.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": None}, headers=auth(a["token"]))
    v = view(client, rid, b["token"], lang="en")
    assert v["discussion"]["ready"] == [1] and v["text"]["discussion"]["ready"] == "Ready to vote: Seat 1"
    assert view(client, rid, a["token"])["pending"] is None  # ready: no more turns
    for text in ("one", "two"):
        assert client.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": text},
                           headers=auth(b["token"])).status_code == 200
    v = view(client, rid, b["token"])
    # Seat 2 spoke twice in a row (nobody is waited for); the bots, who had their say, listen while a
    # person still talks (to answer an accusation), and are ready once the people are.
    assert v["discussion"]["ready"] == [1] and [m["act"] for m in v["pending"]] == ["speak"]
    client.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": None}, headers=auth(b["token"]))
    v = view(client, rid, a["token"])
    assert v["discussion"] is None and v["pending"][0]["act"] == "vote"
    assert [e["text"] for e in speeches(client, rid) if e["seat"] == 2] == ["one", "two"]


def test_the_clock_and_the_bot_kind_survive_a_restart(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app

    db = str(tmp_path / "again.sqlite")
    with TestClient(create_app(db, timeout=0)) as c:
        rid, host, players = talk_room(c)
        before = view(c, rid, players[0]["token"])["discussion"]
        random_room = create(c, ruleset="onuw", deck="onuw5", bot_kind="random")["room"]
        assert c.get(f"/api/rooms/{rid}").json()["bot_kind"] == "heuristic"
    assert before["seconds"] == 300 and before["ends"] > time.time()
    with TestClient(create_app(db, timeout=0)) as c:
        assert view(c, rid, players[0]["token"])["discussion"] == before
        assert c.get(f"/api/rooms/{rid}").json()["bot_kind"] == "heuristic"
        assert c.get(f"/api/rooms/{random_room}").json()["bot_kind"] == "random"
        # The bots, who said their piece before the restart, do not say it again after it.
        for p in players:
            c.post(f"/api/rooms/{rid}/act", json={"act": "speak", "text": None}, headers=auth(p["token"]))
        assert view(c, rid, players[0]["token"])["pending"][0]["act"] == "vote"
        said = [(e["seat"], e["text"]) for e in speeches(c, rid)]
        assert {s for s, _ in said} == {3, 4, 5} and len(set(said)) == len(said)


def test_bot_kind_must_be_known(client: Any) -> None:
    error(client.post("/api/rooms", json={"ruleset": "onuw", "bot_kind": "robot"}), 422, "bot_kind")


def test_heuristic_bots_talk_in_a_day_and_night_room(client: Any) -> None:
    room = create(client, deck=NINE, bots=list(range(2, 10)), seed=6)
    p = join(client, room["room"], "Ann")
    client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"]))
    play_out(client, room["room"], [p])
    said = [e for e in speeches(client, room["room"]) if e["seat"] != 1]
    assert said and any(e.get("text") for e in said)
    narrated = client.get(f"/api/rooms/{room['room']}/public?lang=en").json()["text"]["events"]
    assert any(s and s.startswith("Seat ") and "“" in s for s in narrated)


def old_database(tmp_path: Path, ruleset: str) -> Path:
    """A database of the first version (its rooms table as it was) with one lobby, ``old``, of ``ruleset``."""
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE rooms (id VARCHAR(32) PRIMARY KEY, created FLOAT NOT NULL, status VARCHAR(16) "
                     "NOT NULL, setup TEXT NOT NULL, mode VARCHAR(16) NOT NULL, lang VARCHAR(16) NOT NULL, "
                     "bots TEXT NOT NULL, host_hash VARCHAR(64) NOT NULL, timeout FLOAT)")
        conn.execute("INSERT INTO rooms VALUES ('old', 1.0, 'lobby', ?, 'online', 'en', '[]', 'h', NULL)",
                     (f'{{"ruleset": "{ruleset}"}}',))
    return path


def test_a_database_of_an_older_version_gets_the_new_columns(tmp_path: Path) -> None:
    path = old_database(tmp_path, "onuw")
    store = Store(database_url(str(path)))
    try:
        (rec,) = store.call(Store.load(["old"]))
        assert rec.bot_kind is None and rec.talk_ends is None  # a room of before: random bots
    finally:
        store.close()
    from werewolf.web.room import Room

    assert Room(rec, 0).bot_kind == "random"


def test_the_create_page_offers_bot_kinds_and_discussion_lengths(client: Any) -> None:
    decks = client.get("/api/decks?lang=zh-Hant").json()
    assert [k["id"] for k in decks["bot_kinds"]] == ["heuristic", "random"]
    assert decks["labels"]["discussion"] == t("ui.talk_length", "zh-Hant")
    lengths = {r["id"]: r["discussion"] for r in decks["rulesets"]}
    assert lengths["classic"] is None
    assert [(x["seconds"], x["name"]) for x in lengths["onenight"]] == [(300, "5分鐘"), (60, "1分鐘"),
                                                                        (None, "不限時")]


def test_a_discussion_whose_time_ran_out_while_the_server_was_down_ends_at_the_restart(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app

    db = tmp_path / "down.sqlite"
    with TestClient(create_app(str(db), timeout=0)) as c:
        rid, host, players = talk_room(c)
    with sqlite3.connect(db) as conn:  # the server stayed down past the end of the discussion
        conn.execute("UPDATE rooms SET talk_ends = ? WHERE id = ?", (time.time() - 1, rid))
    with TestClient(create_app(str(db), timeout=0)) as c:
        v = view(c, rid, players[0]["token"])
        assert v["discussion"] is None and v["pending"][0]["act"] == "vote"
