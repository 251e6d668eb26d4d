"""uvicorn's own answer to a request it cannot even parse (a control character in a header, a broken
request line) is a plain-text 400; these protocols send it as JSON, with the security headers, like
every other error of the app. ``serve`` runs uvicorn with ``http=protocol()``.

They also bound the time a request's head may take (``HeadDeadline``): uvicorn closes a connection
idle after a response (its keep-alive timeout), but one that sends half a request line or half its
headers, or nothing at all, it keeps for ever (thousands of them hold the server's sockets and
memory). A connection whose request head is not all there ``header_timeout`` seconds after it opened,
or after the first byte of a next request, is answered 408 and closed. A request whose head has come
is the app's (a long body is bounded by the body limit; a socket by its pings).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from werewolf.web.headers import APP_CSP, COMMON

HEADER_TIMEOUT = 10.0  # seconds a request's line and headers may take to come (a phone sends them at once)


def _error(msg: str, status: int = 400) -> tuple[list[tuple[bytes, bytes]], bytes]:
    body = json.dumps({"error": f"malformed request: {msg[:200]}" if status == 400 else msg}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close"), *COMMON, (b"content-security-policy", APP_CSP.encode())]
    return headers, body


class HeadDeadline:
    """The deadline of a request's head, for either protocol (see the module's docstring)."""

    header_timeout = HEADER_TIMEOUT
    _head_timer: asyncio.TimerHandle | None = None
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    cycle: Any

    def _idle(self) -> bool:
        """No request is being read or served (its head has not all come, or none has begun)."""
        return (self.cycle is None or self.cycle.response_complete) and not getattr(self, "pipeline", None)

    def _arm(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.header_timeout, self._late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _late(self) -> None:
        self._head_timer = None
        if self._head_done() or not self._idle() or self.transport.is_closing():
            return
        headers, body = _error(f"the request's head did not come within {self.header_timeout:g} s", 408)
        head = b"HTTP/1.1 408 Request Timeout\r\n" + b"".join(k + b": " + v + b"\r\n" for k, v in headers)
        self.transport.write(head + b"\r\n" + body)
        self.transport.close()

    def _head_done(self) -> bool:
        return False

    # The protocol's own hooks (HeadDeadline comes first in each class's bases): the clock starts when the
    # connection opens, and again at the first byte of a next request; it stops when the connection is gone.
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._idle():
            self._arm()
        super().data_received(data)  # type: ignore[misc]

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)  # type: ignore[misc]


class JsonErrorsH11(HeadDeadline, H11Protocol):
    def handle_events(self) -> None:
        super().handle_events()
        if self._head_done():
            self._disarm()

    def _head_done(self) -> bool:
        # h11 is IDLE on the client's side until a request's line and headers have all come.
        return self.conn.their_state is not h11.IDLE

    def send_400_response(self, msg: str) -> None:
        headers, body = _error(msg)
        self.transport.write(self.conn.send(h11.Response(status_code=400, headers=headers, reason=b"Bad Request")))
        self.transport.write(self.conn.send(h11.Data(data=body)))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
        self.transport.close()


def protocol(header_timeout: float = HEADER_TIMEOUT, *, h11_only: bool = False) -> type:
    """The HTTP protocol class for uvicorn: httptools' when installed (uvicorn's own choice), else h11's;
    a request's head must come within ``header_timeout`` seconds."""
    deadline = float(header_timeout)
    try:
        if h11_only:
            raise ImportError("h11 asked for")
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return type("JsonErrorsH11", (JsonErrorsH11,), {"header_timeout": deadline})

    class JsonErrorsHttpTools(HeadDeadline, HttpToolsProtocol):
        header_timeout = deadline

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def send_400_response(self, msg: str) -> None:
            headers, body = _error(msg)
            head = b"HTTP/1.1 400 Bad Request\r\n" + b"".join(k + b": " + v + b"\r\n" for k, v in headers)
            self.transport.write(head + b"\r\n" + body)
            self.transport.close()

    return JsonErrorsHttpTools


def ws_protocol() -> type | str:
    """The WebSocket protocol class for uvicorn: its own choice (the ``websockets`` library's sans-I/O
    protocol), one whose connection, once lost, leaves no cycle behind. That protocol parses frames with a
    generator whose frame holds the protocol itself, and uvicorn never ends it: every socket that ever
    closed stayed as a cycle (the protocol, its reader, buffers and parser) until a full collection, which
    ``werewolf.web.runtime`` makes rare (a full collection of a busy server takes a large fraction of a
    second), so a busy server's closed sockets piled up between two. Closing the generator when the
    connection is lost breaks the cycle: reference counts free it at once."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    except ImportError:  # an older uvicorn, or no websockets library: uvicorn's own choice
        return "auto"

    class FreedOnClose(WebSocketsSansIOProtocol):
        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            parser = getattr(getattr(self, "conn", None), "parser", None)
            if parser is not None and hasattr(parser, "close"):
                parser.close()

    return FreedOnClose
