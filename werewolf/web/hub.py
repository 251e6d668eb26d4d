"""The hub: the digital moderator's memory of every table, between the API and the store.

A ``Room`` (``werewolf.web.room``) holds one game (``werewolf.core.game.Game``), the seats' names and
token hashes, the seats bots play, the sockets watching it and its pacer
(``werewolf.web.pacing``: which of the game's events are out). The ``Hub`` holds
every room and does every change (``Hub._change``) the same way, under the room's lock:

1. apply the change to the game in memory (an illegal move raises and changes nothing),
2. drive the room: the pacer releases what is due by the clock, the bots answer what
   they owe (inside a night step, only once its time is over), again while either moves;
   1 and 2 run in the hub's one worker thread, never on the event loop,
3. commit the new answers and the pacer's released count (``Store.progress``), one
   transaction, and only then
4. publish: bump the room's version and wake every socket, which sends its
   seat's view; and wake the room again when its pacer is next due.

Nobody can read the room between 1 and 3 (views are computed under the same
lock), so nobody is ever told the result of an answer that is not stored. Every
change runs as a task of the hub's, shielded from its caller (a request that
disconnects, the tick that stops): it is never cut between its commit and the
room's record of what is stored (``Commit``), which would leave memory behind the
database and the next change writing over it; and the store checks each commit's
first answer index against the answers it holds. If anything
fails between 1 and 3 (the engine, a bot, the clock, the database), the room is put
back as it was (``Room.restore``: the game replayed from the committed answers) and
the caller gets an ``ApiError``; the database holds nothing of it.

Timeouts: a decision a person owes gets its default (``Game.decline``: no
action, abstain, or the first legal option where the rules force a choice) once
it has been open for the room's timeout (``--timeout``, or the room's
``timeout``; 0 waits for ever). The clock of a decision starts when the server
first sees it open, so after a restart every open decision has its full time
again.

Lifecycle: memory holds only the rooms in use, so a server that runs for weeks
stays the same size. A finished game leaves memory once no phone watches it
(``UNWATCHED`` seconds after its end, its last request or its last socket's close,
so that a phone that reconnects finds it), or ``keep_finished`` seconds after that
while a socket still watches it; it is dropped from memory, not from the database:
the next request replays it from its stored answers and is answered exactly as before.
A lobby nobody starts is closed ``lobby_idle`` seconds after its creation or its last
join: its row is marked ``closed`` (kept, so that its link answers 410 "expired" rather
than 404), it leaves memory, and it can be neither joined nor started. At start only
lobbies and games on are loaded; idle lobbies are closed first by one UPDATE.
The tick looks only at the rooms in memory.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy.exc import IntegrityError

from werewolf.core.decisions import Decision, Move
from werewolf.core.errors import IllegalMove, WerewolfError
from werewolf.core.game import Game, Setup
from werewolf.web import pacing, timers
from werewolf.web import pack as wolfpack
from werewolf.web.errors import ApiError, Behind
from werewolf.web.homes import Place, new_room_id
from werewolf.web.pacing import Pace
from werewolf.web.probe import probe
from werewolf.web.requests import clean_name, name_key
from werewolf.web.room import Room
from werewolf.web.seats import BOTS, DEFAULT_BOT, check_bot_kinds
from werewolf.web.state import Subscriber, new_token, seat_count, token_hash
from werewolf.web.store import PlayerRecord, RoomRecord, StaleWrite, Store
from werewolf.web.voice import VoiceAck

log = logging.getLogger("werewolf.web")

MODES = ("online", "face_to_face")
KEEP_FINISHED = 1800.0  # seconds a finished game a phone watches stays in memory after its end or last request
# Seconds a finished game no phone watches stays (a phone that reconnects, every 0.5-2.5 s, finds it in memory).
# Later, bringing it back costs a load and a replay (2.6 ms for a classic9 game on the development VM); longer,
# a server whose games end fast held them all whole (30 s at 60 games a second: 1,800 rooms, issue 29).
UNWATCHED = 10.0
STRAY = 10.0  # seconds a worker keeps, unwatched and unasked, a room whose home is another (werewolf.web.routing)
LOBBY_IDLE = 86400.0  # seconds a lobby lives after its creation or its last join (0: for ever)
CLOSED = "closed"  # the status of an expired lobby
STOP_WAIT = 30.0  # seconds a stopping server waits for the changes under way to be stored
SHUTTING_DOWN = "the server is shutting down: nothing changed, try again in a moment"


class Peers(Protocol):
    """The other servers of a cluster, as the hub sees them (``werewolf.web.cluster.Cluster``, the transport
    around the hub: it imports the hub, never the reverse)."""

    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    async def adopt(self) -> list[RoomRecord]: ...
    def entered(self, room: Room) -> None: ...
    def owns(self, room_id: str) -> bool: ...
    def strays(self, room: Room) -> bool: ...
    async def let_go(self, room_id: str) -> None: ...
    async def catch_up(self, room: Room) -> bool: ...
    async def catch_up_locked(self, room: Room) -> bool: ...
    async def again(self, room: Room, make: Callable[[], Any]) -> Any: ...


class Hub:
    """Every room, the store, the bots and the clock."""

    def __init__(self, store: Store, *, timeout: float = 600.0, tick: float = 1.0,
                 keep_finished: float = KEEP_FINISHED, lobby_idle: float = LOBBY_IDLE,
                 clock: Callable[[], float] = time.time, pace: Pace | None = None,
                 rng: random.Random | None = None, timers: bool = True, place: Place | None = None,
                 cluster: Callable[[Hub], Peers] | None = None) -> None:
        self.store = store
        self.place = place  # a worker of ``serve --workers``: the rooms whose home it is (werewolf.web.routing)
        self.timeout = timeout
        self.tick = tick
        self.keep_finished = keep_finished
        self.lobby_idle = lobby_idle
        self.clock = clock
        self.pace = pace or pacing.DEFAULT_PACE  # the rooms' pacing unless a room sets its own
        self.rng = rng  # the pacer's randomness (None: the server's secret one); tests pass a seeded one
        self.timers = timers  # wake each room when its pacer is due (tests on a fake clock sweep instead)
        self.rooms: dict[str, Room] = {}
        self.broken: dict[str, str] = {}
        self.left = 0  # rooms that have left memory so far (``werewolf.web.runtime.give_back`` watches it)
        self._ticker: asyncio.Task[None] | None = None
        # The engine and the bots run here, one change at a time (a person's answer in a room without bots is
        # applied on the event loop: ``_change``).
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="werewolf-bots")
        self._tasks: set[asyncio.Task[None]] = set()
        self.closing = False  # stopping: no new change is begun, no timer set
        # On PostgreSQL, one server of several (``cluster``: werewolf.web.cluster.Cluster, which the app passes):
        # the others' changes come in, and the clock of a room (pacer, bots, timeouts) is driven by one server
        # only, its owner. The transport is made around the hub: the hub knows it only as ``Peers``.
        self.cluster: Peers | None = None
        if cluster is not None and store.url.startswith("postgresql"):
            self.cluster = cluster(self)

    # -- life -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Close the idle lobbies, reload every live lobby and unfinished game, start the clock."""
        if self.lobby_idle > 0:
            closed = await self.store.submit(Store.close_idle_lobbies(self.clock() - self.lobby_idle))
            if closed:
                log.info("closed %d lobby(ies) idle for over %g hours", closed, self.lobby_idle / 3600)
        if self.cluster is not None:  # only the rooms no other server holds, claimed
            await self.cluster.start()
            records = await self.cluster.adopt()
        else:
            records = await self.store.submit(Store.load(unfinished=True))
        for rec in records:
            room = self._make(rec)
            if room is not None and room.status == "playing":
                async with room.lock:
                    try:
                        await self._change(room)
                    except ApiError as err:
                        log.error("room %s: could not go on after the restart: %s", room.id, err.message)
        log.info("reloaded %d unfinished room(s)", len(records))
        self._ticker = asyncio.create_task(self._tick())

    async def stop(self) -> None:
        """Stop the clock and the timers first, refuse new work, let the changes under way be stored (a
        change is never cut between its commit and the room's record of it), then close the sockets."""
        self.closing = True
        for room in self.rooms.values():
            if room.wake is not None:
                room.wake.cancel()
                room.wake = None
        if self._ticker is not None:
            self._ticker.cancel()  # its timeouts run as tasks of their own: only its waiting is cut
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        while self._tasks:
            _, late = await asyncio.wait(list(self._tasks), timeout=STOP_WAIT)
            if late:
                log.error("%d change(s) still under way after %g s: cut short", len(late), STOP_WAIT)
                for task in late:
                    task.cancel()
                await asyncio.wait(late)
        for room in self.rooms.values():
            for sub in room.subs:
                sub.closed = True
                sub.dirty.set()
        self._worker.shutdown(wait=True)
        if self.cluster is not None:
            await self.cluster.stop()

    def _room(self, rec: RoomRecord) -> Room:
        return Room(rec, self.timeout, self.clock, self.pace, self.rng)

    def _make(self, rec: RoomRecord) -> Room | None:
        try:
            room = self._room(rec)
        except (WerewolfError, KeyError, ValueError, TypeError) as err:
            log.error("room %s cannot be replayed: %s", rec.id, err)
            self.broken[rec.id] = str(err)
            return None
        if self.place is not None and not self.place.is_home(rec.id):
            log.debug("room %s: read by worker %s; its home is worker %d", rec.id, self.place,
                      self.place.home(rec.id))
        return self._keep(room)

    def _keep(self, room: Room) -> Room:
        """The room in memory, unless a copy came in while it was loaded or created (a request, the cluster's
        adoption): that copy stays, as sockets may watch it already, and is the one returned. Replacing it
        would leave those sockets on a room nothing changes any more."""
        held = self.rooms.get(room.id)
        if held is not None:
            return held
        self.rooms[room.id] = room
        if self.cluster is not None:
            self.cluster.entered(room)
        return room

    def drives(self, room: Room) -> bool:
        """Whether this server moves the room on by its clock (pacer, bots, timeouts): alone, or its owner."""
        return self.cluster is None or self.cluster.owns(room.id)

    async def room(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is not None:
            room.used = room.asked = self.clock()
            if self.cluster is not None and room.status == "lobby":  # seats taken on another server
                await self.cluster.catch_up(room)
            return room
        if room_id in self.broken:
            raise ApiError(410, f"room {room_id} cannot be replayed by this version of the engine: "
                                f"{self.broken[room_id]}")
        if len(room_id) > 32:
            raise ApiError(404, f"no room {room_id!r}")
        records = await self.store.submit(Store.load([room_id]))
        room = self.rooms.get(room_id)  # loaded meanwhile
        if room is not None:
            return room
        if not records:
            raise ApiError(404, f"no room {room_id!r}")
        if records[0].status == CLOSED:
            raise self.expired(room_id)
        made = self._make(records[0])
        if made is None:
            return await self.room(room_id)
        return made

    def expired(self, room_id: str) -> ApiError:
        idle = f" for {self.lobby_idle / 3600:g} hours" if self.lobby_idle > 0 else ""
        return ApiError(410, f"room {room_id} has expired: its game was never started and nobody joined it"
                             f"{idle}. Create a new room.")

    def check_open(self, room: Room) -> None:
        """410 for a lobby that expired while its request waited (the link's later requests get it too)."""
        if room.status == CLOSED:
            raise self.expired(room.id)

    # -- rooms ------------------------------------------------------------------------------
    async def create(self, *, ruleset: str, deck: str | list[str] | None, options: dict[str, Any],
                     bots: Iterable[int], seed: int | None, mode: str, lang: str, players: int | None,
                     timeout: float | None, live_speech: bool = True,
                     bot_kind: str = DEFAULT_BOT, pace: Sequence[float] | None = None,
                     speech_time: float | None = None,
                     bot_kinds: Mapping[int, str] | None = None) -> tuple[Room, str]:
        if mode not in MODES:
            raise ApiError(422, f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if bot_kind not in BOTS:
            raise ApiError(422, f"bot_kind must be one of {', '.join(BOTS)}, not {bot_kind!r}")
        try:
            room_pace = self.pace if pace is None else Pace.parse(pace)
        except ValueError as err:
            raise ApiError(422, str(err)) from None
        fixed_deal = seed is not None  # the creator knows the deal: every screen says so
        if seed is None:
            seed = secrets.randbits(63)  # unguessable, and never shown before the end: the seed decides the deal
        setup = Setup(ruleset=ruleset, deck=tuple(deck) if isinstance(deck, list) else deck, options=options,
                      seed=seed, players=players, live_speech=live_speech)
        try:
            game = Game(setup)
        except WerewolfError as err:
            raise ApiError(422, str(err)) from None
        n = seat_count(game)
        bot_seats = sorted(set(bots))
        bad = [s for s in bot_seats if not 1 <= s <= n]
        if bad:
            raise ApiError(422, f"bots: seat(s) {', '.join(map(str, bad))} do not exist (seats 1 to {n})")
        try:
            kinds = check_bot_kinds(bot_kinds or {}, bot_seats)
        except ValueError as err:
            raise ApiError(422, str(err)) from None
        token = new_token()
        while True:
            room_id = new_room_id(self.rooms, self.place)
            rec = RoomRecord(id=room_id, created=self.clock(), status="lobby", setup=setup.as_json(), mode=mode,
                             lang=lang, bots=bot_seats, host_hash=token_hash(token), timeout=timeout,
                             bot_kind=bot_kind, paced=0, pace=room_pace.as_json(), fixed_deal=fixed_deal,
                             speech_time=timers.default_speech(ruleset) if speech_time is None else speech_time,
                             bot_kinds=kinds or None)
            try:
                await self._shielded(self.store.submit(Store.create_room(rec)))
            except IntegrityError:  # the id of a room that is only in the database (finished, or closed)
                continue
            break
        return self._keep(self._room(rec)), token

    async def join(self, room: Room, name: str, seat: int | None) -> tuple[int, str]:
        try:
            name = clean_name(name)
        except ValueError as err:
            raise ApiError(422, f"name: {err}") from None
        return await self._again(room, lambda: self._join(room, name, seat))  # type: ignore[no-any-return]

    async def _join(self, room: Room, name: str, seat: int | None) -> tuple[int, str]:
        async with room.lock:
            self.check_open(room)
            if room.status != "lobby":
                raise ApiError(409, "the game has started: no more seats can be taken")
            if any(name_key(taken) == name_key(name) for taken in room.names.values()):
                raise ApiError(409, f"the name {name!r} is taken in this room: choose another")
            free = room.free_seats()
            if seat is None:
                if not free:
                    raise ApiError(409, "the room is full")
                seat = free[0]
            elif not 1 <= seat <= room.n:
                raise ApiError(422, f"seat {seat} does not exist (seats 1 to {room.n})")
            elif seat not in free:
                raise ApiError(409, f"seat {seat} is taken")
            token = new_token()
            p = PlayerRecord(seat, name, token_hash(token), self.clock())
            await self.store.submit(Store.add_player(room.id, p))
            room.names[seat] = name
            room.hashes[seat] = p.token_hash
            room.info_version += 1
            room.changed()
        return seat, token

    async def start_game(self, room: Room, fill_with_bots: bool) -> None:
        await self._again(room, lambda: self._start_game(room, fill_with_bots))

    async def _start_game(self, room: Room, fill_with_bots: bool) -> None:
        async with room.lock:
            self.check_open(room)
            if room.status != "lobby":
                raise ApiError(409, "the game has already started")
            free = room.free_seats()
            if free and not fill_with_bots:
                raise ApiError(409, f"seat(s) {', '.join(map(str, free))} are empty: wait for players, "
                                    "or start with {\"fill_with_bots\": true}")
            bots = room.bots | set(free)

            def start() -> None:
                room.bots = bots
                room.status = "playing"

            await self._change(room, start, started=True)

    async def act(self, room: Room, seat: int, move: Move) -> None:
        """A person's answer: apply, let the bots follow, commit, publish."""
        await self._again(room, lambda: self._act(room, seat, move))

    async def _act(self, room: Room, seat: int, move: Move) -> None:
        asked = time.perf_counter()
        async with room.lock:
            if probe:
                probe.since("act: lock wait", asked)
            self.check_open(room)
            if room.status == "lobby":
                raise ApiError(409, "the game has not started yet")
            if room.status == "over" or room.over():
                raise ApiError(409, "the game is over")
            if not room.pending(seat):  # a decision not yet shown is not asked (the same words)
                raise ApiError(409, f"not your turn: seat {seat} is not asked for anything now ({room.phase()})")

            def answer() -> None:
                if not wolfpack.take_act(room, seat, move):  # at the knife, a pick (``werewolf.web.pack``)
                    room.game.answer(seat, move)

            await self._change(room, answer)

    async def voice(self, room: Room, ack: VoiceAck) -> int:
        """The moderator device's word (lines spoken, on, off, paused): the table moves on as far as it may.
        Returns the lines said, as the room counts them."""
        await self._again(room, lambda: self._voice(room, ack))
        return room.voice.heard

    async def _voice(self, room: Room, ack: VoiceAck) -> None:
        async with room.lock:
            self.check_open(room)
            if room.rec.mode != "face_to_face":
                raise ApiError(409, "this room is played online: it has no moderator voice")
            # Switched on before the start: it leads from the first line. Or the game is over and the voice
            # says its end: the screens show the end as it is said (``Voice.said``); nothing more to store.
            if room.status in ("lobby", "over"):
                room.voice.hear(ack, self.clock())
                room.changed()
                return
            if room.status != "playing":
                return
            await self._change(room, lambda: room.voice.hear(ack, self.clock()))

    async def decline(self, room: Room, decisions: list[Decision], speeches: list[Decision] | None = None) -> None:
        """Give timed-out decisions their defaults (and move the room on by its clock); ``speeches``: those of
        them the speech timer ends (noted with the room: every log says so)."""
        await self._again(room, lambda: self._decline(room, decisions, speeches or []))

    async def _decline(self, room: Room, decisions: list[Decision], speeches: list[Decision]) -> None:
        async with room.lock:
            if room.status != "playing":
                return

            def take() -> None:
                for d in decisions:  # each still open (a decision may be listed twice, or closed by now)
                    if not room.game.over and any(o is d for o in room.pending(d.seat)) \
                            and not wolfpack.time_up(room, d):  # a wolf's knife: the current pick
                        if any(s is d for s in speeches):
                            room.time_out(d)
                        else:
                            room.game.decline(d)

            await self._change(room, take)

    async def pack_move(self, room: Room, apply: Callable[[], None]) -> None:
        """A wolf's pick or chat line, or an interrupt button (``werewolf.web.pack``): a change like an answer."""
        await self._again(room, lambda: self._pack_move(room, apply))

    async def _pack_move(self, room: Room, apply: Callable[[], None]) -> None:
        async with room.lock:
            self.check_open(room)
            if room.status != "playing" or room.over():
                raise ApiError(409, "the game is not on")
            await self._change(room, apply)

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        """Run ``coro`` as a task of the hub's (a stopping hub waits for it); refused once the hub stops."""
        if self.closing:
            coro.close()
            raise ApiError(503, SHUTTING_DOWN)
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        """A task of the hub's is over: its error is its caller's, and is logged here if the caller went away
        (an ApiError is an answer: it needs no log)."""
        self._tasks.discard(task)
        if task.cancelled():
            return
        err = task.exception()
        if err is not None and not isinstance(err, ApiError):
            log.error("a change of a room failed: %s", type(err).__name__, exc_info=err)

    async def _shielded(self, work: Any) -> Any:
        """``work`` (a coroutine, or an awaitable already under way) carried out to its end even if its caller
        goes away (a request that disconnects, the tick that stops): a change is never cut between its
        commit and the room's record of it, which would leave memory behind the database."""
        task = self._spawn(work) if asyncio.iscoroutine(work) else asyncio.ensure_future(work)
        return await asyncio.shield(task)

    async def _again(self, room: Room, make: Callable[[], Any]) -> Any:
        """The change ``make()`` makes, shielded; in a cluster, made again on the room brought up to date
        when it was refused because another server had written first (``Cluster.again``)."""
        if self.cluster is None:
            return await self._shielded(make())
        return await self.cluster.again(room, make)

    async def _change(self, room: Room, apply: Callable[[], None] | None = None, *, started: bool = False) -> None:
        """Apply a change (lock held): ``apply`` and the room's drive (the pacer, the bots) in the worker
        thread (a room without bots: in the loop's, as its step is short), then the commit, then the
        publication. Whatever fails on the way (the engine, a bot, the clock, the database), the room is put
        back exactly as it was, in memory as in the database (nothing was committed), and the caller gets an
        ``ApiError``."""
        if self.closing:
            raise ApiError(503, SHUTTING_DOWN)
        if self.rooms.get(room.id) is not room:  # dropped meanwhile: the next request reloads it
            raise ApiError(503, "this room was reloaded: nothing changed, try again")
        snap = room.snapshot()
        clock_started = False
        drives = self.drives(room)

        def work() -> None:
            began = time.perf_counter()
            if probe:
                probe.since("change: worker queue", queued)
            if apply is not None:
                try:
                    apply()
                except IllegalMove as err:  # refused by the rules before anything changed
                    raise ApiError(422, str(err)) from None
                except wolfpack.Refused as err:  # not now (the pack's moves), before anything changed
                    raise ApiError(err.status, err.message) from None
            if drives:
                room.drive(self.clock())
            if probe:
                probe.since("change: worker run", began)

        try:
            queued = time.perf_counter()
            if room.bots or started:
                await asyncio.get_running_loop().run_in_executor(self._worker, work)
            else:  # a person's answer in a room without bots: the engine's step is short, the thread hop is not
                work()
            clock_started = drives and room.start_talk_clock()
            write = room.write(started=started, clock=clock_started)
        except ApiError:
            raise
        except Exception as err:
            log.exception("room %s: a change failed; the room is as it was", room.id)
            self._put_back(room, snap)
            raise ApiError(500, f"the server could not apply this ({type(err).__name__}): nothing changed, "
                                "try again") from None
        if write is not None:
            try:
                submitted = time.perf_counter()
                await self.store.submit(write.write)
                if probe:
                    probe.since("change: commit (queue + transaction)", submitted)
            except StaleWrite as err:  # memory does not hold what the database does: the database wins
                if self.cluster is not None:  # another server wrote first: catch up, and the caller tries again
                    self._put_back(room, snap)
                    await self.cluster.catch_up_locked(room)
                    raise Behind(409, "another server changed the room first: try again") from None
                log.error("%s; the room is reloaded from the database", err)
                self._drop(room)
                raise ApiError(503, "the room was out of step with the database: nothing changed, "
                                    "try again") from None
            except Exception:
                log.exception("room %s: commit failed; the room is as it was", room.id)
                self._put_back(room, snap)
                raise ApiError(503, "the database did not store this: nothing changed, try again") from None
        room.committed_now(write)
        if started:
            room.info_version += 1
        try:
            published = time.perf_counter()
            room.changed()
            if probe:
                probe.since("change: publish", published)
        except Exception:  # stored: a view that cannot be made now is made at the next change
            log.exception("room %s: publishing failed", room.id)
        self._schedule(room)

    def _put_back(self, room: Room, snap: tuple[Any, ...]) -> None:
        """The room as it was before a failed change; if even that fails, it leaves memory (its phones
        reconnect, and the next request loads it from the database, which has nothing of the change)."""
        try:
            room.restore(snap)
            room.changed()
        except Exception:
            log.exception("room %s: could not be put back; dropped from memory", room.id)
            room.status = CLOSED if room.status == "lobby" else room.status
            self._drop(room)
            return
        self._schedule(room, not_before=self.tick)  # what failed is tried again, but not in a tight loop

    def _drop(self, room: Room) -> None:
        """The room leaves memory: its phones reconnect and the next request loads it from the database."""
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
            self.left += 1
        if room.wake is not None:
            room.wake.cancel()
            room.wake = None
        for sub in room.subs:
            sub.closed = True
            sub.dirty.set()

    def _schedule(self, room: Room, not_before: float = 0.0) -> None:
        """Wake the room when its pacer is next due (a step's end, a release)."""
        if room.wake is not None:
            room.wake.cancel()
            room.wake = None
        due = room.pacer.due(room.game.events) if room.status == "playing" and self.drives(room) else None
        if due is None or not self.timers or self.closing:
            return
        delay = max(not_before, due - self.clock())
        room.wake = asyncio.get_running_loop().call_later(delay, self._wake, room)

    def _wake(self, room: Room) -> None:
        room.wake = None
        if not self.closing and self.rooms.get(room.id) is room:
            self._spawn(self.pace_room(room))

    async def pace_room(self, room: Room) -> None:
        """The clock's part of a room's change: release what is due, let held bots answer."""
        async with room.lock:
            if room.status != "playing" or self.rooms.get(room.id) is not room:
                return
            try:
                await self._change(room)
            except ApiError as err:
                if not self.closing and not isinstance(err, Behind):
                    log.warning("room %s: pacing: %s", room.id, err.message)

    def leave(self, room: Room, sub: Subscriber) -> None:
        """A socket closed: the room no longer pushes to it (and a finished game's grace starts again)."""
        room.subs.discard(sub)
        room.used = room.asked = self.clock()

    async def view_json(self, room: Room, seat: int | None, host: bool, lang: str | None) -> str:
        async with room.lock:
            self.check_open(room)
            return room.view_json(seat, host, lang)

    async def push(self, room: Room, sub: Subscriber) -> str | None:
        """The socket's view if it changed since the last one it was sent, else None."""
        asked = time.perf_counter()
        async with room.lock:
            built = time.perf_counter()
            text = room.push_json(sub)
            if probe:
                probe.add("push: lock wait", built - asked)
                probe.since("push: build", built)
            return text

    # -- the clock --------------------------------------------------------------------------
    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            await self.sweep()

    async def sweep(self) -> None:
        """One tick: drop the finished games and expired lobbies, take the defaults that are due."""
        now, wall = self.clock(), time.time()  # the rooms' lives on the clock, the decisions' on the wall
        for room_id, room in list(self.rooms.items()):
            if self.closing:
                return
            if self.cluster is not None and self.place is not None and room.status in ("lobby", "playing") \
                    and not room.subs and now - room.asked > STRAY and not room.lock.locked() \
                    and self.cluster.strays(room):
                # Another worker is this room's home (werewolf.web.routing): the copy leaves, and if this
                # process drove it (its home had died), the lock goes back for the home to take.
                log.debug("room %s: let go by worker %s (its home is worker %d)", room_id, self.place,
                          self.place.home(room_id))
                self._drop(room)
                await self.cluster.let_go(room_id)
                continue
            if room.status == "over":
                # Watched, it stays its grace; unwatched, it leaves almost at once (replayed on demand).
                grace = self.keep_finished if room.subs else min(self.keep_finished, UNWATCHED)
                if now - room.used > grace:
                    # Sockets still open keep their (unchanging) room; the next request replays it.
                    del self.rooms[room_id]
                    self.left += 1
                elif not room.subs and not room.lock.locked():
                    room.shed()
                continue
            if room.status == "lobby":
                if self.lobby_idle > 0 and now - room.touched > self.lobby_idle:
                    await self.expire(room)
                continue
            if room.lock.locked() or not self.drives(room):
                continue  # busy: its change moves it on, and the next tick looks again (or another server's)
            due = [d for d, t in room.deadlines.values() if t <= wall]
            if room.speech.warn(now):  # the speaker's warning: every phone is told
                room.info_version += 1
                room.changed()
            speeches = room.speech.due(now)
            paced = room.pacer.due(room.game.events)
            if due or speeches or room.late_turns() or (paced is not None and paced <= now):
                try:
                    await self.decline(room, due + speeches, speeches)
                except ApiError as err:
                    if not self.closing:
                        log.warning("room %s: timeout: %s", room.id, err.message)

    async def expire(self, room: Room) -> None:
        """Close an idle lobby in the database, then drop it; its sockets are told on reconnecting."""
        await self._shielded(self._expire(room))

    async def _expire(self, room: Room) -> None:
        async with room.lock:
            if room.status != "lobby" or self.clock() - room.touched <= self.lobby_idle:
                return  # joined or started while the lock was awaited
            try:
                closed = await self.store.submit(Store.close_lobby(room.id))
            except Exception:
                log.exception("room %s: the lobby could not be closed; tried again at the next tick", room.id)
                return
            if closed:
                room.status = CLOSED
                log.info("room %s: lobby closed after %g hours without a join", room.id, self.lobby_idle / 3600)
            else:  # the database has it otherwise (another server?): the next request loads its row
                log.warning("room %s: not a lobby in the database any more; dropped from memory", room.id)
            if self.rooms.get(room.id) is room:
                del self.rooms[room.id]
                self.left += 1
            for sub in room.subs:
                sub.closed = True
                sub.dirty.set()


if TYPE_CHECKING:
    from werewolf.web import lobby

    def _as_the_lobby_sees_them(hub: Hub, room: Room) -> tuple[lobby.Hub, lobby.Room]:
        """Never called: mypy checks here that the hub is what the lobby asks of it (the lobby's routes get
        the hub untyped, from the app's state)."""
        return hub, room
