"""The web app: rooms, the public API, the phones' pages and the spoken moderator.

``werewolf serve`` runs it (``serve`` below); ``create_app`` builds the FastAPI
app for tests and other servers. See the README's "Web app" section.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "serve"]


def create_app(database: str | None = None, **kwargs: Any) -> Any:
    from werewolf.web.app import create_app as make

    return make(database, **kwargs)


def serve(host: str = "0.0.0.0", port: int = 8000, database: str | None = None, *, timeout: float = 600.0,
          sync: str = "normal", public_url: str | None = None, log_level: str = "info",
          keep_finished: float = 1800.0, lobby_idle: float = 86400.0,
          pace: tuple[float, float] | None = None) -> None:
    """Run the app with uvicorn until interrupted (``keep_finished``, ``lobby_idle``: seconds)."""
    import uvicorn

    from werewolf.web.app import create_app as make

    app = make(database, timeout=timeout, sync=sync, public_url=public_url, keep_finished=keep_finished,
               lobby_idle=lobby_idle, pace=pace)
    print(f"werewolf: open {public_url or local_url(host, port)} (API: /docs)", flush=True)

    uvicorn.run(app, host=host, port=port, log_level=log_level, ws_ping_interval=20, ws_ping_timeout=20,
                ws_per_message_deflate=False,
                access_log=False)  # WebSocket URLs carry tokens


def local_url(host: str, port: int) -> str:
    """The address phones on this network can use (this machine's own name, looked up locally)."""
    import socket

    if host not in ("0.0.0.0", "::", ""):
        return f"http://{host}:{port}"
    try:
        ip = socket.gethostbyname(socket.gethostname())
    except OSError:
        ip = "localhost"
    return f"http://{ip}:{port}"
