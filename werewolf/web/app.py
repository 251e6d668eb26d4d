"""The web app: the public JSON API (FastAPI, OpenAPI at /docs), the WebSocket, the front end.

Every error is a 4xx (or 500/503: a change that failed and was undone) with a JSON body ``{"error": "<what is wrong>"}``
and changes nothing: 401 no token, 403 a token that is not this room's (or the
host's where a seat is needed, or a seat acting for another), 404 no such room,
409 not now (out of turn, not started, over, full, taken), 410 a lobby that
expired unstarted, 422 a malformed body or an illegal move (the engine's
``IllegalMove`` message: phase, seat, act, rule).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import time
from collections.abc import AsyncIterator, Callable
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Body, FastAPI, Header, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, Strict
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect, WebSocketState

from werewolf.core.errors import WerewolfError
from werewolf.i18n import LANGS, normalize_lang
from werewolf.web.pacing import Pace
from werewolf.web.rooms import KEEP_FINISHED, LOBBY_IDLE, ApiError, Hub, Room, Subscriber
from werewolf.web.store import Store, database_url

log = logging.getLogger("werewolf.web")

STATIC = Path(str(resources.files("werewolf.web").joinpath("static")))


# -- request and response bodies (the OpenAPI schema) --------------------------------------------
class CreateRoom(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"ruleset": "classic", "deck": "classic12", "options": {}, "bots": [2, 3, 4], "mode": "online",
         "lang": "en"}]})

    ruleset: str = Field("classic", description="classic, facetoface, wechat, onuw or onenight")
    deck: str | list[str] | None = Field(None, description="a deck id (GET /api/decks) or a list of role ids; "
                                                            "null: the ruleset's standard deck for `players`")
    options: dict[str, Any] = Field(default_factory=dict, description="the ruleset's named options")
    bots: list[int] = Field(default_factory=list, description="seat numbers that bots play")
    bot_kind: Literal["heuristic", "random"] = Field(
        "heuristic", description="how the bots play: heuristic bots use what they know and talk; random ones "
                                 "pick any legal answer")
    seed: int | None = Field(None, ge=0, lt=2**63, description="seed of the deal and the rules' chance; "
                                                               "null: drawn from the server's secret randomness "
                                                               "and never shown before the end. A seed given "
                                                               "here marks the room \"fixed deal\" everywhere")
    mode: Literal["online", "face_to_face"] = "online"
    lang: str = Field("en", description="en, zh-Hant or zh-Hans (the moderator's voice in face-to-face play)")
    players: int | None = Field(None, ge=1, le=40, description="seats of the standard deck, when no deck is given")
    live_speech: bool = Field(True, description="speaking turns wait for their speaker (an act `speak` with "
                                                "the text, or none for \"done\")")
    timeout: float | None = Field(None, ge=0, description="seconds a person has for a decision before its "
                                                          "default is taken; 0 waits for ever; null: the "
                                                          "server's --timeout")
    pace: list[Annotated[float, Strict()]] | None = Field(None, min_length=2, max_length=2, description=(
        "[shortest, longest] seconds a night step lasts, whoever holds it (a step of a dead or absent role "
        "too); each step's length is drawn in this range (finite, 0 to 120); null: the server's --pace"))


class Created(BaseModel):
    room: str
    host_token: str
    players: int
    url: str


class Join(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(..., min_length=1, max_length=200)
    seat: int | None = Field(None, description="a seat to take; null: the first free seat")


class Joined(BaseModel):
    seat: int
    token: str


class Start(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fill_with_bots: bool = Field(False, description="bots take the seats nobody took")


class Ok(BaseModel):
    ok: bool = True


class Error(BaseModel):
    error: str


class GameOver(BaseModel):
    teams: list[str]
    seats: list[int]


class Discussion(BaseModel):
    """The one-night discussion: rounds of statements (``speak``), then the vote. A ``speak`` without
    text is "ready to vote"; when the time is up the server declines every open turn."""

    seconds: float | None = Field(description="its length; null: no limit (it ends when everyone is ready)")
    ends: float | None = Field(description="when the time is up (Unix time); null: no limit")
    ready: list[int] = Field(description="the seats that are ready to vote")


class View(BaseModel):
    """A seat's view: only what that seat may know (``werewolf.core.views.view``)."""

    seat: int | None
    role: str | None
    phase: str
    events: list[dict[str, Any]] = Field(description="the log lines this seat may see (SCRIPTED_GAMES.md)")
    pending: list[dict[str, Any]] | None = Field(
        description="null, or every legal answer the caller may give now, each a complete body for /act")
    decisions: list[dict[str, Any]] | None = Field(description="the open decisions, with their options")
    game_over: GameOver | None
    deadline: float | None = Field(description="when the caller's open decisions time out (Unix time)")
    host: bool
    room: dict[str, Any]
    speaking: list[int] = Field(description="seats whose speaking turn it is (live speech)")
    discussion: Discussion | None = Field(
        description="while the one-night discussion is on (live speech): its clock and who is ready to vote")
    awake: dict[str, Any] | None = Field(None, description="the night step of the caller's role while it "
                                                            "is played out and asks the caller nothing")
    text: dict[str, Any] | None = Field(None, description="with ?lang=: every line narrated for this seat")


ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": Error} for code in (401, 403, 404, 409, 410, 422)}


def create_app(database: str | None = None, *, timeout: float = 600.0, sync: str = "normal",
               public_url: str | None = None, tick: float = 1.0, keep_finished: float = KEEP_FINISHED,
               lobby_idle: float = LOBBY_IDLE, clock: Callable[[], float] = time.time,
               pace: tuple[float, float] | None = None) -> FastAPI:
    """The app, storing in ``database`` (a SQLite path or a database URL).

    ``keep_finished`` and ``lobby_idle`` (seconds) are the rooms' lifecycle (``werewolf.web.rooms``);
    ``clock`` is the one it runs on (tests pass a fake one); ``pace`` the rooms' default pacing of the
    night steps (``werewolf.web.pacing``; seconds, shortest and longest).
    """
    default_pace = Pace(*pace) if pace is not None else None
    url = database_url(database)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(url, sync=sync)
        hub = Hub(store, timeout=timeout, tick=tick, keep_finished=keep_finished, lobby_idle=lobby_idle,
                  clock=clock, pace=default_pace)
        app.state.store = store
        app.state.hub = hub
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()
            await asyncio.to_thread(store.close)

    app = FastAPI(title="werewolf", version="0.1.0", lifespan=lifespan,
                  description="Werewolf (狼人殺) rooms, games and the digital moderator. Acts and log lines use "
                              "the vocabulary of SCRIPTED_GAMES.md. Errors: `{\"error\": message}`.")
    app.state.public_url = public_url.rstrip("/") if public_url else None

    @app.exception_handler(ApiError)
    async def api_error(_: Request, err: ApiError) -> JSONResponse:
        return JSONResponse({"error": err.message}, status_code=err.status)

    @app.exception_handler(RequestValidationError)
    async def bad_body(_: Request, err: RequestValidationError) -> JSONResponse:
        parts = []
        for e in err.errors():
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            parts.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
        return JSONResponse({"error": "malformed request: " + "; ".join(parts)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, err: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": str(err.detail)}, status_code=err.status_code)

    def hub_of(request: Request | WebSocket) -> Hub:
        return request.app.state.hub  # type: ignore[no-any-return]

    def bearer(authorization: str | None) -> str | None:
        if not authorization:
            return None
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "the Authorization header must be 'Bearer <token>'")
        return token.strip()

    def base_url(request: Request) -> str:
        return request.app.state.public_url or str(request.base_url).rstrip("/")

    # -- the API ----------------------------------------------------------------------------
    @app.post("/api/rooms", response_model=Created, status_code=201, responses=ERRORS, tags=["rooms"])
    async def create_room(request: Request, body: CreateRoom) -> Created:
        """Create a room; the host token starts it (keep it secret)."""
        room, token = await hub_of(request).create(
            ruleset=body.ruleset, deck=body.deck, options=body.options, bots=body.bots, seed=body.seed,
            mode=body.mode, lang=normalize_lang(body.lang), players=body.players, timeout=body.timeout,
            live_speech=body.live_speech, bot_kind=body.bot_kind, pace=body.pace)
        return Created(room=room.id, host_token=token, players=room.n, url=f"{base_url(request)}/r/{room.id}")

    @app.get("/api/rooms/{room_id}", responses=ERRORS, tags=["rooms"])
    async def room_info(request: Request, room_id: str) -> dict[str, Any]:
        """The room as anyone may see it: status, ruleset, seats and names."""
        return (await hub_of(request).room(room_id)).info()

    @app.post("/api/rooms/{room_id}/join", response_model=Joined, responses=ERRORS, tags=["rooms"])
    async def join(request: Request, room_id: str, body: Join) -> Joined:
        """Take a seat (the first free one unless ``seat`` is given); returns the player token."""
        hub = hub_of(request)
        seat, token = await hub.join(await hub.room(room_id), body.name, body.seat)
        return Joined(seat=seat, token=token)

    @app.post("/api/rooms/{room_id}/start", response_model=Ok, responses=ERRORS, tags=["rooms"])
    async def start(request: Request, room_id: str, body: Start | None = None,
                    authorization: str | None = Header(None)) -> Ok:
        """Start the game (host token)."""
        hub = hub_of(request)
        room = await hub.room(room_id)
        host, _ = room.who(bearer(authorization))
        if not host:
            raise ApiError(403, "only the host may start the game")
        await hub.start_game(room, bool(body and body.fill_with_bots))
        return Ok()

    @app.get("/api/rooms/{room_id}/view", response_model=View, responses=ERRORS, tags=["play"])
    async def get_view(request: Request, room_id: str, authorization: str | None = Header(None),
                       lang: str | None = Query(None, description="narrate the view in en, zh-Hant or zh-Hans")
                       ) -> Response:
        """The caller's view (a seat's, or the public view for the host token)."""
        hub = hub_of(request)
        room = await hub.room(room_id)
        host, seat = room.who(bearer(authorization))
        text = await hub.view_json(room, seat, host, _lang(lang))
        return Response(text, media_type="application/json")

    @app.get("/api/rooms/{room_id}/public", response_model=View, responses=ERRORS, tags=["play"])
    async def public_view(request: Request, room_id: str, lang: str | None = Query(None)) -> Response:
        """What a spectator sees: public events only."""
        hub = hub_of(request)
        room = await hub.room(room_id)
        return Response(await hub.view_json(room, None, False, _lang(lang)), media_type="application/json")

    @app.post("/api/rooms/{room_id}/act", response_model=Ok, responses=ERRORS, tags=["play"])
    async def act(request: Request, room_id: str,
                  move: Annotated[dict[str, Any], Body(examples=[{"act": "vote", "target": 4}])],
                  authorization: str | None = Header(None)) -> Ok:
        """Answer a pending decision with one of the moves of the view's ``pending``."""
        hub = hub_of(request)
        room = await hub.room(room_id)
        _, seat = room.who(bearer(authorization))
        if seat is None:
            raise ApiError(403, "the host token has no seat: act with a player token")
        if not isinstance(move.get("act"), str):
            raise ApiError(422, "malformed move: it needs an 'act' (a string), e.g. {\"act\": \"vote\", \"target\": 4}")
        if "seat" in move:
            if move["seat"] != seat:
                raise ApiError(403, f"you hold seat {seat}: you cannot act for seat {move['seat']!r}")
            move = {k: v for k, v in move.items() if k != "seat"}
        await hub.act(room, seat, move)
        return Ok()

    @app.get("/api/rooms/{room_id}/log", responses=ERRORS, tags=["play"])
    async def full_log(request: Request, room_id: str, lang: str | None = Query(None)) -> dict[str, Any]:
        """The moderator's whole log with audiences, the setup and the answers: only once the game is over
        (with ?lang=: each line narrated as the moderator reads it)."""
        room = await hub_of(request).room(room_id)
        if room.status != "over":
            raise ApiError(409, "the full log is shown only once the game is over")
        out: dict[str, Any] = {"setup": room.setup.as_json(), "answers": [list(a) for a in room.game.answers],
                               "events": [e.as_json() for e in room.game.events]}
        if lang:
            from werewolf.i18n import narrate

            out["text"] = [narrate(e.as_json(with_audience=False), _lang(lang) or "en", None)
                           for e in room.game.events]
        return out

    @app.get("/api/rooms/{room_id}/qr.svg", responses=ERRORS, tags=["rooms"])
    async def qr(request: Request, room_id: str) -> Response:
        """The join link as a QR code (SVG)."""
        import qrcode
        import qrcode.image.svg

        room = await hub_of(request).room(room_id)
        img = qrcode.make(f"{base_url(request)}/r/{room.id}", image_factory=qrcode.image.svg.SvgPathImage,
                          box_size=12, border=2)
        buf = io.BytesIO()
        img.save(buf)
        return Response(buf.getvalue(), media_type="image/svg+xml")

    @app.get("/api/decks", tags=["rooms"])
    async def decks(lang: str | None = Query(None)) -> dict[str, Any]:
        """Every ruleset with its decks and presets (role ids, and names with ?lang=)."""
        return decks_json(_lang(lang) or "en")

    @app.websocket("/api/rooms/{room_id}/ws")
    async def ws(websocket: WebSocket, room_id: str, token: str | None = None, lang: str | None = None,
                 spectator: bool = False) -> None:
        """Pushes the caller's view (JSON text) on connect and whenever it changes."""
        await websocket.accept()
        hub = hub_of(websocket)
        try:
            room = await hub.room(room_id)
            host, seat = (False, None) if spectator and not token else room.who(token)
        except ApiError as err:
            await websocket.send_json({"error": err.message})
            await websocket.close(code=4000 + err.status)
            return
        await push_views(websocket, hub, room, Subscriber(seat, host, _lang(lang)))

    # -- the front end ----------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/r/{room_id}", include_in_schema=False)
    async def room_page(room_id: str) -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _lang(lang: str | None) -> str | None:
    return normalize_lang(lang) if lang else None


async def push_views(websocket: WebSocket, hub: Hub, room: Room, sub: Subscriber) -> None:
    sub.dirty.set()
    room.subs.add(sub)

    async def drain() -> None:
        try:
            while True:
                msg = await websocket.receive()
                if msg["type"] == "websocket.disconnect":
                    return
        except (WebSocketDisconnect, RuntimeError):
            return
        finally:
            sub.closed = True
            sub.dirty.set()

    reader = asyncio.create_task(drain())
    try:
        while True:
            await sub.dirty.wait()
            if sub.closed:
                break
            sub.dirty.clear()
            text = await hub.push(room, sub)
            if text is not None:
                await websocket.send_text(text)
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass
    finally:
        room.subs.discard(sub)
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await reader
        if websocket.application_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await websocket.close()


@functools.cache
def deck_players(ruleset: str, deck_id: str) -> int:
    from werewolf.core.game import Game, Setup
    from werewolf.web.rooms import seat_count

    return seat_count(Game(Setup(ruleset, deck=deck_id)))


@functools.cache
def decks_json(lang: str) -> dict[str, Any]:
    from werewolf.agents.heuristic import ONE_NIGHT
    from werewolf.i18n import has, role_name, t
    from werewolf.rulesets import MODULES, get_ruleset
    from werewolf.web.rooms import BOTS

    out = []
    for name in MODULES:
        try:
            rs = get_ruleset(name)
        except WerewolfError:
            continue
        out.append({
            "id": name, "name": t(f"ruleset.{name}", lang) if has(f"ruleset.{name}", lang) else name,
            "decks": [{"id": deck_id, "players": deck_players(name, deck_id), "roles": list(roles),
                       "names": [role_name(r, lang) if has(f"role.{r}", lang) else r for r in roles]}
                      for deck_id, roles in rs.decks().items()],
            # The one-night discussion's lengths (option discussion_seconds): the rule books' usual five
            # minutes, 004's one-minute and unlimited variants.
            "discussion": [{"seconds": s, "name": t("ui.talk_minutes", lang, n=s // 60) if s else
                            t("ui.talk_unlimited", lang)} for s in (300, 60, None)] if name in ONE_NIGHT else None,
        })
    return {"lang": lang, "langs": list(LANGS), "rulesets": out,
            "bot_kinds": [{"id": k, "name": t(f"ui.bots.{k}", lang)} for k in BOTS],
            "labels": {"bot_kind": t("ui.bot_kind", lang), "discussion": t("ui.talk_length", lang)}}
