"""Several servers, one service: every ``werewolf serve`` on one PostgreSQL database serves every room.

The append-only log in the database stays the truth; each server keeps in memory the
rooms its clients watch (``werewolf.web.hub``), as a single server does, and:

- **writes through the database.** A change made on a server's copy is committed as
  before; the store refuses it (``StaleWrite``) when another server stored answers first.
  The server then puts its copy back, catches up from the database (the new answers
  replayed onto its game) and tries the change again from the start, checks included
  (``Cluster.again``): an answer still legal is stored after the others, one that is not
  gets the usual clear error. A refusal that may come from a copy a moment behind (not
  your turn, an illegal move, a seat just taken) is checked again the same way.
- **hears the others' changes.** Every write announces its room at commit
  (``werewolf.web.store.announce``: PostgreSQL's NOTIFY, sent only when the transaction
  commits); each server LISTENs on one connection of its own and, for a room it holds,
  reads what is new (answers, seats, status, the pacer's count, the discussion's end) and
  pushes the changed views to its sockets. A room that enters a server's memory is
  caught up once more, so that nothing announced while it was being loaded is missed; and
  every few ticks the rooms it follows are checked against their rows (``Cluster._recheck``),
  so that a copy an announcement did not bring up to date (a catch-up whose read failed)
  is not left behind, with its phones, until the room's next change.
- **lets one server drive each room's clock**: the pacer's releases, the bots, the
  timeouts. The owner is the server holding the room's session-level advisory lock
  (``pg_try_advisory_lock``), taken by the server that creates or first loads the room;
  the others only follow, their pacer set to the count the owner stored. A server that
  dies (even by SIGKILL) loses its database session and with it its locks: at its next
  tick, another server holding the room takes the lock and drives on from the stored
  state (the pacer's count is stored with the answers, and an open night step is played
  out again with a new duration, as after a restart); a room no server holds is adopted
  (loaded and claimed) by a server that finds it without owner.

Why LISTEN/NOTIFY and not Redis pub/sub: no second server to run and keep up; a NOTIFY
is transactional (delivered only if and when the change commits, so no server hears of
an answer that is not stored); and the log it announces is already in PostgreSQL.
SQLite serves one process only (``werewolf serve --workers`` refuses it).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import os
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from werewolf.core.errors import IllegalMove
from werewolf.core.game import Game, _from_json
from werewolf.printable import scrub_json
from werewolf.web import pack as wolfpack
from werewolf.web.errors import ApiError, Behind
from werewolf.web.homes import hash64, worker_key
from werewolf.web.pacing import Pacer
from werewolf.web.store import CHANNEL, RoomRecord, Store, answers, libpq_url, players, rooms, timed_out_of, writer

if TYPE_CHECKING:
    import psycopg

    from werewolf.web.hub import Hub
    from werewolf.web.room import Room

log = logging.getLogger("werewolf.web")

ATTEMPTS = 8  # times a change is tried again on a room caught up with the database
ADOPT_EVERY = 5  # ticks between two looks for rooms no server drives
UNFINISHED = ("lobby", "playing")


def lock_key(room_id: str) -> int:
    """The room's advisory lock: a signed 64-bit hash of its id."""
    return hash64(room_id)


def _signed(key: int) -> int:
    return key - (1 << 64) if key >= 1 << 63 else key


@dataclass
class Fresh:
    """What the database holds of a room beyond a server's copy."""

    status: str
    bots: list[int]
    paced: int | None
    talk_ends: float | None
    seats: dict[int, tuple[str, str]] | None  # seat -> (name, token hash); None: not read (taken at the start)
    answers: list[tuple[int, str, Any]]  # the answers from the copy's count on
    pack: str | None = None  # the pack's picks, chat and buttons as stored (``werewolf.web.pack``)
    heard: int | None = None  # face to face: the voice's lines spoken (``werewolf.web.voice``)
    next_id: str | None = None  # the series' next game (``werewolf.web.lobby``)
    timed_out: str | None = None  # the speeches the speech timer ended, as stored (``werewolf.web.timers``)


def read(room_id: str, since: int, seats: bool = True) -> Callable[[Connection], Fresh | None]:
    """The room's row, seats (if ``seats``) and answers from ``since`` on (None: no such room). The row is
    read first: the answers read after it are at least those its pacer's count speaks of."""
    def run(conn: Connection) -> Fresh | None:
        row = conn.execute(select(rooms.c.status, rooms.c.bots, rooms.c.paced, rooms.c.talk_ends, rooms.c.pack,
                                  rooms.c.heard, rooms.c.next_id, rooms.c.timed_out)
                           .where(rooms.c.id == room_id)).first()
        if row is None:
            return None
        taken = {p.seat: (p.name, p.token_hash)
                 for p in conn.execute(select(players.c.seat, players.c.name, players.c.token_hash)
                                       .where(players.c.room_id == room_id))} if seats else None
        new = [(a.seat, a.act, scrub_json(json.loads(a.value))) for a in conn.execute(
            select(answers.c.seat, answers.c.act, answers.c.value)
            .where(answers.c.room_id == room_id, answers.c.idx >= since).order_by(answers.c.idx))]
        return Fresh(row.status, json.loads(row.bots), row.paced, row.talk_ends, taken, new, row.pack, row.heard,
                     row.next_id, row.timed_out)
    return run


def _plain_json(value: Any) -> Any:
    """``value`` as JSON reads it back (a tuple held in memory is the list stored)."""
    return json.loads(json.dumps(value))


def take(game: Game, seat: int, act: str, value: Any) -> None:
    """One stored answer onto the game, as ``Game.replay`` takes it."""
    for d in game.pending(seat):
        if d.act == act:
            game.answer_value(d, _from_json(value))
            return
    raise IllegalMove(game.phase, seat, act, "the stored answer does not match this game")


class Cluster:
    """This server's part in a cluster: its LISTEN connection, its locks, the rooms it owns."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.url = libpq_url(hub.store.url)
        self.name = f"werewolf {socket.gethostname()} {os.getpid()}"  # application_name: whose locks these are
        self.owned: set[str] = set()
        self._locks: psycopg.AsyncConnection[Any] | None = None
        self._locks_busy = asyncio.Lock()
        self._listener: asyncio.Task[None] | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._wanted: set[str] = set()  # rooms announced whose catch-up has not begun
        # Rooms this server follows that were behind their row at the last look (``_recheck``): the row then.
        self._behind: dict[str, tuple[Any, ...]] = {}
        self.missed = 0  # catch-ups no announcement brought (``_recheck``: for the logs)
        self.listening = asyncio.Event()
        # Catch-ups read on connections of their own, not in the store's writer thread: a read need not wait
        # for the commit (and its flush to disk) of a batch of writes.
        self._readers = concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="werewolf-catch-up")
        self._reading = threading.local()  # each reader's connection, kept (no checkout and ping per read)
        self._read_conns: list[Connection] = []
        self.conflicts = 0  # changes made again because another server wrote first (for the logs)
        self.said_alive = False  # a worker of ``serve --workers``: it holds its ``worker_key`` (``_say_alive``)
        # A worker of ``serve --workers``: the workers alive (each holds its ``worker_key``), as last seen.
        self.homes_alive: set[int] = set(range(hub.place.count)) if hub.place is not None else set()

    # -- life -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Listen first (nothing committed from now on is missed), then take the lock session."""
        self._listener = asyncio.create_task(self._listen())
        await asyncio.wait_for(self.listening.wait(), 30)
        await self._connect_locks()
        await self._say_alive()
        self._ticker = asyncio.create_task(self._tick())

    async def stop(self) -> None:
        for task in (self._ticker, self._listener):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self._locks is not None:
            with contextlib.suppress(Exception):
                await self._locks.close()  # the session ends: every room's lock goes with it
        self._locks = None
        self.owned.clear()
        self._readers.shutdown(wait=True)
        for conn in self._read_conns:
            with contextlib.suppress(Exception):
                conn.close()
        self._read_conns.clear()
        if self.conflicts:
            log.info("cluster: %d change(s) made again after another server wrote first", self.conflicts)
        if self.missed:
            log.warning("cluster: %d room(s) caught up that no announcement had brought", self.missed)

    async def _connect_locks(self) -> None:
        import psycopg

        self._locks = await psycopg.AsyncConnection.connect(self.url, autocommit=True, application_name=self.name)
        self.owned.clear()
        self.said_alive = False

    async def _say_alive(self) -> None:
        """A worker of ``serve --workers`` says it is alive (its rooms' home) by holding its lock; tried at
        every tick until it holds it (the session of the process it replaces may not be gone yet)."""
        place = self.hub.place
        if place is not None and not self.said_alive:
            got = await self._query("SELECT pg_try_advisory_lock(%s)", (worker_key(place.index),))
            self.said_alive = bool(got and got[0][0])

    async def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """A statement on the lock session (one at a time); a broken session loses every lock held."""
        async with self._locks_busy:
            try:
                if self._locks is None or self._locks.closed:
                    await self._connect_locks()
                assert self._locks is not None
                cur = await self._locks.execute(sql, params)  # type: ignore[arg-type]
                return list(await cur.fetchall()) if cur.description else []
            except Exception:
                self.owned.clear()
                if self._locks is not None:
                    with contextlib.suppress(Exception):
                        await self._locks.close()
                self._locks = None
                raise

    # -- ownership --------------------------------------------------------------------------
    def owns(self, room_id: str) -> bool:
        return room_id in self.owned

    async def _try_locks(self, ids: Sequence[str]) -> list[str]:
        """The rooms among ``ids`` whose lock this server took now (it held none of them)."""
        if not ids:
            return []
        by_key = {lock_key(i): i for i in ids}
        got = await self._query("SELECT k FROM unnest(%s::bigint[]) AS k WHERE pg_try_advisory_lock(k)",
                                (list(by_key),))
        taken = [by_key[k] for (k,) in got]
        # A lock taken twice in one session is held twice: one claimed meanwhile by another task of this
        # server (the statements run one at a time) is given back once.
        twice = [i for i in taken if i in self.owned]
        taken = [i for i in taken if i not in twice]
        self.owned.update(taken)
        if twice:
            await self._query("SELECT pg_advisory_unlock(k) FROM unnest(%s::bigint[]) AS k",
                              ([lock_key(i) for i in twice],))
        return taken

    async def _unlock(self, ids: Sequence[str]) -> None:
        self.owned.difference_update(ids)
        if ids:
            await self._query("SELECT pg_advisory_unlock(k) FROM unnest(%s::bigint[]) AS k",
                              ([lock_key(i) for i in ids],))

    async def _orphans(self) -> list[str]:
        """The unfinished rooms whose lock no server holds (a worker's: those whose home it is, or whose
        home is not alive)."""
        held = {_signed((int(c) << 32) | int(o)) for c, o in await self._query(
            "SELECT classid, objid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")}
        place = self.hub.place
        if place is not None:
            self.homes_alive = {i for i in range(place.count) if worker_key(i) in held}
        ids = [r for (r,) in await self._query("SELECT id FROM rooms WHERE status = ANY(%s)", (list(UNFINISHED),))]
        return [i for i in ids if lock_key(i) not in held and self.may_claim(i)]

    def may_claim(self, room_id: str) -> bool:
        """Whether this server takes the room when no server drives it: any server may, but a worker of
        ``serve --workers`` leaves a room to its home while that worker is alive (its phones are there)."""
        place = self.hub.place
        return place is None or place.is_home(room_id) or place.home(room_id) not in self.homes_alive

    def strays(self, room: Room) -> bool:
        """A worker's copy of a room that is not its home and that its home can take (``Hub.sweep``
        lets it go once no socket of this process watches it)."""
        return not self.may_claim(room.id)

    async def let_go(self, room_id: str) -> None:
        """The room is no longer this server's to drive (it left memory): its lock is given back."""
        if room_id in self.owned:
            await self._unlock([room_id])

    async def adopt(self) -> list[RoomRecord]:
        """The unfinished rooms no server holds and this one does not have, claimed and loaded."""
        ids = [i for i in await self._orphans() if i not in self.hub.rooms and i not in self.owned]
        taken = await self._try_locks(ids)
        if not taken:
            return []
        return await self.hub.store.submit(Store.load(taken))

    def entered(self, room: Room) -> None:
        """A room came into memory: catch it up once (an announcement may have come while it was loaded),
        and claim it if no server owns it."""
        if self.hub.closing:
            return
        with contextlib.suppress(Exception):
            self.hub._spawn(self._entered(room))

    async def _entered(self, room: Room) -> None:
        await self.catch_up(room)
        if room.status in UNFINISHED and not self.owns(room.id) and self.may_claim(room.id):
            try:
                if await self._try_locks([room.id]):
                    await self._took(room)
            except Exception as err:  # noqa: BLE001 - the next tick tries again
                log.warning("room %s: could not claim it: %s", room.id, err)

    async def _took(self, room: Room) -> None:
        """This server owns the room now: its copy caught up, its pacer restarted from the stored count (an
        open step played out again), and the room driven on."""
        hub = self.hub
        async with room.lock:
            if hub.rooms.get(room.id) is not room:
                return
            await self.catch_up_locked(room)
            room.pacer = Pacer(room.pace, room.game.events, room.pacer.released, hub.clock(), room.rng)
        if room.status == "playing":
            log.info("room %s: this server drives it now", room.id)
            hub._spawn(hub.pace_room(room))

    async def _tick(self) -> None:
        n = 0
        while not self.hub.closing:
            await asyncio.sleep(self.hub.tick)
            n += 1
            try:
                await self._claim_and_release(adopt=n % ADOPT_EVERY == 0)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # noqa: BLE001 - the database may be away for a moment
                log.warning("cluster: %s: %s", type(err).__name__, err)

    async def _claim_and_release(self, *, adopt: bool) -> None:
        hub = self.hub
        await self._say_alive()
        gone = [i for i in self.owned if (r := hub.rooms.get(i)) is None or r.status not in UNFINISHED]
        await self._unlock(gone)
        free = [i for i, r in hub.rooms.items() if r.status in UNFINISHED and i not in self.owned
                and self.may_claim(i)]
        for room_id in await self._try_locks(free):
            room = hub.rooms.get(room_id)
            if room is not None:
                await self._took(room)
        if adopt and not hub.closing:
            await self._recheck()
            for rec in await self.adopt():
                room = hub._make(rec)  # (the copy a request loaded meanwhile, if one did: its sockets watch it)
                if room is not None:
                    await self._took(room)

    async def _recheck(self) -> None:
        """The rooms this server follows (held, not owned, unfinished) whose row is ahead of the copy (answers
        stored, events released, status) at two looks in a row are caught up, and the miss is logged: what
        an announcement should have brought but did not (a catch-up whose read failed, say), which would
        otherwise leave the copy, and its phones, where they were until the room's next change. (Behind at
        one look only is an announcement still on its way.)"""
        hub = self.hub
        held = {i: r for i, r in hub.rooms.items()
                if r.status in UNFINISHED and i not in self.owned and i not in self._wanted}
        rows = await self._query("SELECT id, answers_stored, paced, status FROM rooms WHERE id = ANY(%s)",
                                 (list(held),)) if held else []
        behind: dict[str, tuple[Any, ...]] = {}
        for room_id, stored, paced, status in rows:
            room = held[room_id]
            if hub.rooms.get(room_id) is not room or room.lock.locked():
                continue
            row = (stored, paced, status)
            if (stored is not None and stored > room.committed) or paced != room.stored_paced or status != room.status:
                if self._behind.get(room_id) == row:
                    self.missed += 1
                    log.warning("room %s: behind the database with no announcement heard (%d answers of %s, "
                                "status %s of %s); caught up", room_id, room.committed, stored, room.status, status)
                    self._want(room_id)
                else:
                    behind[room_id] = row
        self._behind = behind

    # -- hearing the others -----------------------------------------------------------------
    async def _listen(self) -> None:
        import psycopg

        first = True
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.url, autocommit=True,
                                                                 application_name=self.name) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    if not first:  # what was announced while not listening: every room is read again
                        for room in list(self.hub.rooms.values()):
                            self._want(room.id)
                    first = False
                    me = writer()
                    async for note in conn.notifies():
                        room_id, _, rest = note.payload.partition(" ")
                        if rest.rpartition(" ")[2] != me:
                            self._want(room_id)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # noqa: BLE001 - listen again
                log.warning("cluster: listening stopped (%s: %s); again in a second", type(err).__name__, err)
                await asyncio.sleep(1.0)

    def _want(self, room_id: str) -> None:
        """Catch the room up if this server holds it (once for a burst of announcements)."""
        room = self.hub.rooms.get(room_id)
        if room is None or room_id in self._wanted or self.hub.closing:
            return
        self._wanted.add(room_id)
        try:
            self.hub._spawn(self.catch_up(room))
        except Exception:  # noqa: BLE001 - stopping
            self._wanted.discard(room_id)

    async def catch_up(self, room: Room) -> bool:
        async with room.lock:
            return await self.catch_up_locked(room)

    async def catch_up_locked(self, room: Room) -> bool:
        """Bring the copy (lock held) up to what the database holds; True if anything moved. The views
        that changed are pushed; the owner drives the room on from there."""
        hub = self.hub
        self._wanted.discard(room.id)
        if hub.rooms.get(room.id) is not room:
            return False
        # The seats are read while the copy is a lobby's: no seat is taken once the game has started.
        fresh = await asyncio.get_running_loop().run_in_executor(self._readers, self._read, room.id, room.committed,
                                                                 room.status == "lobby")
        if fresh is None:
            return False
        try:
            moved = self._apply(room, fresh)
        except (IllegalMove, ValueError, KeyError) as err:
            log.error("room %s: its copy does not match the database (%s); reloaded", room.id, err)
            hub._drop(room)
            return True
        if not moved:
            return False
        if room.status == "closed":
            hub._drop(room)
            return True
        room.changed()
        if hub.drives(room) and room.status == "playing":
            hub._spawn(hub.pace_room(room))  # the others' answers are the owner's to move on from
        return True

    def _read(self, room_id: str, since: int, seats: bool) -> Fresh | None:
        conn: Connection | None = getattr(self._reading, "conn", None)
        if conn is None or conn.closed or conn.invalidated:
            conn = self._reading.conn = self.hub.store.engine.connect()
            self._read_conns.append(conn)
        try:
            with conn.begin():
                return read(room_id, since, seats)(conn)
        except Exception:
            self._reading.conn = None  # a new connection for the next read
            with contextlib.suppress(Exception):
                conn.close()
            raise

    def _apply(self, room: Room, fresh: Fresh) -> bool:
        moved = False
        for seat, act, value in fresh.answers:
            take(room.game, seat, act, value)
            room.committed += 1
            moved = True
        seats = fresh.seats if fresh.seats is not None else {s: (n, room.hashes[s]) for s, n in room.names.items()}
        names = {s: n for s, (n, _) in seats.items()}
        hashes = {s: h for s, (_, h) in seats.items()}
        if names != room.names or hashes != room.hashes or set(fresh.bots) != room.bots \
                or fresh.status != room.status:
            if room.status == "lobby" and fresh.status != "lobby":
                room._agents = None  # made for the bot seats the start settled
            room.names, room.hashes, room.bots = names, hashes, set(fresh.bots)
            room.status = fresh.status
            room.info_version += 1
            moved = True
        if fresh.talk_ends != room.talk_ends:
            room.talk_ends = fresh.talk_ends
            moved = True
        moved = self._apply_table(room, fresh) or moved
        # A follower shows exactly the events the owner has released (and stored); the owner keeps its own
        # pacer, unless the stored count is not its own (another server drove the room meanwhile).
        if fresh.paced != room.stored_paced or (moved and not self.owns(room.id)):
            paced = fresh.paced if fresh.paced is not None or fresh.status != "lobby" else 0
            room.pacer = Pacer(room.pace, room.game.events, paced, self.hub.clock(), room.rng)
            moved = moved or fresh.paced != room.stored_paced
            room.stored_paced = fresh.paced
        return moved

    @staticmethod
    def _apply_table(room: Room, fresh: Fresh) -> bool:
        """What the table's features keep beside the answers, as another server stored it: the pack's picks,
        chat and buttons, the voice's lines heard, the speeches the speech timer ended, the next game of the
        series."""
        moved = False
        if fresh.pack is not None:
            moved = Cluster._apply_pack(room, wolfpack.PackState.from_json(fresh.pack))
        if fresh.heard is not None and fresh.heard != room.voice.stored and fresh.heard > room.voice.heard:
            room.voice.heard = room.voice.stored = fresh.heard
            moved = True
        timed_out = timed_out_of(fresh.timed_out)
        if len(timed_out) > len(room.timed_out):
            room.timed_out = timed_out
            room.stored_timed_out = len(timed_out)
            moved = True
        if fresh.next_id is not None and room.rec.next_id != fresh.next_id:
            room.rec.next_id = fresh.next_id
            room.info_version += 1
            moved = True
        return moved

    @staticmethod
    def _apply_pack(room: Room, theirs: wolfpack.PackState) -> bool:
        """The pack as another server stored it, if it differs from the copy's. Both are first brought to
        the knife the caught-up game holds (``wolfpack.align``): a copy that saw the knife open before
        the stored state did differs from it only there, which is no change to take or to hide. Every
        change a person makes is stored before the room's lock is let go, so what differs still is
        theirs, and newer."""
        mine = room.pack
        reset = wolfpack.align(room, mine)
        if reset:
            mine.bump(reset)
        wolfpack.align(room, theirs)
        if _plain_json(theirs.as_json()) != _plain_json(mine.as_json()):
            theirs.own = dict(mine.own)
            # Every seat of the old or the new state sees its part move; the copy holds what is stored.
            seats = sorted({*mine.picks, *mine.ready, *theirs.picks, *theirs.ready, *mine.seen, *theirs.intents,
                            *(s for line in theirs.chat for s in line.get("to", []))})
            theirs.seen, theirs.version = dict(mine.seen), mine.version
            theirs.bump(seats)
            theirs.stored = theirs.version
            room.pack = theirs
            return True
        return bool(reset)

    # -- changes made again -----------------------------------------------------------------
    async def again(self, room: Room, make: Callable[[], Any]) -> Any:
        """``make()``'s change, tried again on the room caught up with the database while it is refused
        because another server wrote first, or refused in a way a copy a moment behind may explain."""
        for attempt in range(ATTEMPTS):
            last = attempt == ATTEMPTS - 1
            if room.id in self._wanted:  # announced and not yet read: read first, rather than be refused
                await self.catch_up(room)
            try:
                return await self.hub._shielded(make())
            except Behind:  # caught up already
                self.conflicts += 1
                if last:
                    raise
            except IntegrityError:  # a seat taken on another server at the same moment
                if last or not await self.catch_up(room):
                    raise ApiError(409, "the seat was just taken: try again") from None
            except ApiError as err:
                if err.status not in (409, 422) or last or not await self.catch_up(room):
                    raise
        raise AssertionError("unreachable")
