"""Security headers on every answer: pages, static files, the API, errors.

The phones' pages load only the app's own scripts and styles (no inline script or
style), so the policy allows nothing else; the API's documentation pages (``/docs``,
``/redoc``) are FastAPI's, which load Swagger UI / ReDoc from their CDN with an
inline script, and get a policy that allows just that.

A redirect (a path given with or without its last slash) says where to go as a path of this server,
never as an address built from the request's ``Host`` header, which the client chose.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from werewolf.web.limits import ASGIApp, Message, Receive, Scope, Send

APP_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
           "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: https:; "
            "worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
            "frame-ancestors 'none'")
DOCS = ("/docs", "/redoc")

COMMON: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]


def security_headers(path: str = "/") -> dict[str, str]:
    """The headers of an answer to ``path`` (the API's answers hold tokens and views: never stored by a cache)."""
    csp = DOCS_CSP if path.startswith(DOCS) else APP_CSP
    out = {**{k.decode(): v.decode() for k, v in COMMON}, "content-security-policy": csp}
    if path.startswith("/api/"):
        out["cache-control"] = "no-store"
    return out


def own_location(value: bytes) -> bytes:
    """A redirect's ``Location`` as a path of this server (``//host/x``, a path that names a host, too)."""
    parts = urlsplit(value.decode("latin-1"))
    path = "/" + parts.path.lstrip("/")
    return (path + ("?" + parts.query if parts.query else "")).encode("latin-1")


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = [(k.encode(), v.encode()) for k, v in security_headers(str(scope.get("path", ""))).items()]

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if 300 <= message["status"] < 400:
                    headers = [(k, own_location(v) if k.lower() == b"location" else v) for k, v in headers]
                given = {k.lower() for k, _ in headers}
                message["headers"] = [*headers, *(h for h in extra if h[0] not in given)]
            await send(message)

        await self.app(scope, receive, with_headers)
