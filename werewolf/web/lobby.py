"""The lobby's seats and the rematch: who sits where before the start, and "play again" at the end.

Seats. Face to face the seat numbers must match where people sit (they decide the speaking
order), so a player taps the seat they sit in (``POST /seat``: their own seat to a free one),
and the host may move anyone, player or bot, to any seat (a taken one: the two swap) and
remove anyone (``POST /remove``), until the game starts. A removed player's token stops
working: its requests get 403 naming why (the removal is stored, so a restart keeps saying
so). Every change is checked first (the token, the host's right, the lobby still open, the
seats in range and occupied or free as needed); a bad request gets a 4xx naming what was
wrong and changes nothing, in memory or in the database: the database is written first
(``Store.seat_lobby``, one transaction, refused if the room is no longer a lobby there), and
memory only once it is stored. Sockets of the seats that changed are closed, so each phone
reconnects with its token and is shown its own seat's view, never another's.

Play again (``POST /again``, host, once the game is over). Each game is its own room record
with its own append-only log, unchanged; games are linked into a series: the new room has the
old one's ``series`` (the first game's id), the next ``game`` number and ``prev``; the old one
gets ``next`` (set once, in the same transaction as the new room's creation: a second "play
again" is refused). The new game has the same players in the same seats (their token hashes
carried over, so phones follow it with the tokens they hold, without joining again), the same
bots, host, mode, language, deck, options, pacing and timers, and a new deal: a fresh secret
seed (``secrets``), stored with the game and never shown before its end. So in a series begun
with a fixed seed (the creator knew the first deal, and every screen said so) the next games are
dealt from secret seeds too, and are no longer marked "fixed deal": a seed derived from the first
one would be known to anyone who read the first game's log once it was over (it shows the seed),
and so would every later deal. By default the
new game starts at once; ``{"start": false}`` leaves it in its lobby, where the host may move
seats first. ``GET /games`` lists the series, each game replayable once over.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import Callable
from typing import Any, Protocol

from fastapi import FastAPI, Header, Request
from pydantic import BaseModel, Field

from werewolf.web.errors import ApiError
from werewolf.web.homes import Place, new_room_id
from werewolf.web.requests import PlayAgain, Remove, SeatMove
from werewolf.web.state import Subscriber
from werewolf.web.store import PlayerRecord, RoomRecord, StaleWrite, Store


class Room(Protocol):
    """A room as the lobby reads and changes it (``werewolf.web.room.Room``): its seats before the start."""

    names: dict[int, str]
    hashes: dict[int, str]
    bots: set[int]
    info_version: int

    @property
    def id(self) -> str: ...
    @property
    def rec(self) -> RoomRecord: ...
    @property
    def status(self) -> str: ...
    @property
    def n(self) -> int: ...
    @property
    def fixed_deal(self) -> bool: ...
    @property
    def lock(self) -> asyncio.Lock: ...
    @property
    def subs(self) -> set[Subscriber]: ...
    def changed(self) -> None: ...


class Hub(Protocol):
    """What the lobby asks of the hub (``werewolf.web.hub.Hub``, the layer above, which it never imports):
    its rooms, store and clock, and its way of running a change under a room's lock to its end."""

    @property
    def rooms(self) -> dict[str, Any]: ...
    @property
    def store(self) -> Store: ...
    @property
    def place(self) -> Place | None: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    def check_open(self, room: Any) -> None: ...
    async def _shielded(self, work: Any) -> Any: ...
    def _room(self, rec: RoomRecord) -> Any: ...
    async def start_game(self, room: Any, fill_with_bots: bool) -> None: ...


class Seated(BaseModel):
    ok: bool = True
    seat: int = Field(description="the seat the moved player or bot now holds")


class Freed(BaseModel):
    ok: bool = True


class NextGame(BaseModel):
    room: str
    game: int = Field(description="its number in the room's series, from 1")
    status: str = Field(description="playing, or lobby with {\"start\": false}")
    url: str = Field(description="its page (the phones of the game before follow by themselves)")


class Game(BaseModel):
    room: str
    game: int
    status: str
    replay: str | None = Field(description="its replay page once it is over")


class Series(BaseModel):
    series: str = Field(description="the id of the series' first game")
    games: list[Game]


def stranger(room: Room, token_hash: str) -> ApiError:
    """The error of a token that is not the host's nor a seat's: named, if the host removed it."""
    gone = room.rec.removed.get(token_hash)
    if gone is not None:
        seat, name = gone
        return ApiError(403, f"the host removed {name} from seat {seat} of this room before the game started: "
                             "this token no longer works; join again to take a seat")
    return ApiError(403, "this token does not belong to this room")


def _check_seat(room: Room, seat: int, what: str) -> None:
    if not 1 <= seat <= room.n:
        raise ApiError(422, f"{what}: seat {seat} does not exist (seats 1 to {room.n})")


def _occupied(room: Room, seat: int) -> bool:
    return seat in room.names or seat in room.bots


async def _reseat(hub: Hub, room: Room, names: dict[int, str], hashes: dict[int, str], bots: set[int],
                  gone: tuple[str, int, str] | None, moved: set[int]) -> None:
    """Store the lobby's new seating, then make it the room's (lock held)."""
    now = hub.clock()
    seated = [PlayerRecord(s, names[s], hashes[s], now) for s in sorted(names)]
    try:
        await hub.store.submit(Store.seat_lobby(room.id, seated, sorted(bots), gone))
    except StaleWrite:
        raise ApiError(409, "the game has started: seats can no longer change") from None
    room.names, room.hashes, room.bots = names, hashes, bots
    if gone is not None:
        room.rec.removed[gone[0]] = (gone[1], gone[2])
    room.info_version += 1
    room.changed()
    for sub in list(room.subs):  # each phone of a moved seat reconnects as the seat its token now holds
        if sub.seat in moved:
            sub.closed = True
            sub.dirty.set()


async def move(hub: Hub, room: Room, host: bool, me: int | None, seat: int | None, to: int) -> int:
    """Move the occupant of ``seat`` (a player: their own, by default) to ``to``; the host may move anyone,
    and swaps with whoever sits in ``to``. Returns the seat the mover now holds."""
    async def run() -> int:
        async with room.lock:
            hub.check_open(room)
            if room.status != "lobby":
                raise ApiError(409, "the game has started: seats can no longer change")
            src = me if seat is None else seat
            if src is None:
                raise ApiError(422, "seat: the host token holds no seat: name the seat to move")
            _check_seat(room, src, "seat")
            _check_seat(room, to, "to")
            if not host and src != me:
                raise ApiError(403, f"you hold seat {me}: only the host may move seat {src}")
            if not _occupied(room, src):
                raise ApiError(409, f"seat {src} is empty: nobody to move")
            if src == to:
                raise ApiError(409, f"seat {src} is already there: nothing to move")
            if _occupied(room, to) and not host:
                raise ApiError(409, f"seat {to} is taken: choose a free seat, or ask the host to swap")
            names, hashes, bots = dict(room.names), dict(room.hashes), set(room.bots)
            a = (names.pop(src, None), hashes.pop(src, None), src in bots)
            b = (names.pop(to, None), hashes.pop(to, None), to in bots)
            bots -= {src, to}
            for where, (name, h, bot) in ((to, a), (src, b)):
                if name is not None and h is not None:
                    names[where], hashes[where] = name, h
                if bot:
                    bots.add(where)
            await _reseat(hub, room, names, hashes, bots, None, {src, to})
            return to
    return int(await hub._shielded(run()))


async def remove(hub: Hub, room: Room, seat: int) -> None:
    """The host frees ``seat``: a bot leaves, a player's token stops working (with a message saying why)."""
    async def run() -> None:
        async with room.lock:
            hub.check_open(room)
            if room.status != "lobby":
                raise ApiError(409, "the game has started: nobody can be removed")
            _check_seat(room, seat, "seat")
            if not _occupied(room, seat):
                raise ApiError(409, f"seat {seat} is empty: nobody to remove")
            names, hashes, bots = dict(room.names), dict(room.hashes), set(room.bots) - {seat}
            name, h = names.pop(seat, None), hashes.pop(seat, None)
            gone = (h, seat, name) if h is not None and name is not None else None
            await _reseat(hub, room, names, hashes, bots, gone, {seat})
    await hub._shielded(run())


async def play_again(hub: Hub, room: Room, start: bool) -> Room:
    """The next game of the room's series, same players and seats, a new deal (started unless ``start`` is
    false)."""
    async def run() -> Room:
        async with room.lock:
            hub.check_open(room)
            if room.status != "over":
                raise ApiError(409, "the game is not over: play again once it has ended")
            if room.rec.next_id is not None:
                raise ApiError(409, f"the next game of this room is already made: {room.rec.next_id}")
            rec = next_record(hub, room)
            try:
                await hub.store.submit(Store.play_again(room.id, rec))
            except StaleWrite:
                raise ApiError(409, "the next game of this room is already made") from None
            room.rec.next_id = rec.id
            new = hub._room(rec)
            hub.rooms[rec.id] = new
            room.info_version += 1
            room.changed()  # every phone of the old game is told where the next one is, and follows
            return new
    new: Room = await hub._shielded(run())
    if start:
        await hub.start_game(new, False)
    return new


def next_record(hub: Hub, room: Room) -> RoomRecord:
    old = room.rec
    game_no = old.game_no + 1
    setup = dict(old.setup)
    # Secret, whatever the first game's was: nothing any game showed (its log shows its seed once it is
    # over) may tell the next deal, and the creator of a fixed deal does not know this one.
    setup["seed"] = secrets.randbits(63)
    room_id = new_room_id(hub.rooms, hub.place)  # the series stays with this process (werewolf.web.routing)
    now = hub.clock()
    return dataclasses.replace(
        old, id=room_id, created=now, status="lobby", setup=setup, bots=sorted(room.bots), talk_ends=None,
        paced=0, fixed_deal=False, series_id=old.series_id or old.id, game_no=game_no, prev_id=old.id,
        next_id=None,
        players=[PlayerRecord(s, room.names[s], room.hashes[s], now) for s in sorted(room.names)],
        removed={}, answers=[], pack=None, heard=None)  # the pack's and the voice's state are the old game's


def install(app: FastAPI, room_of: Any, who: Any, bearer: Any, hosted: Any, base_url: Any,
            errors: dict[int | str, dict[str, Any]]) -> None:
    """The lobby's routes: ``/seat``, ``/remove``, ``/again``, ``/games`` (the app's own helpers passed in:
    the room of an id, the caller of a token, the host's room, the link's base)."""

    def hub_of(request: Request) -> Hub:
        return request.app.state.hub  # type: ignore[no-any-return]

    @app.post("/api/rooms/{room_id}/seat", response_model=Seated, responses=errors, tags=["rooms"])
    async def take_seat(request: Request, room_id: str, body: SeatMove,
                        authorization: str | None = Header(None)) -> Seated:
        """Before the start: a player moves to the free seat they sit in (``to``); the host moves anyone
        (``seat``) to any seat, swapping with whoever sits there."""
        hub = hub_of(request)
        room = await room_of(hub, room_id)
        host, me = who(request, room, bearer(authorization))
        seat = await move(hub, room, host, me, body.seat, body.to)
        return Seated(seat=seat)

    @app.post("/api/rooms/{room_id}/remove", response_model=Freed, responses=errors, tags=["rooms"])
    async def remove_seat(request: Request, room_id: str, body: Remove,
                          authorization: str | None = Header(None)) -> Freed:
        """Before the start, the host frees a seat: a bot leaves, or a player, whose token then stops working."""
        hub, room = await hosted(request, room_id, authorization, "only the host may remove a player or a bot")
        await remove(hub, room, body.seat)
        return Freed()

    @app.post("/api/rooms/{room_id}/again", status_code=201, response_model=NextGame, responses=errors,
              tags=["rooms"])
    async def again(request: Request, room_id: str, body: PlayAgain | None = None,
                    authorization: str | None = Header(None)) -> NextGame:
        """Once the game is over, the host starts the next one: same players and seats, a new deal. The
        phones of the finished game are told (``room.next``) and follow with the tokens they hold."""
        hub, room = await hosted(request, room_id, authorization, "only the host may start the next game")
        new = await play_again(hub, room, body.start if body is not None else True)
        return NextGame(room=new.id, game=new.rec.game_no, status=new.status, url=f"{base_url(request)}/r/{new.id}")

    @app.get("/api/rooms/{room_id}/games", response_model=Series, responses=errors, tags=["rooms"])
    async def games(request: Request, room_id: str) -> Series:
        """Every game of the room's series, in order, each replayable once over (``/replay/{room}``)."""
        hub = hub_of(request)
        room = await room_of(hub, room_id)
        series = room.rec.series_id or room.id
        rows = await hub.store.submit(Store.series(series))
        return Series(series=series, games=[
            Game(room=rid, game=no, status=status, replay=f"/replay/{rid}" if status == "over" else None)
            for rid, no, status in rows])
