"""The rooms' lifecycle: finished games leave memory and come back from the database identical, idle
lobbies expire, a restart loads only the lobbies and games on. A fake clock stands for the hours."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from werewolf.web.hub import UNWATCHED

from .conftest import auth

HOUR = 3600.0
NINE = "classic9"


class Clock:
    """The wall clock, moved forward by hand."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@contextmanager
def app(db: str, clock: Clock, **kwargs: Any) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app

    # A tick of an hour never comes during a test: the test sweeps by hand (``sweep``).
    with TestClient(create_app(db, timeout=0, tick=HOUR, clock=clock, **kwargs)) as c:
        yield c


def hub(client: Any) -> Any:
    return client.app.state.hub


def sweep(client: Any) -> None:
    client.portal.call(hub(client).sweep)


def database(backend: str, tmp_path: Path, request: Any) -> str:
    if backend == "sqlite":
        return str(tmp_path / "life.sqlite")
    return str(request.getfixturevalue("postgres_db"))


def lobby(client: Any, **body: Any) -> tuple[str, str, dict[str, Any]]:
    r = client.post("/api/rooms", json={"ruleset": "classic", "deck": NINE, **body})
    assert r.status_code == 201, r.text
    rid, host = r.json()["room"], r.json()["host_token"]
    p = client.post(f"/api/rooms/{rid}/join", json={"name": "ann"}).json()
    return rid, host, p


def finished(client: Any) -> tuple[str, str]:
    """A game of one person (seat 1) and eight bots, played to its end; its room and the person's token."""
    r = client.post("/api/rooms", json={"ruleset": "classic", "deck": NINE, "seed": 5, "bots": list(range(2, 10))})
    rid, host = r.json()["room"], r.json()["host_token"]
    token = client.post(f"/api/rooms/{rid}/join", json={"name": "ann"}).json()["token"]
    assert client.post(f"/api/rooms/{rid}/start", headers=auth(host)).status_code == 200
    for _ in range(500):
        v = client.get(f"/api/rooms/{rid}/view", headers=auth(token)).json()
        if v["game_over"]:
            return rid, token
        if v["pending"]:
            move = next((m for m in v["pending"] if m["act"] not in ("explode", "duel")), v["pending"][0])
            assert client.post(f"/api/rooms/{rid}/act", json=move, headers=auth(token)).status_code == 200
    raise AssertionError("the game did not end")


def answers_of(client: Any, rid: str, token: str) -> dict[str, str]:
    """Every answer the server gives about a finished room, as text."""
    return {
        "info": client.get(f"/api/rooms/{rid}").text,
        "view": client.get(f"/api/rooms/{rid}/view", headers=auth(token)).text,
        "view zh": client.get(f"/api/rooms/{rid}/view?lang=zh-Hant", headers=auth(token)).text,
        "public": client.get(f"/api/rooms/{rid}/public?lang=en").text,
        "log": client.get(f"/api/rooms/{rid}/log").text,
        "log en": client.get(f"/api/rooms/{rid}/log?lang=en").text,
    }


def test_a_finished_game_leaves_memory_after_its_grace_and_comes_back_identical(tmp_path: Path) -> None:
    clock = Clock()
    with app(str(tmp_path / "f.sqlite"), clock, keep_finished=30 * 60) as c:
        rid, token = finished(c)
        before = answers_of(c, rid, token)
        assert '"game_over":{' in before["view"] and '"status":"over"' in before["info"]
        with c.websocket_connect(f"/api/rooms/{rid}/ws?token={token}") as ws:  # a phone shows the reveal
            assert ws.receive_text() == before["view"]
            clock.advance(29 * 60)
            sweep(c)
            assert rid in hub(c).rooms  # watched, within the grace: the phones see the final reveal
            clock.advance(2 * 60)
            sweep(c)
            assert rid not in hub(c).rooms
        assert answers_of(c, rid, token) == before  # replayed from the database on demand
        assert rid in hub(c).rooms
        with c.websocket_connect(f"/api/rooms/{rid}/ws?token={token}") as ws:
            assert ws.receive_text() == before["view"]
        # Unwatched, it leaves UNWATCHED seconds after its last request or its last socket's close; until
        # then it keeps only its game (not its bots or views) and answers exactly as before.
        clock.advance(UNWATCHED - 1)
        sweep(c)
        assert rid in hub(c).rooms and hub(c).rooms[rid]._agents is None and not hub(c).rooms[rid]._views
        assert answers_of(c, rid, token) == before
        clock.advance(UNWATCHED + 1)
        sweep(c)
        assert rid not in hub(c).rooms


def test_games_on_and_fresh_lobbies_stay_in_memory(tmp_path: Path) -> None:
    clock = Clock()
    with app(str(tmp_path / "s.sqlite"), clock) as c:
        rid, host, p = lobby(c)
        playing, host2, _ = lobby(c)
        assert c.post(f"/api/rooms/{playing}/start", headers=auth(host2),
                      json={"fill_with_bots": True}).status_code == 200
        clock.advance(23 * HOUR)
        c.post(f"/api/rooms/{rid}/join", json={"name": "bob"})  # a join: the lobby's day starts again
        clock.advance(23 * HOUR)
        sweep(c)
        assert {rid, playing} <= set(hub(c).rooms)
        clock.advance(100 * HOUR)  # a game on never expires
        sweep(c)
        assert playing in hub(c).rooms and rid not in hub(c).rooms


def test_an_idle_lobby_expires_and_its_link_says_so(tmp_path: Path) -> None:
    clock = Clock()
    with app(str(tmp_path / "l.sqlite"), clock, lobby_idle=24 * HOUR) as c:
        rid, host, p = lobby(c)
        c.get(f"/api/rooms/{rid}")  # looking at a lobby does not keep it alive: only joins do
        clock.advance(24 * HOUR + 1)
        with c.websocket_connect(f"/api/rooms/{rid}/ws?token={p['token']}") as ws:
            assert '"phase":"lobby"' in ws.receive_text()
            sweep(c)
            with pytest.raises(WebSocketDisconnect):  # the server closes the sockets of the expired lobby
                ws.receive_text()
        assert rid not in hub(c).rooms
        for r in (c.get(f"/api/rooms/{rid}"), c.post(f"/api/rooms/{rid}/join", json={"name": "late"}),
                  c.post(f"/api/rooms/{rid}/start", headers=auth(host), json={"fill_with_bots": True}),
                  c.get(f"/api/rooms/{rid}/view", headers=auth(p["token"])), c.get(f"/api/rooms/{rid}/public"),
                  c.get(f"/api/rooms/{rid}/qr.svg"), c.post(f"/api/rooms/{rid}/act", json={"act": "vote"},
                                                            headers=auth(p["token"]))):
            assert r.status_code == 410, r.text
            assert r.json()["error"] == (f"room {rid} has expired: its game was never started and nobody "
                                         "joined it for 24 hours. Create a new room.")
        with c.websocket_connect(f"/api/rooms/{rid}/ws?token={p['token']}") as ws:
            assert "has expired" in ws.receive_json()["error"]
        assert c.get("/api/rooms/nope").status_code == 404  # no room at all is still a 404


def test_lobby_hours_0_keeps_lobbies_for_ever(tmp_path: Path) -> None:
    clock = Clock()
    with app(str(tmp_path / "z.sqlite"), clock, lobby_idle=0) as c:
        rid, _, _ = lobby(c)
        clock.advance(1000 * HOUR)
        sweep(c)
        assert c.get(f"/api/rooms/{rid}").json()["status"] == "lobby"


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_restart_loads_only_live_lobbies_and_games_on(backend: str, tmp_path: Path, request: Any) -> None:
    db = database(backend, tmp_path, request)
    clock = Clock()
    with app(db, clock) as c:
        over, token = finished(c)
        before = answers_of(c, over, token)
        stale, stale_host, _ = lobby(c)
        clock.advance(20 * HOUR)
        fresh, _, fresh_player = lobby(c)
        playing, host, _ = lobby(c)
        assert c.post(f"/api/rooms/{playing}/start", headers=auth(host),
                      json={"fill_with_bots": True}).status_code == 200
        clock.advance(5 * HOUR)  # the server goes down with the stale lobby past its day, not yet swept
    with app(db, clock) as c:
        assert set(hub(c).rooms) == {fresh, playing}  # the stale lobby was closed at the start, not loaded
        assert c.get(f"/api/rooms/{stale}").status_code == 410
        assert c.post(f"/api/rooms/{stale}/start", headers=auth(stale_host),
                      json={"fill_with_bots": True}).status_code == 410
        assert c.get(f"/api/rooms/{fresh}/view", headers=auth(fresh_player["token"])).json()["phase"] == "lobby"
        assert answers_of(c, over, token) == before  # the finished game: on demand, as it was
        assert over in hub(c).rooms
        # The fresh lobby kept its age across the restart: it expires a day after its join, not the restart.
        clock.advance(19 * HOUR + 60)
        sweep(c)
        assert fresh not in hub(c).rooms and c.get(f"/api/rooms/{fresh}").status_code == 410


def test_serve_takes_the_lifecycle_in_minutes_and_hours(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    import werewolf.web
    from werewolf.cli import main

    help_text = CliRunner().invoke(main, ["serve", "--help"]).output
    assert "--keep-finished MINUTES" in help_text and "--lobby-hours HOURS" in help_text
    got: dict[str, Any] = {}
    monkeypatch.setattr(werewolf.web, "serve", lambda **kw: got.update(kw))
    assert CliRunner().invoke(main, ["serve", "--keep-finished", "5", "--lobby-hours", "0.5"]).exit_code == 0
    assert got["keep_finished"] == 300 and got["lobby_idle"] == 1800
    CliRunner().invoke(main, ["serve"])
    assert got["keep_finished"] == 30 * 60 and got["lobby_idle"] == 24 * HOUR
    assert CliRunner().invoke(main, ["serve", "--lobby-hours", "-1"]).exit_code == 2


def test_a_new_room_never_takes_the_id_of_a_room_that_left_memory(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import secrets

    import werewolf.web.homes

    ids = iter(["taken", "taken", "new"])
    real = secrets.token_urlsafe
    monkeypatch.setattr(werewolf.web.homes.secrets, "token_urlsafe",
                        lambda n: next(ids) if n == 6 else real(n))  # room ids: 6 bytes; tokens: 32
    clock = Clock()
    with app(str(tmp_path / "i.sqlite"), clock) as c:
        first, _, _ = lobby(c)
        clock.advance(25 * HOUR)
        sweep(c)
        assert first == "taken" and first not in hub(c).rooms
        assert lobby(c)[0] == "new"  # "taken" is still in the database: another id was drawn
        assert c.get(f"/api/rooms/{first}").status_code == 410
