"""The replay of a finished game: its JSON (/api/rooms/{id}/replay), its page, and `werewolf replay FILE`.

Nothing before the game is over; the view of a seat holds exactly the events that seat was shown.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from werewolf.i18n import narrate
from werewolf.i18n.rules import rule_catalogue

from .conftest import ROOT, auth
from .test_api import NINE, create, error, join, play_out


def finished_room(client: Any, seed: int = 11) -> tuple[str, dict[str, Any]]:
    room = create(client, deck=NINE, bots=list(range(1, 10)), seed=seed)
    client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"]))
    log = client.get(f"/api/rooms/{room['room']}/log").json()
    assert any(e["type"] == "game_over" for e in log["events"])
    return room["room"], log


def replay(client: Any, rid: str, **params: Any) -> dict[str, Any]:
    r = client.get(f"/api/rooms/{rid}/replay", params=params)
    assert r.status_code == 200, r.text
    return dict(r.json())


def seen_by(event: dict[str, Any], seat: int) -> bool:
    return "to" not in event or seat in event["to"]


def test_nothing_before_the_game_is_over(client: Any) -> None:
    error(client.get("/api/rooms/nope/replay"), 404, "nope")
    room = create(client, deck=NINE, bots=[2, 3, 4, 5, 6, 7, 8, 9], seed=4)
    p = join(client, room["room"], "Ann")
    error(client.get(f"/api/rooms/{room['room']}/replay"), 409, "over")  # the lobby
    client.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"]))
    for view in (None, "public", "1", "2"):  # playing: no view at all, not even a seat's own
        params = {"view": view} if view else {}
        error(client.get(f"/api/rooms/{room['room']}/replay", params=params), 409, "over")
    play_out(client, room["room"], [p])
    assert replay(client, room["room"])["over"] is True


def test_a_seat_sees_exactly_what_it_was_shown(client: Any) -> None:
    rid, log = finished_room(client)
    events = log["events"]
    for seat in range(1, 10):
        got = replay(client, rid, view=str(seat))
        assert got["viewer"] == {"kind": "seat", "seat": seat, "name": f"As seat {seat} saw it"}
        indices = [s["i"] for s in got["steps"]]
        assert indices == sorted(indices)
        # Only events this seat was shown ...
        assert all(seen_by(events[i], seat) for i in indices)
        # ... and every one of them that the phones would show it.
        wanted = [i for i, e in enumerate(events) if seen_by(e, seat)
                  and narrate({k: v for k, v in e.items() if k != "to"}, "en", seat) is not None]
        assert set(wanted) <= set(indices)
        for s in got["steps"]:  # narrated for this seat, with who else saw it
            e = events[s["i"]]
            assert s["text"] == (narrate({k: v for k, v in e.items() if k != "to"}, "en", seat) or "")
            assert s["seen_by"]["kind"] == ("public" if "to" not in e else "seats")
        # The seat table knows this seat's own card from the start, and no other hidden card
        # before the end (the plain werewolves know each other: the pack's own event says so).
        first = next(s["table"] for s in got["steps"] if "table" in s)
        own = next(e["role"] for e in events if e["type"] == "role" and e["seat"] == seat)
        assert next(r for r in first if r["seat"] == seat)["role"] == own
        disclosed = {seat}
        for s in got["steps"]:
            e = events[s["i"]]
            if e["type"] == "roles":
                break
            if e["type"] in ("reveal", "shoot", "explode"):
                disclosed.add(e["seat"])
            if e["type"] == "pack":  # the pack sees its plain werewolves
                disclosed |= set(e["seats"]) - set(e["special"])
            for row in s.get("table", []):
                assert row["role"] is None or row["seat"] in disclosed, (seat, row)
        # The rulings it may read are those of events it saw, and nothing it did not see.
        assert not any(s.get("rule", {}).get("rule") in ("guard_protects", "antidote_saves")
                       for s in got["steps"])


def test_the_moderators_view_has_everything_and_the_public_view_only_the_table(client: Any) -> None:
    rid, log = finished_room(client, seed=5)
    events = log["events"]
    everything = replay(client, rid, view="all", lang="zh-Hant")
    public = replay(client, rid, view="public")
    assert {s["i"] for s in public["steps"]} <= {i for i, e in enumerate(events) if "to" not in e}
    secret = [s for s in everything["steps"] if s["seen_by"]["kind"] != "public"]
    assert secret and any(s["seen_by"]["kind"] == "moderator" for s in secret)
    # Every ruling with its rule, source and the book's sentence, in the page's language.
    ruled = [s for s in everything["steps"] if "rule" in s]
    assert ruled
    for s in ruled:
        entry = rule_catalogue()[s["rule"]["rule"]]
        assert s["rule"]["text"] == entry["text"]["zh-Hant"] and s["rule"]["quote"] == entry["quote"]
    assert everything["labels"]["title"] == "對局回放"
    # The seat table of the last step shows every role; the phases run night and day.
    last = next(s["table"] for s in reversed(everything["steps"]) if "table" in s)
    assert all(r["role"] for r in last)
    phases = [p["phase"] for p in everything["phases"]]
    assert phases[:3] == ["setup", "night1", "day1"] and len(set(phases)) == len(phases)  # each night and day once


def test_bad_views_are_refused(client: Any) -> None:
    rid, _ = finished_room(client)
    for view, status in (("0", 422), ("10", 422), ("god", 422), ("x" * 9, 422)):
        error(client.get(f"/api/rooms/{rid}/replay", params={"view": view}), status)


def test_the_page_is_served(client: Any) -> None:
    rid, _ = finished_room(client)
    r = client.get(f"/replay/{rid}")
    assert r.status_code == 200 and "/static/replay.js" in r.text
    assert client.get("/static/replay.js").status_code == 200
    assert client.get("/static/replay.css").status_code == 200


def test_werewolf_replay_serves_a_file_on_disk() -> None:
    script = ROOT / "tests" / "scripts" / "classic" / "guard_and_antidote_same_victim_dies.json"
    proc = subprocess.Popen([sys.executable, "-m", "werewolf.cli", "replay", str(script)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/replay/local"), url
        base = url.rsplit("/replay/", 1)[0]
        page = None
        for _ in range(100):
            try:
                page = httpx.get(url, timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        assert page is not None and page.status_code == 200 and "replay.js" in page.text
        data = httpx.get(base + "/api/rooms/local/replay", params={"view": "all"}, timeout=10).json()
        assert any(s.get("rule", {}).get("rule") == "same_guard_save_dies" for s in data["steps"])
        seat9 = httpx.get(base + "/api/rooms/local/replay", params={"view": "9"}, timeout=10).json()
        assert not any(s.get("rule", {}).get("rule") == "same_guard_save_dies" for s in seat9["steps"])
        assert httpx.get(base + "/api/rooms/other/replay", timeout=10).status_code == 404
        # The page's home link (🐺, "/") leads back to the game, not to a 404.
        home = httpx.get(base + "/", timeout=10, follow_redirects=True)
        assert home.status_code == 200 and "replay.js" in home.text
    finally:
        proc.terminate()
        proc.wait(10)


def test_werewolf_replay_refuses_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("{}", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "werewolf.cli", "replay", str(bad)], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "holds no game" in r.stderr and "Traceback" not in r.stderr


def test_a_speech_the_timer_ended_is_called_in_the_replay_for_every_viewer() -> None:
    """The web room's record of the speeches its timer ended (``rooms.timed_out``) reaches its replay: after
    that speech, every viewer's replay reads "Time! Seat N's speaking time ran out." (the table heard it), and
    no other speech gets the line."""
    import random

    from werewolf.core import Game, Setup
    from werewolf.replay import Record, replay

    rng = random.Random(3)
    game = Game(Setup("classic", deck="classic9", seed=3, live_speech=True))
    while not game.over:
        d = game.pending()[0]
        game.answer_value(d, d.random_value(rng))
    events = [e.as_json() for e in game.events]
    speeches = [i for i, e in enumerate(events) if e["type"] == "speech" and e.get("to") is None]
    assert len(speeches) >= 2
    ended = speeches[1]
    seat = events[ended]["seat"]
    record = Record(events, setup=game.setup.as_json(), timeouts=[ended])
    for viewer in ("all", "public", 1, seat):
        steps = replay(record, viewer, "en")["steps"]
        called = [n for n, s in enumerate(steps) if s["type"] == "speech_timeout"]
        assert len(called) == 1, viewer
        assert steps[called[0] - 1]["i"] == ended and steps[called[0]]["i"] == ended
        assert steps[called[0]]["text"] == f"Time! Seat {seat}'s speaking time ran out."
        assert steps[called[0]]["seen_by"]["kind"] == "public"
    assert "时间到" in next(s["text"] for s in replay(record, "public", "zh-Hans")["steps"]
                           if s["type"] == "speech_timeout")
    assert not any(s["type"] == "speech_timeout" for s in replay(Record(events), "all", "en")["steps"])
