"""The web app: the public JSON API (FastAPI, OpenAPI at /docs), the WebSocket, the front end.

Every error is a 4xx (or 500/503: a change that failed and was undone) with a JSON body ``{"error": "<what is wrong>"}``
and changes nothing: 401 no token, 403 a token that is not this room's (or the
host's where a seat is needed, or a seat acting for another), 404 no such room or
path, 405 a method the path does not take (with ``Allow``), 409 not now (out of
turn, not started, over, full, taken, a name already used), 410 a lobby that expired
unstarted, 413 a body over the size limit, 422 a body that is not JSON, or not the
expected JSON (the field and the rule, ``werewolf.web.requests``), or an illegal
move (the engine's ``IllegalMove`` message: phase, seat, act, rule), 429 too many
requests from one address (with ``Retry-After``, ``werewolf.web.limits``).
Every answer carries the security headers of ``werewolf.web.headers``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Body, Depends, FastAPI, Header, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError, WebSocketRequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect, WebSocketState

from werewolf.core.errors import WerewolfError, quoted
from werewolf.i18n import LANGS, normalize_lang
from werewolf.replay import Record
from werewolf.web import moves
from werewolf.web.cluster import Cluster
from werewolf.web.errors import ApiError
from werewolf.web.headers import SecurityHeaders, security_headers
from werewolf.web.homes import Place
from werewolf.web.hub import KEEP_FINISHED, LOBBY_IDLE, Hub
from werewolf.web.jsontext import dumps
from werewolf.web.limits import (
    BodyLimit,
    Busy,
    Chatter,
    FullViews,
    Limits,
    RateLimits,
    TooMany,
    auth_key,
    client_of,
    lobby_cap,
)
from werewolf.web.links import Link, detect_address, server_link
from werewolf.web.lobby import install as install_lobby
from werewolf.web.pacing import Pace
from werewolf.web.probe import install as install_probe
from werewolf.web.replay import install as install_replay
from werewolf.web.requests import CreateRoom, Join, Move, PackChat, Pick, Start, error_text
from werewolf.web.room import Room
from werewolf.web.runtime import give_back
from werewolf.web.state import Subscriber, token_hash
from werewolf.web.store import Store, database_url
from werewolf.web.voice import VoiceAck, VoiceHeard

log = logging.getLogger("werewolf.web")

STATIC = Path(str(resources.files("werewolf.web").joinpath("static")))


# -- request and response bodies (the OpenAPI schema) --------------------------------------------
class Created(BaseModel):
    room: str
    host_token: str
    players: int
    url: str


class Joined(BaseModel):
    seat: int
    token: str


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
    pack: dict[str, int | None] | None = Field(None, description="at the pack's knife, to its voices only: each "
                                                                 "voice's seat -> its current pick (null: none)")
    pack_ready: list[int] | None = Field(None, description="the voices whose pick is final (confirmed, or given)")
    pack_chat: list[dict[str, Any]] | None = Field(None, description="the pack's lines this seat was with the pack "
                                                                     "for: {seat, text, phase}")
    pack_why: str | None = Field(None, description="the rule id that lets this wolf, who self-destructed, still "
                                                   "name the victim (GET /api/rules/{rule})")
    interrupts: list[dict[str, Any]] | None = Field(
        None, description="the caller's any-moment buttons (self-destruct, duel): {act, options, no, armed}; "
                          "POST one of the options to /intent, used at the next offer")
    voice: dict[str, Any] | None = Field(None, description="face to face, for the host and spectators: the "
                                                            "moderator voice (on, heard, lines, paused, waiting)")
    speaker_deadline: float | None = Field(None, description="when the open speech's time is up (Unix time; "
                                                             "public: the same in every view); null: none")
    speech_warning: float | None = Field(None, description="seconds before speaker_deadline when the speaker is "
                                                           "warned; null: the room has no speech timer")
    speech_warned: bool = Field(False, description="the open speech's warning is out")


class JoinLink(BaseModel):
    url: str = Field(description="the room's join link (also in its QR code)")
    reachable: bool = Field(description="false: a loopback address, which no phone can open")
    warning: str | None = Field(description="when not reachable: how to make the link reachable (narrated)")


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Error} for code in (401, 403, 404, 409, 410, 413, 422, 429, 503)}
ROOM_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
MAX_ERROR = 400  # characters of an error message: whatever it quotes, an answer stays short
WS_PROTOCOL = "werewolf"  # the WebSocket subprotocol; the token comes as a second one, "token.<token>"


def create_app(database: str | None = None, *, timeout: float = 600.0, sync: str = "normal",
               public_url: str | None = None, tick: float = 1.0, keep_finished: float = KEEP_FINISHED,
               lobby_idle: float = LOBBY_IDLE, clock: Callable[[], float] = time.time,
               limits: Limits | None = None, listen_host: str = "0.0.0.0", port: int | None = None,
               address: Callable[[], str | None] = detect_address,
               pace: tuple[float, float] | None = None, place: Place | None = None) -> FastAPI:
    """The app, storing in ``database`` (a SQLite path or a database URL).

    ``keep_finished`` and ``lobby_idle`` (seconds) are the rooms' lifecycle (``werewolf.web.hub``);
    ``clock`` is the one it runs on (tests pass a fake one). ``limits``: the body size and rate limits
    (``werewolf.web.limits``; default ``Limits()``). Join links use ``public_url``, else the address the
    server listens on (``listen_host``, ``port``: by default the port of the connection), else the
    machine's ``address()`` on its network (``werewolf.web.links``); never a request's ``Host``. ``pace``:
    the rooms' default pacing of the night steps (``werewolf.web.pacing``; seconds, shortest and longest).
    ``place``: this process's place among the workers of ``serve --workers`` (``werewolf.web.routing``).
    """
    default_pace = Pace(*pace) if pace is not None else None
    url = database_url(database)
    limits = limits if limits is not None else Limits()
    rates = RateLimits(limits)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(url, sync=sync)
        hub = Hub(store, timeout=timeout, tick=tick, keep_finished=keep_finished, lobby_idle=lobby_idle,
                  clock=clock, pace=default_pace, place=place, cluster=Cluster)
        app.state.store = store
        app.state.hub = hub
        app.state.address = None if public_url else await asyncio.to_thread(address)
        await hub.start()
        freed = asyncio.create_task(give_back(lambda: hub.left))  # finished games' memory back to the system
        try:
            yield
        finally:
            freed.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await freed
            await hub.stop()
            await asyncio.to_thread(store.close)

    app = FastAPI(title="werewolf", version="0.1.0", lifespan=lifespan,
                  description="Werewolf (狼人殺) rooms, games and the digital moderator. Acts and log lines use "
                              "the vocabulary of SCRIPTED_GAMES.md. Errors: `{\"error\": message}`.")
    app.state.public_url = public_url.rstrip("/") if public_url else None
    app.state.address = None
    app.state.limits = limits
    app.add_middleware(BodyLimit, limit=limits.body_bytes)
    app.add_middleware(SecurityHeaders)  # outermost: the 413 gets the headers too

    def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
        if len(message) > MAX_ERROR:
            message = message[:MAX_ERROR] + "…"
        return JSONResponse({"error": message}, status_code=status, headers=headers)

    @app.exception_handler(ApiError)
    async def api_error(_: Request, err: ApiError) -> JSONResponse:
        if isinstance(err, (TooMany, Busy)):
            return error(err.status, err.message, {"Retry-After": str(err.retry_after)})
        return error(err.status, err.message)

    @app.exception_handler(RequestValidationError)
    async def bad_body(_: Request, err: RequestValidationError) -> JSONResponse:
        errors = list(err.errors())
        if any(e.get("type") == "json_invalid" for e in errors):
            return error(422, "malformed request: the body is not valid JSON")
        if any(e.get("type") == "missing" and tuple(e.get("loc", ())) == ("body",) for e in errors):
            return error(422, "malformed request: the body must be a JSON object")
        return error(422, "malformed request: " + (error_text(errors) or "invalid body"))

    @app.exception_handler(WebSocketRequestValidationError)
    async def bad_socket(websocket: WebSocket, err: WebSocketRequestValidationError) -> None:
        message = "malformed request: " + (error_text(list(err.errors())) or "invalid parameters")
        await websocket.accept()
        await websocket.send_json({"error": message[:MAX_ERROR]})
        await websocket.close(code=4422, reason=close_reason(message))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, err: StarletteHTTPException) -> JSONResponse:
        if err.status_code == 400:  # the body could not be read as JSON at all (not UTF-8, a huge number…)
            return error(422, "malformed request: the body is not valid JSON")
        return error(err.status_code, str(err.detail), dict(err.headers or {}))

    @app.exception_handler(Exception)
    async def crash(_: Request, err: Exception) -> JSONResponse:
        log.error("internal error: %s", type(err).__name__, exc_info=err)
        # Answered outside the middleware (by Starlette's outermost one): the security headers by hand.
        return error(500, "internal error: nothing was changed, try again", security_headers())

    def hub_of(request: Request | WebSocket) -> Hub:
        return request.app.state.hub  # type: ignore[no-any-return]

    def bearer(authorization: str | None) -> str | None:
        if not authorization:
            return None
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "the Authorization header must be 'Bearer <token>'")
        return token.strip()

    def who(conn: Request | WebSocket, room: Room, token: str | None) -> tuple[bool, int | None]:
        """The token's ``(is_host, seat)``; a bad token is counted for this room and address, and once too many
        came it is refused 429 (``werewolf.web.limits``: a good one never is, for the others behind the address)."""
        key = auth_key(room.id, client_of(conn.scope))
        try:
            return room.who(token)
        except ApiError:
            rates.hit("auth", key)
            raise

    async def room_of(where: Request | WebSocket | Hub, room_id: str) -> Room:
        """The room ``room_id`` (404 for an id no room can have, quoting only its start)."""
        if not ROOM_ID.fullmatch(room_id):
            raise ApiError(404, f"no room {quoted(room_id)}")
        return await (where if isinstance(where, Hub) else hub_of(where)).room(room_id)

    async def hosted(request: Request, room_id: str, authorization: str | None, refused: str) -> tuple[Hub, Room]:
        """The hub and the room, for a caller holding the room's host token (else 403 with ``refused``)."""
        hub = hub_of(request)
        room = await room_of(hub, room_id)
        host, _ = who(request, room, bearer(authorization))
        if not host:
            raise ApiError(403, refused)
        return hub, room

    def link(conn: Request | WebSocket) -> Link:
        server = conn.scope.get("server")
        listen_port = port or (int(server[1]) if server and server[1] else 80)
        return server_link(conn.app.state.public_url, listen_host, listen_port, conn.app.state.address)

    # -- the API ----------------------------------------------------------------------------
    def counted(name: str) -> Any:
        """A dependency that counts the request against the client's rate ``name`` (before its body is read,
        so that malformed requests count too)."""

        async def hit(request: Request) -> None:  # async: no thread for a counter
            rates.hit(name, client_of(request.scope))

        return Depends(hit)

    @app.post("/api/rooms", response_model=Created, status_code=201, responses=ERRORS, tags=["rooms"],
              dependencies=[counted("create")])
    async def create_room(request: Request, body: CreateRoom) -> Created:
        """Create a room; the host token starts it (keep it secret)."""
        lobby_cap(limits, sum(1 for r in hub_of(request).rooms.values() if r.status == "lobby"))
        room, token = await hub_of(request).create(
            ruleset=body.ruleset, deck=body.deck, options=body.options, bots=body.bots, seed=body.seed,
            mode=body.mode, lang=normalize_lang(body.lang), players=body.players, timeout=body.timeout,
            live_speech=body.live_speech, bot_kind=body.bot_kind, pace=body.pace, speech_time=body.speech_time,
            bot_kinds=body.seat_kinds())
        return Created(room=room.id, host_token=token, players=room.n, url=f"{link(request).base}/r/{room.id}")

    @app.get("/api/rooms/{room_id}", responses=ERRORS, tags=["rooms"])
    async def room_info(request: Request, room_id: str) -> dict[str, Any]:
        """The room as anyone may see it: status, ruleset, seats and names."""
        return (await room_of(request, room_id)).info()

    @app.get("/api/rooms/{room_id}/link", response_model=JoinLink, responses=ERRORS, tags=["rooms"])
    async def room_link(request: Request, room_id: str, lang: str | None = Query(None, max_length=16)) -> JoinLink:
        """The room's join link, as its QR code has it, and whether phones can open it."""
        from werewolf.i18n import t

        room = await room_of(request, room_id)
        where = link(request)
        warning = None if where.reachable else t("ui.link_loopback", _lang(lang) or "en")
        return JoinLink(url=f"{where.base}/r/{room.id}", reachable=where.reachable, warning=warning)

    @app.post("/api/rooms/{room_id}/join", response_model=Joined, responses=ERRORS, tags=["rooms"],
              dependencies=[counted("join")])
    async def join(request: Request, room_id: str, body: Join) -> Joined:
        """Take a seat (the first free one unless ``seat`` is given); returns the player token."""
        hub = hub_of(request)
        seat, token = await hub.join(await room_of(hub, room_id), body.name, body.seat)
        return Joined(seat=seat, token=token)

    @app.post("/api/rooms/{room_id}/start", response_model=Ok, responses=ERRORS, tags=["rooms"])
    async def start(request: Request, room_id: str, body: Start | None = None,
                    authorization: str | None = Header(None)) -> Ok:
        """Start the game (host token)."""
        hub, room = await hosted(request, room_id, authorization, "only the host may start the game")
        await hub.start_game(room, bool(body and body.fill_with_bots))
        return Ok()

    @app.get("/api/rooms/{room_id}/view", response_model=View, responses=ERRORS, tags=["play"])
    async def get_view(request: Request, room_id: str, authorization: str | None = Header(None),
                       lang: str | None = Query(None, max_length=16,
                                                description="narrate the view in en, zh-Hant or zh-Hans")
                       ) -> Response:
        """The caller's view (a seat's, or the public view for the host token)."""
        hub = hub_of(request)
        room = await room_of(hub, room_id)
        host, seat = who(request, room, bearer(authorization))
        text = await hub.view_json(room, seat, host, _lang(lang))
        return Response(text, media_type="application/json")

    @app.get("/api/rooms/{room_id}/public", response_model=View, responses=ERRORS, tags=["play"])
    async def public_view(request: Request, room_id: str, lang: str | None = Query(None, max_length=16)) -> Response:
        """What a spectator sees: public events only."""
        hub = hub_of(request)
        room = await room_of(hub, room_id)
        return Response(await hub.view_json(room, None, False, _lang(lang)), media_type="application/json")

    @app.post("/api/rooms/{room_id}/act", response_model=Ok, responses=ERRORS, tags=["play"])
    async def act(request: Request, room_id: str, move: Annotated[Move, Body()],
                  authorization: str | None = Header(None)) -> Ok:
        """Answer a pending decision with one of the moves of the view's ``pending`` (on the seat's socket too:
        ``{"id": n, "post": "act", "body": move}``, see ``ws``)."""
        hub, room, seat = await seated(request, room_id, authorization)
        await moves.act(hub, room, seat, move)
        return Ok()

    async def seated(request: Request, room_id: str, authorization: str | None) -> tuple[Hub, Room, int]:
        """The room and the caller's seat, for a pack move."""
        hub = hub_of(request)
        room = await room_of(hub, room_id)
        _, seat = who(request, room, bearer(authorization))
        if seat is None:
            raise ApiError(403, "the host token has no seat: use a player token")
        return hub, room, seat

    @app.post("/api/rooms/{room_id}/pick", response_model=Ok, responses=ERRORS, tags=["play"],
              dependencies=[counted("pack")])
    async def pick(request: Request, room_id: str, body: Pick, authorization: str | None = Header(None)) -> Ok:
        """At the pack's knife: the caller's pick, seen at once by the pack only; ``confirm`` makes it final
        (``/act`` with ``kill`` is a confirmed pick). The knife is given once the people of the pack have all
        confirmed, or when the decision's time is up (each pick as it is then)."""
        hub, room, seat = await seated(request, room_id, authorization)
        await moves.pick(hub, room, seat, body)
        return Ok()

    @app.post("/api/rooms/{room_id}/pack_chat", response_model=Ok, responses=ERRORS, tags=["play"],
              dependencies=[counted("pack")])
    async def pack_chat(request: Request, room_id: str, body: PackChat,
                        authorization: str | None = Header(None)) -> Ok:
        """A line to the pack, at the knife (online rooms): only the pack's voices ever see it."""
        hub, room, seat = await seated(request, room_id, authorization)
        await moves.pack_chat(hub, room, seat, body)
        return Ok()

    @app.post("/api/rooms/{room_id}/intent", response_model=Ok, responses=ERRORS, tags=["play"],
              dependencies=[counted("pack")])
    async def intent(request: Request, room_id: str, move: Annotated[Move, Body()],
                     authorization: str | None = Header(None)) -> Ok:
        """Press an interrupt button (one of the view's ``interrupts`` options, e.g. ``{"act": "explode"}``):
        used at the next offer the rules make; its "no" move (``{"act": "explode", "value": false}``) takes
        it back. Nothing waits for it: every other offer is declined at once."""
        hub, room, seat = await seated(request, room_id, authorization)
        await moves.intent(hub, room, seat, move)
        return Ok()

    @app.post("/api/rooms/{room_id}/voice", response_model=VoiceHeard, responses=ERRORS, tags=["play"])
    async def voice(request: Request, room_id: str, body: VoiceAck,
                    authorization: str | None = Header(None)) -> VoiceHeard:
        """Face to face, the moderator device (host token): the lines of the script it has spoken."""
        hub, room = await hosted(request, room_id, authorization,
                                 "only the host's moderator device speaks for the room")
        return VoiceHeard(heard=await hub.voice(room, body))

    @app.get("/api/rooms/{room_id}/log", responses=ERRORS, tags=["play"])
    async def full_log(request: Request, room_id: str, lang: str | None = Query(None, max_length=16)
                       ) -> dict[str, Any]:
        """The moderator's whole log with audiences, the setup and the answers: only once the game is over
        (with ?lang=: each line narrated as the moderator reads it)."""
        room = await room_of(request, room_id)
        if room.status != "over":
            raise ApiError(409, "the full log is shown only once the game is over")
        out: dict[str, Any] = {"setup": room.setup.as_json(), "answers": [list(a) for a in room.game.answers],
                               "events": [e.as_json() for e in room.game.events]}
        if lang:
            from werewolf.i18n import narrate

            out["text"] = [narrate(e.as_json(with_audience=False), _lang(lang) or "en", None)
                           for e in room.game.events]
        return out

    @app.get("/api/rooms/{room_id}/qr.svg", response_class=Response, tags=["rooms"], responses={
        **ERRORS, 200: {"content": {"image/svg+xml": {"schema": {"type": "string"}}}, "description": "the QR code"}})
    async def qr(request: Request, room_id: str) -> Response:
        """The join link as a QR code (SVG)."""
        import qrcode
        import qrcode.image.svg

        room = await room_of(request, room_id)
        img = qrcode.make(f"{link(request).base}/r/{room.id}", image_factory=qrcode.image.svg.SvgPathImage,
                          box_size=12, border=2)
        buf = io.BytesIO()
        img.save(buf)
        return Response(buf.getvalue(), media_type="image/svg+xml")

    @app.get("/api/decks", tags=["rooms"])
    async def decks(lang: str | None = Query(None, max_length=16)) -> dict[str, Any]:
        """Every ruleset with its decks and presets (role ids, and names with ?lang=)."""
        return decks_json(_lang(lang) or "en")

    @app.websocket("/api/rooms/{room_id}/ws")
    async def ws(websocket: WebSocket, room_id: str, token: str | None = None, lang: str | None = None,
                 spectator: bool = False, delta: bool = False,
                 replies: Literal["apart", "inline"] = "apart") -> None:
        """Pushes the caller's view (JSON text) on connect and whenever it changes.

        The token comes as the subprotocol ``token.<token>`` beside ``werewolf`` (a browser's
        ``new WebSocket(url, ["werewolf", "token." + token])``), so that it is in no URL and no log;
        ``?token=`` is still accepted. A refused socket gets ``{"error": …}``, then is closed with
        4000 + the HTTP status (4401, 4403, 4404, 4410, 4429) and the message as its reason. A socket that
        sends a flood of messages is closed with 4429; its asks for the full view are answered at most once
        every two seconds (``werewolf.web.limits``).

        ``?delta=true``: the full view first, with its version ``v``; then each push is a delta
        ``{"v", "base", "set", "text", "events"}`` (``Room.push_json``) to apply to version ``base``.
        A client that is not at ``base`` sends ``{"full": true}`` and gets the full view again.

        A seat's socket takes its moves too (``werewolf.web.moves``): ``{"id": n, "post": "act", "body": move}``
        (or ``pick``, ``pack_chat``, ``intent``), answered ``{"reply": n, "ok": true}`` or refused with the
        POST route's status and words, ``{"reply": n, "status": 4xx, "error": "…"}``, nothing changed.
        ``?replies=inline``: a move taken is answered in the push that follows it, the view that shows the
        answer: ``{"reply": n, "ok": true, "v": …}`` (alone when the seat's view did not change); one message
        less for every answer, which at hundreds of rooms is a tenth of the server's work (issue 29). A refusal
        still comes at once, alone.
        """
        offered = list(websocket.scope.get("subprotocols") or [])
        for p in offered:
            if p.startswith("token."):
                token = p[len("token."):]
        await websocket.accept(subprotocol=WS_PROTOCOL if WS_PROTOCOL in offered else None)
        hub = hub_of(websocket)
        try:
            rates.hit("sockets", client_of(websocket.scope))  # (each socket opened costs a full view)
            room = await room_of(hub, room_id)
            host, seat = (False, None) if spectator and not token else who(websocket, room, token)
        except ApiError as err:
            await websocket.send_json({"error": err.message[:MAX_ERROR]})
            await websocket.close(code=4000 + err.status, reason=close_reason(err.message))
            return
        sub = Subscriber(seat, host, _lang(lang), delta=delta)
        held = token_hash(token) if token and seat is not None else ""

        async def move(m: moves.SocketMove) -> None:  # a seat's move on its socket: the token checked again
            kind = moves.SEAT_MOVES[m.name]
            if kind.rate is not None:
                rates.hit(kind.rate, client_of(websocket.scope))
            if token is None:
                raise ApiError(403, "a spectator's socket makes no moves: connect with a player token")
            here = await room_of(hub, room_id)
            mine = seat if seat is not None and here.holds(seat, held) else None
            if mine is None:  # freed, or never a seat's: the full check, with its words
                _, mine = who(websocket, here, token)
            if mine is None:
                raise ApiError(403, "the host token has no seat: use a player token")
            await kind.run(hub, here, mine, moves.parse_body(kind, m.body))

        await push_views(websocket, hub, room, sub, move, inline=replies == "inline")

    # -- the front end ----------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/r/{room_id}", include_in_schema=False)
    async def room_page(room_id: str) -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def finished_game(request: Request, room_id: str) -> Record:  # the replay page's game
        room = await room_of(request, room_id)
        if room.status != "over":
            raise ApiError(409, "the replay opens once the game is over")
        return Record([e.as_json() for e in room.game.events], setup=room.setup.as_json(), names=dict(room.names),
                      timeouts=list(room.timed_out))

    install_replay(app, finished_game)
    install_lobby(app, room_of, who, bearer, hosted, lambda request: link(request).base, ERRORS)
    install_probe(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def close_reason(message: str) -> str:
    """A WebSocket close reason: at most 123 bytes of UTF-8."""
    data = message.encode()
    return message if len(data) <= 123 else data[:120].decode(errors="ignore") + "…"


def _lang(lang: str | None) -> str | None:
    return normalize_lang(lang) if lang else None


async def push_views(websocket: WebSocket, hub: Hub, room: Room, sub: Subscriber,
                     move: Callable[[moves.SocketMove], Awaitable[None]], inline: bool = False) -> None:
    """Push the socket's view whenever it changes, and take its messages (``drain``). ``inline``: a move taken
    is answered in the next push, and while one of the seat's moves is under way its pushes wait for it
    (what they would show meanwhile goes in the push that carries the reply)."""
    sub.dirty.set()
    room.subs.add(sub)
    asks = FullViews()  # (a loop of asks: one full view every FULL_EVERY seconds at most)
    chatter = Chatter()  # (a flood of messages: the socket is closed)
    timer: asyncio.TimerHandle | None = None
    moving = 0  # (inline) the seat's moves under way
    owed: list[str] = []  # (inline) the replies of moves taken, for the next push to carry

    def resend() -> None:
        nonlocal timer
        timer = None
        asks.answered()
        sub.want_full = True
        sub.dirty.set()

    async def drain() -> None:
        nonlocal timer, moving
        try:
            while True:
                msg = await websocket.receive()
                if msg["type"] == "websocket.disconnect":
                    return
                if inline:
                    moving += 1
                try:
                    reply, taken = await answer_message(msg.get("text") or "", move)
                finally:
                    if inline:
                        moving -= 1
                        sub.dirty.set()  # the pushes held back meanwhile (and the reply, once owed)
                if inline and taken and reply is not None:
                    owed.append(reply)  # (the next push carries it)
                    reply = None
                if reply is not None:
                    await websocket.send_text(reply)
                if taken:  # (the game bounds these: one per decision asked)
                    continue
                if not chatter.take():  # every other message, a refused move too
                    with contextlib.suppress(Exception):
                        await websocket.close(code=4429, reason="too many messages: a socket sends one now and then")
                    return
                if reply is None and sub.delta:  # {"full": true}: the client lost track, start again
                    wait = asks.ask()
                    if wait == 0:
                        resend()
                    elif wait is not None:
                        timer = asyncio.get_running_loop().call_later(wait, resend)
        except (WebSocketDisconnect, RuntimeError):
            return
        finally:
            if timer is not None:
                timer.cancel()
            sub.closed = True
            sub.dirty.set()

    reader = asyncio.create_task(drain())
    try:
        while True:
            await sub.dirty.wait()
            if sub.closed:
                break
            sub.dirty.clear()
            if moving:  # (inline) the move's end wakes this loop again: its push carries the reply
                continue
            text = await hub.push(room, sub)
            if owed:  # (taken before this view was made: it shows them)
                replies = owed[:]
                owed.clear()
                for alone in replies[:-1]:
                    await websocket.send_text(alone)
                text = carry(replies[-1], text)
            if text is not None:
                await websocket.send_text(text)
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass
    finally:
        hub.leave(room, sub)
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await reader
        if websocket.application_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await websocket.close()


def carry(reply: str, text: str | None) -> str:
    """A move's reply and the push ``text`` (both JSON objects) as one object; the reply alone without a push."""
    return reply if text is None else reply[:-1] + "," + text[1:]


async def answer_message(text: str, move: Callable[[moves.SocketMove], Awaitable[None]]) -> tuple[str | None, bool]:
    """The reply to a socket's message and whether it was a move taken. A move is answered
    ``{"reply": id, "ok": true}``, or refused with the status and message its POST route answers with (nothing
    changed); ``{"full": true}`` has no reply; anything else is refused with ``"reply": null``."""
    ident: int | None = None
    try:
        m = moves.read_socket_message(text)
        if m is None:
            return None, False
        ident = m.id
        await move(m)
    except ApiError as err:
        reply = err.reply if isinstance(err, moves.SocketError) else ident
        message = err.message if len(err.message) <= MAX_ERROR else err.message[:MAX_ERROR] + "…"
        return dumps({"reply": reply, "status": err.status, "error": message}), False
    return dumps({"reply": ident, "ok": True}), True


@functools.cache
def deck_players(ruleset: str, deck_id: str) -> int:
    from werewolf.core.game import Game, Setup
    from werewolf.web.state import seat_count

    return seat_count(Game(Setup(ruleset, deck=deck_id)))


@functools.cache
def decks_json(lang: str) -> dict[str, Any]:
    from werewolf.agents.heuristic import ONE_NIGHT
    from werewolf.i18n import has, role_name, t
    from werewolf.rulesets import MODULES, get_ruleset
    from werewolf.web.seats import BOTS

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
            # The create page's choice says what each kind does (the short word is the terminal's).
            "bot_kinds": [{"id": k, "name": t(f"ui.bot_kinds.{k}", lang) if has(f"ui.bot_kinds.{k}", lang)
                           else t(f"ui.bots.{k}", lang)} for k in BOTS],
            "labels": {"bot_kind": t("ui.bot_kind", lang), "discussion": t("ui.talk_length", lang)}}
