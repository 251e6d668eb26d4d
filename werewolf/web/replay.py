"""The replay page of a finished game: its route, its JSON, and a small app for a log on disk.

``install`` adds to an app the page (``/replay/{id}``) and its data
(``/api/rooms/{id}/replay?view=all|public|N&lang=``); the app says how to find a finished game
by id (the web app: a room whose game is over, 409 before; ``werewolf replay``: the one file it
serves). What a viewer sees is computed here from the events' audiences (``werewolf.replay``):
the view of seat N holds only the events seat N was shown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from werewolf.core.errors import quoted
from werewolf.i18n import normalize_lang
from werewolf.i18n.rules import explain, known
from werewolf.replay import Record, RecordError, parse_viewer, replay
from werewolf.web.errors import ApiError

STATIC = Path(str(resources.files("werewolf.web").joinpath("static")))

Find = Callable[[Request, str], Awaitable[Record]]
LOCAL = "local"  # the id of the game `werewolf replay` serves


def install(app: FastAPI, find: Find) -> None:
    """Add the replay page and its JSON, and the phones' "Why?" (``install_why``), to ``app``;
    ``find`` gives the finished game of an id or raises ApiError."""
    install_why(app)

    @app.get("/replay/{room_id}", include_in_schema=False)
    async def replay_page(room_id: str) -> FileResponse:
        return FileResponse(STATIC / "replay.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/rooms/{room_id}/replay", tags=["play"], responses={
        code: {"description": why} for code, why in (
            (404, "no such room"), (409, "the game is not over yet"), (422, "an unknown view"))})
    async def replay_json(request: Request, room_id: str,
                          view: str | None = Query(None, max_length=8,
                                                   description="all (the moderator's), public, or a seat number"),
                          lang: str | None = Query(None, max_length=16)) -> dict[str, Any]:
        """A finished game as its replay: every step the viewer saw, narrated for it, who else saw it,
        each ruling with its rule and source, and the seat table as the viewer knew it."""
        record = await find(request, room_id)
        try:
            viewer = parse_viewer(view)
            return await asyncio.to_thread(replay, record, viewer, normalize_lang(lang))
        except RecordError as e:
            raise ApiError(422, str(e)) from None


def install_why(app: FastAPI) -> None:
    """Add ``/api/rules/{rule}``: one rule of the catalogue, for the phones' "Why?".

    The answer is a function of the rule id and the language only (the rule book's own text),
    never of a room or a seat: a phone asks about the ``rule`` of an event already in its view,
    so "why?" tells a player nothing that view does not already hold.
    """

    @app.get("/api/rules/{rule_id}", tags=["play"], responses={
        404: {"description": "no such rule"}, 422: {"description": "options that are not a table's"}})
    async def why(rule_id: str, lang: str | None = Query(None, max_length=16),
                  ruleset: str | None = Query(None, max_length=16, description="the table's ruleset"),
                  options: str | None = Query(None, max_length=2000, description=(
                      "the table's options as its game_start says them (JSON): the explanation that fits them"))
                  ) -> dict[str, Any]:
        """A rule: its one-line explanation, its rule book and section and the book's sentence, in ``lang``;
        with ``ruleset`` (and ``options``), as it reads at that table (the table's rules are public)."""
        if len(rule_id) > 64 or not known(rule_id):
            raise ApiError(404, f"no rule {quoted(rule_id)}")
        in_force = None
        if ruleset is not None:
            in_force = _table_options(ruleset, options)
        return explain(rule_id, normalize_lang(lang), ruleset, in_force)


def _table_options(ruleset: str, options: str | None) -> dict[str, Any] | None:
    """Every option of a table of ``ruleset`` that plays ``options`` (a game_start's record, JSON)."""
    import json

    from werewolf.core.errors import WerewolfError
    from werewolf.rulesets import MODULES
    from werewolf.rulesets.options import in_force

    if ruleset not in MODULES:
        raise ApiError(422, f"unknown ruleset {quoted(ruleset)}")
    try:
        played = json.loads(options) if options else None
        if played is not None and not isinstance(played, dict):
            raise ValueError("not an object")
        return in_force(ruleset, played)
    except (ValueError, WerewolfError) as e:
        raise ApiError(422, f"options: {str(e)[:200]}") from None


def local_app(record: Record) -> FastAPI:
    """An app that serves one game from disk (``werewolf replay FILE``) at ``/replay/local``."""
    from werewolf.web.headers import SecurityHeaders

    app = FastAPI(title="werewolf replay", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(SecurityHeaders)

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    async def find(request: Request, room_id: str) -> Record:
        if room_id != LOCAL:
            raise ApiError(404, f"this server replays one game, at /replay/{LOCAL}")
        return record

    install(app, find)

    @app.get("/", include_in_schema=False)
    async def home() -> RedirectResponse:
        # The page's home link: this server has one page, the game it replays.
        return RedirectResponse(f"/replay/{LOCAL}")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
