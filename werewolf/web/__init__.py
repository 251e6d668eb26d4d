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
          keep_finished: float = 1800.0, lobby_idle: float = 86400.0, limits: str | None = None,
          pace: tuple[float, float] | None = None) -> None:
    """Run the app with uvicorn until interrupted (``keep_finished``, ``lobby_idle``: seconds; ``limits``:
    ``werewolf.web.limits.Limits.parse``'s notation; ``pace``: a night step's seconds, min and max)."""
    import uvicorn

    from werewolf.web.app import create_app as make
    from werewolf.web.limits import Limits
    from werewolf.web.links import detect_address, server_link
    from werewolf.web.logs import log_config
    from werewolf.web.protocols import protocol
    from werewolf.web.runtime import serving

    app = make(database, timeout=timeout, sync=sync, public_url=public_url, keep_finished=keep_finished,
               lobby_idle=lobby_idle, limits=Limits.parse(limits) if limits else None, listen_host=host, port=port,
               pace=pace)
    link = server_link(public_url, host, port, None if public_url else detect_address())
    print(f"werewolf: open {link.base} (API: /docs)", flush=True)
    if not link.reachable:
        print("werewolf: phones cannot open a loopback address: serve with --host 0.0.0.0 on a network, or "
              "give --public-url http://ADDRESS:PORT (the address phones reach this machine at)", flush=True)

    serving()  # the garbage collector's pauses and the threads' turns (werewolf.web.runtime)
    uvicorn.run(app, host=host, port=port, log_level=log_level, log_config=log_config(log_level), http=protocol(),
                ws_ping_interval=20, ws_ping_timeout=20, ws_per_message_deflate=False,
                ws_max_size=64 * 1024,  # clients send nothing but pings
                access_log=False)  # quieter; and every line passes werewolf.web.logs.Redact anyway
