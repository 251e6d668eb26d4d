"""Resource abuse (issue 25, item 7): a socket that asks for its full view in a loop, connections that
send half a request, lobbies without end, IPv6 addresses and one address for a whole table."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from werewolf.web import limits
from werewolf.web.limits import FullViews, Limits, address_key

from .conftest import auth, free_port
from .test_api import NINE, create, error, join
from .test_edge import app_client, retry_after, stored


# -- a loop of {"full": true} ----------------------------------------------------------------------
def test_asks_for_the_full_view_are_answered_once_per_interval_and_coalesced() -> None:
    now = [100.0]
    asks = FullViews(every=2.0, clock=lambda: now[0])
    assert asks.ask() == 0  # the first: at once
    asks.answered()
    assert asks.ask() == 2.0  # the next: once the interval is over
    for _ in range(50):  # and every ask meanwhile is that same one
        assert asks.ask() is None
    now[0] += 2.0
    asks.answered()
    assert asks.ask() == 2.0
    now[0] += 10.0
    asks.answered()
    assert asks.ask() == 0  # a quiet client gets its next one at once


def test_a_socket_that_asks_for_its_full_view_in_a_loop_gets_one(client: Any, monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    monkeypatch.setattr(limits, "FULL_EVERY", 3600.0)
    room = create(client, deck=NINE)["room"]
    with client.websocket_connect(f"/api/rooms/{room}/ws?spectator=true&delta=true") as ws:
        first = ws.receive_json()
        assert "base" not in first and first["v"] == 1
        for _ in range(20):
            ws.send_text('{"full": true}')
        again = ws.receive_json()  # the first ask is answered at once, with the whole view
        assert "base" not in again and again["v"] == 2
        join(client, room, "Ann")  # the next message is the change, not another full view: the 19 asks wait
        delta = ws.receive_json()
        assert delta["base"] == 2 and delta["v"] == 3, delta


def test_a_socket_that_floods_messages_is_closed(client: Any) -> None:
    from starlette.websockets import WebSocketDisconnect

    room = create(client, deck=NINE)["room"]
    with client.websocket_connect(f"/api/rooms/{room}/ws?spectator=true&delta=true") as ws:
        ws.receive_json()
        for _ in range(200):
            ws.send_text('{"full": true}')
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert closed.value.code == 4429 and "too many messages" in (closed.value.reason or "")
    assert client.get(f"/api/rooms/{room}/public").status_code == 200


def test_sockets_opened_are_rate_limited_per_address(tmp_path: Path) -> None:
    from starlette.websockets import WebSocketDisconnect

    with app_client(tmp_path, limits=Limits.off().__class__(create=None, join=None, auth=None, pack=None,
                                                            sockets="3/minute")) as c:
        room = create(c, deck=NINE)["room"]
        for _ in range(3):  # (each one opened costs the server a full view: a reconnect loop is a full-view loop)
            with c.websocket_connect(f"/api/rooms/{room}/ws?spectator=true") as ws:
                assert ws.receive_json()["room"]["id"] == room
        with c.websocket_connect(f"/api/rooms/{room}/ws?spectator=true") as ws:
            assert "too many sockets opened" in ws.receive_json()["error"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4429


def test_chatter_allows_a_burst_then_a_steady_trickle() -> None:
    from werewolf.web.limits import Chatter

    now = [0.0]
    c = Chatter(burst=5, per_second=2, clock=lambda: now[0])
    assert all(c.take() for _ in range(5)) and not c.take()
    now[0] += 0.5
    assert c.take() and not c.take()
    now[0] += 100
    assert sum(c.take() for _ in range(10)) == 5


# -- half a request --------------------------------------------------------------------------------
async def _hello(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            pass
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture(params=["httptools", "h11"])
def head_server(request: Any) -> Iterator[tuple[int, float]]:
    """uvicorn with the app's protocol (``request.param``), whose request heads must come within 1 s."""
    import uvicorn

    from werewolf.web.protocols import protocol

    bound = 1.0
    port = free_port()
    config = uvicorn.Config(_hello, host="127.0.0.1", port=port, log_level="warning", lifespan="off",
                            http=protocol(bound, h11_only=request.param == "h11"))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    if request.param == "httptools":
        assert "HttpTools" in config.http.__name__  # type: ignore[union-attr]
    yield port, bound
    server.should_exit = True
    thread.join(10)


def closed_within(sock: socket.socket, seconds: float) -> bytes:
    """Everything the server sends until it closes ``sock`` (polling; fails after ``seconds``)."""
    sock.settimeout(0.1)
    got = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            continue
        if not chunk:
            return got
        got += chunk
    raise AssertionError(f"still open after {seconds} s (got {got!r})")


@pytest.mark.parametrize("sent", [b"", b"GET /x HT", b"GET /x HTTP/1.1\r\nHost: a\r\n", b"POST /x HTTP/1.1\r\nHost"])
def test_a_connection_that_sends_half_a_request_is_closed(head_server: tuple[int, float], sent: bytes) -> None:
    port, bound = head_server
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(sent)
        answer = closed_within(sock, bound + 5)
    assert time.monotonic() - started >= bound * 0.9
    assert answer.startswith(b"HTTP/1.1 408") and b"did not come" in answer, answer


def test_a_kept_connection_s_next_half_request_is_closed_too(head_server: tuple[int, float]) -> None:
    port, bound = head_server
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /x HTTP/1.1\r\nHost: a\r\n\r\n")
        sock.settimeout(5)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /y HTTP/1.1\r\nHost: a\r\n")  # the next request, stopped half-way
        assert closed_within(sock, bound + 5).startswith(b"HTTP/1.1 408")


def test_a_slow_but_whole_head_is_served(head_server: tuple[int, float]) -> None:
    port, bound = head_server
    with socket.create_connection(("127.0.0.1", port)) as sock:
        for part in (b"GET /x HTTP/1.1\r\n", b"Host: a\r\n", b"\r\n"):  # in pieces, well within the bound
            sock.sendall(part)
        sock.settimeout(5)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")


def test_serve_takes_the_header_timeout(tmp_path: Path) -> None:
    from .conftest import Server

    server = Server(str(tmp_path / "serve.sqlite"), header_timeout=1.0).start()
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(b"GET /api/decks HTTP/1.1\r\nHost: a\r\n")
            assert closed_within(sock, 10).startswith(b"HTTP/1.1 408")
    finally:
        server.stop()


# -- lobbies ---------------------------------------------------------------------------------------
def test_lobbies_are_capped_with_a_clear_503(tmp_path: Path) -> None:
    with app_client(tmp_path, limits=Limits(create=None, join=None, auth=None, pack=None, lobbies=3)) as c:
        rooms = [create(c, deck=NINE, bots=list(range(2, 10))) for _ in range(3)]
        r = c.post("/api/rooms", json={"ruleset": "classic", "deck": NINE})
        error(r, 503, "open lobbies", "3", "try again")
        assert int(r.headers["Retry-After"]) > 0 and stored(tmp_path / "edge.sqlite")[0] == 3
        join(c, rooms[0]["room"], "Ann")
        assert c.post(f"/api/rooms/{rooms[0]['room']}/start", headers=auth(rooms[0]["host_token"])).status_code == 200
        create(c, deck=NINE)  # a lobby that started is not counted any more


def test_the_lobby_cap_parses() -> None:
    assert Limits.parse("lobbies=10").lobbies == 10 and Limits.parse("lobbies=off").lobbies is None
    assert Limits().lobbies == 5000 and Limits.off().lobbies is None
    with pytest.raises(ValueError, match="lobbies"):
        Limits.parse("lobbies=-1")


# -- whose address ---------------------------------------------------------------------------------
def test_an_ipv6_address_counts_as_its_64() -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:ffff:1:2:3") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:192.0.2.7") == "192.0.2.7" and address_key("192.0.2.7") == "192.0.2.7"
    assert address_key("testclient") == "testclient"


def test_rates_count_an_ipv6_network_as_one_client(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app

    app = create_app(str(tmp_path / "six.sqlite"), timeout=0, limits=Limits(create="2/minute", join=None, auth=None))
    with TestClient(app, client=("2001:db8:0:1::1", 5000)) as a:
        create(a)
    with TestClient(app, client=("2001:db8:0:1:ffff::9", 5000)) as b:  # the same /64: the same count
        create(b)
        assert retry_after(b.post("/api/rooms", json={"ruleset": "classic"})) > 0
    with TestClient(app, client=("2001:db8:0:2::1", 5000)) as c:  # another /64
        create(c)
