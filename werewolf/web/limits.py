"""Limits on what one client may ask: the size of a request body, and how often it may
create rooms, join them, or present a token that is not good.

Rates are counted per client address (the peer of the connection, as uvicorn gives it:
behind a proxy, run uvicorn with its proxy headers) in moving windows by the ``limits``
library. A request over a rate is answered 429 with ``Retry-After`` (seconds); a body
over the size limit 413. Both answers are ``{"error": ...}`` like every other.
"""

from __future__ import annotations

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

RATES = ("create", "join", "auth", "pack")
WHAT = {"create": "rooms created", "join": "joins", "auth": "requests with a bad token",
        "pack": "picks, pack lines and interrupt buttons"}


@dataclass(frozen=True)
class Limits:
    """The server's limits; a rate is the ``limits`` notation (``"20/minute"``), ``None`` for none."""

    body_bytes: int = 64 * 1024
    create: str | None = "20/minute"  # rooms created by one client
    join: str | None = "60/minute"  # joins (successful or not) by one client
    auth: str | None = "30/minute"  # requests by one client whose token was missing or not good
    pack: str | None = "300/minute"  # picks, pack chat lines and interrupt buttons (one table: one address)

    @classmethod
    def off(cls, body_bytes: int = 64 * 1024) -> Limits:
        """No rate limits (the body limit stays)."""
        return cls(body_bytes=body_bytes, create=None, join=None, auth=None, pack=None)

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
            elif name in RATES:
                rate = None if value in ("off", "none", "") else value
                if rate is not None:
                    parse(rate)  # raises ValueError on a malformed rate
                rates: dict[str, Any] = {name: rate}
                out = replace(out, **rates)
            else:
                raise ValueError(f"unknown limit {name!r} (known: body, {', '.join(RATES)})")
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


def client_of(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


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
