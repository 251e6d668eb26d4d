"""Limits on what one client may ask: the size of a request body, and how often it may
create rooms, join them, or present a token that is not good.

Rates are counted per client address (the peer of the connection, as uvicorn gives it:
behind a proxy, run uvicorn with its proxy headers) in moving windows by the ``limits``
library; an IPv6 address counts as its /64 (one subscriber's network: a phone changes its
address inside it at will), an IPv4-mapped one as its IPv4 address. A request over a rate is
answered 429 with ``Retry-After`` (seconds); a body over the size limit 413. Both answers are
``{"error": ...}`` like every other.

Bad tokens are counted per room and address (``auth_key``), and only bad tokens are refused
once over the rate: a whole table plays behind one address (a café's NAT), and one phone with a
stale token must not lock the others out; a good token is never refused for the bad ones.

``lobbies`` caps the lobbies one server holds (each costs memory for as long as it waits, a
day by default): a room created over the cap is answered 503 with ``Retry-After``.
"""

from __future__ import annotations

import ipaddress
import json
import math
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, replace
from typing import Any

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from werewolf.web.errors import ApiError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

RATES = ("create", "join", "auth", "pack", "sockets")
WHAT = {"create": "rooms created", "join": "joins", "auth": "requests with a bad token",
        "pack": "picks, pack lines and interrupt buttons", "sockets": "sockets opened"}


@dataclass(frozen=True)
class Limits:
    """The server's limits; a rate is the ``limits`` notation (``"20/minute"``), ``None`` for none."""

    body_bytes: int = 64 * 1024
    create: str | None = "20/minute"  # rooms created by one client
    join: str | None = "60/minute"  # joins (successful or not) by one client
    auth: str | None = "30/minute"  # requests by one client whose token was missing or not good
    pack: str | None = "300/minute"  # picks, pack chat lines and interrupt buttons (one table: one address)
    sockets: str | None = "120/minute"  # WebSockets opened (a table behind one address reconnecting at once)
    lobbies: int | None = 5000  # lobbies held at once by one server (about 22 KiB each): over it, 503

    @classmethod
    def off(cls, body_bytes: int = 64 * 1024) -> Limits:
        """No rate limits (the body limit stays)."""
        return cls(body_bytes=body_bytes, create=None, join=None, auth=None, pack=None, sockets=None, lobbies=None)

    @classmethod
    def parse(cls, text: str) -> Limits:
        """``off``, or ``name=rate`` pairs separated by commas, e.g. ``create=5/minute,auth=off,body=32768``."""
        text = text.strip()
        if text == "off":
            return cls.off()
        out = cls()
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, value = part.partition("=")
            name, value = name.strip(), value.strip()
            if name == "body":
                if not value.isdigit() or int(value) < 1:
                    raise ValueError(f"body must be a number of bytes, not {value!r}")
                out = replace(out, body_bytes=int(value))
            elif name == "lobbies":
                if value not in ("off", "none") and (not value.isdigit() or int(value) < 1):
                    raise ValueError(f"lobbies must be a number of lobbies or off, not {value!r}")
                out = replace(out, lobbies=None if value in ("off", "none") else int(value))
            elif name in RATES:
                rate = None if value in ("off", "none", "") else value
                if rate is not None:
                    parse(rate)  # raises ValueError on a malformed rate
                rates: dict[str, Any] = {name: rate}
                out = replace(out, **rates)
            else:
                raise ValueError(f"unknown limit {name!r} (known: body, lobbies, {', '.join(RATES)})")
        return out


class TooMany(ApiError):
    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(429, message)
        self.retry_after = retry_after


class RateLimits:
    """The counters of one server (in memory: one process)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.items: dict[str, RateLimitItem] = {}
        for name in RATES:
            rate = getattr(limits, name)
            if rate is not None:
                self.items[name] = parse(rate)
        self.limiter = MovingWindowRateLimiter(MemoryStorage())

    def _refuse(self, name: str, item: RateLimitItem, client: str) -> TooMany:
        reset, _ = self.limiter.get_window_stats(item, name, client)
        wait = max(1, math.ceil(reset - time.time()))
        return TooMany(f"too many {WHAT[name]} from your address (at most {item}): try again in {wait} s", wait)

    def hit(self, name: str, client: str) -> None:
        """Count one request of kind ``name``; 429 if the client is over its rate."""
        item = self.items.get(name)
        if item is not None and not self.limiter.hit(item, name, client):
            raise self._refuse(name, item, client)

    def check(self, name: str, client: str) -> None:
        """429 if the client is already over its rate of ``name`` (nothing counted)."""
        item = self.items.get(name)
        if item is not None and not self.limiter.test(item, name, client):
            raise self._refuse(name, item, client)


FULL_EVERY = 2.0  # seconds: a socket that asks for its full view again gets it at most this often


class FullViews:
    """When a socket's asks for its whole view again (``{"full": true}``) are answered: the first at once,
    then at most one every ``every`` seconds; the asks that come meanwhile are one (a client that lost
    track needs one full view, and a loop of asks must not make the server send megabytes)."""

    def __init__(self, every: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.every = FULL_EVERY if every is None else every
        self.clock = clock
        self.next = -math.inf  # when the next ask may be answered
        self.waiting = False  # an ask is waiting for its turn: the next ones are the same

    def ask(self) -> float | None:
        """Seconds until this ask is answered (0: now), or None if it is one with an ask already waiting;
        the caller calls ``answered`` when it answers."""
        if self.waiting:
            return None
        now = self.clock()
        wait = max(0.0, self.next - now)
        self.next = now + wait + self.every
        self.waiting = True
        return wait

    def answered(self) -> None:
        self.waiting = False


class Chatter:
    """How many messages a socket may send: a phone sends one now and then (``{"full": true}`` when it lost
    track; pings are the protocol's, not messages), so ``burst`` at once and ``per_second`` after that,
    and a socket over it is closed (reading a flood costs the server as much as the other rooms' pushes)."""

    def __init__(self, burst: float = 30.0, per_second: float = 3.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst, self.rate, self.clock = burst, per_second, clock
        self.tokens, self.at = burst, clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def client_of(scope: Scope) -> str:
    """The address a client's requests are counted under: its IP address, an IPv6 one's /64."""
    client = scope.get("client")
    return address_key(str(client[0])) if client else "unknown"


def address_key(host: str) -> str:
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:  # not an address (a Unix socket's peer, a test client's name): as it is
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def auth_key(room_id: str, client: str) -> str:
    """Where a client's bad tokens for one room are counted."""
    return f"{room_id} {client}"


def lobby_cap(limits: Limits, lobbies: int) -> None:
    """503 if the server already holds as many lobbies as ``limits`` allows."""
    if limits.lobbies is not None and lobbies >= limits.lobbies:
        raise Busy(f"this server holds as many open lobbies as it may ({limits.lobbies}): no room can be created "
                   f"now; try again in a few minutes, once some have started or expired", 300)


class Busy(ApiError):
    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(503, message)
        self.retry_after = retry_after


async def send_json(send: Send, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]]) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
        (b"connection", b"close"), *headers]})
    await send({"type": "http.response.body", "body": data})


class BodyLimit:
    """413 for a request body over ``limit`` bytes, before anything parses it.

    The body is read here (it is small, or refused) and handed on whole.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = {"error": f"the request body is too large: at most {self.limit} bytes"}
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await send_json(send, 413, too_big, [])
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await send_json(send, 413, too_big, [])
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        given = False

        async def replay() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
