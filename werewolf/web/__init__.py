"""The web app: rooms, the public API, the phones' pages and the spoken moderator.

``werewolf serve`` runs it (``serve`` below); ``create_app`` builds the FastAPI
app for tests and other servers. See docs/web.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from werewolf.web.homes import Place

__all__ = ["create_app", "serve"]


def create_app(database: str | None = None, **kwargs: Any) -> Any:
    from werewolf.web.app import create_app as make

    return make(database, **kwargs)


def serve(host: str = "0.0.0.0", port: int = 8000, database: str | None = None, *, timeout: float = 600.0,
          sync: str = "normal", public_url: str | None = None, log_level: str = "info",
          keep_finished: float = 1800.0, lobby_idle: float = 86400.0, limits: str | None = None,
          pace: tuple[float, float] | None = None, workers: int = 1, header_timeout: float | None = None) -> None:
    """Run the app with uvicorn until interrupted (``keep_finished``, ``lobby_idle``: seconds; ``limits``:
    ``werewolf.web.limits.Limits.parse``'s notation; ``pace``: a night step's seconds, min and max).

    ``workers`` > 1: as many server processes behind the port, each a whole server, all on one PostgreSQL
    database (``werewolf.web.cluster``); the parent hands each room's connections to the one that is its
    home, and starts a worker that dies again (``werewolf.web.routing``).

    Raises ``werewolf.web.preflight.DatabaseProblem`` (one line) before listening if the database cannot be
    opened, or if it is a SQLite file that another server already serves."""
    import logging.config

    import uvicorn

    from werewolf.web.links import detect_address, server_link
    from werewolf.web.preflight import check
    from werewolf.web.routing import Router
    from werewolf.web.runtime import serving
    from werewolf.web.store import database_url

    settings = {"database": database, "timeout": timeout, "sync": sync, "public_url": public_url,
                "keep_finished": keep_finished, "lobby_idle": lobby_idle, "limits": limits, "listen_host": host,
                "port": port, "pace": list(pace) if pace is not None else None}
    if workers > 1 and not database_url(database).startswith("postgresql"):
        raise ValueError(f"--workers {workers}: several processes need a PostgreSQL database (--database "
                         "postgresql://...); SQLite serves one process")
    check(database)
    link = server_link(public_url, host, port, None if public_url else detect_address())
    print(f"werewolf: open {link.base} (API: /docs)", flush=True)
    if not link.reachable:
        print("werewolf: phones cannot open a loopback address: serve with --host 0.0.0.0 on a network, or "
              "give --public-url http://ADDRESS:PORT (the address phones reach this machine at)", flush=True)
    if workers > 1:
        from werewolf.web.logs import log_config

        logging.config.dictConfig(log_config(log_level))
        Router(host, port, workers, {**settings, "log_level": log_level, "header_timeout": header_timeout}).run()
        return
    app = _app(settings)
    serving()  # the garbage collector's pauses and the threads' turns (werewolf.web.runtime)
    uvicorn.run(app, host=host, port=port, **uvicorn_settings(log_level, header_timeout))


def uvicorn_settings(log_level: str, header_timeout: float | None = None) -> dict[str, Any]:
    """uvicorn's settings for the app, one process or a worker of several (``header_timeout``: seconds a
    request's head may take, ``werewolf.web.protocols``; None: its default)."""
    from werewolf.web.logs import log_config
    from werewolf.web.protocols import HEADER_TIMEOUT, protocol, ws_protocol

    http = protocol(HEADER_TIMEOUT if header_timeout is None else header_timeout)
    return {"log_level": log_level, "log_config": log_config(log_level), "http": http, "ws": ws_protocol(),
            "ws_ping_interval": 20, "ws_ping_timeout": 20, "ws_per_message_deflate": False,
            "ws_max_size": 64 * 1024,  # pings, asks for a full view, moves: small
            # A phone's requests come a decision apart, often more than uvicorn's 5 s: a new connection (and
            # behind a proxy, a new TLS handshake) for almost every answer, unless idle ones are kept longer.
            "timeout_keep_alive": 75,
            "access_log": False}  # quieter; and every line passes werewolf.web.logs.Redact anyway


def _app(settings: dict[str, Any], place: Place | None = None) -> Any:
    from werewolf.web.app import create_app as make
    from werewolf.web.limits import Limits

    kw = dict(settings)
    limits = kw.pop("limits")
    pace = kw.pop("pace")
    return make(kw.pop("database"), limits=Limits.parse(limits) if limits else None,
                pace=tuple(pace) if pace is not None else None, place=place, **kw)
