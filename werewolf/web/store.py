"""Storage: every room and game as records and an append-only log (SQLAlchemy).

Tables:

- ``rooms``: one row a room: the game's setup (ruleset, deck or seats, options,
  seed) as JSON, the mode, the language, the bot seats and kind, the host token's
  hash, the status (``lobby``, ``playing``, ``over``, or ``closed``: a lobby that
  expired unstarted, kept so that its link says so) and when the one-night
  discussion's time is up (the clock is the server's, not the engine's, so it is
  kept here to survive a restart), how many of the game's events the pacer has
  released (``paced``, written with the answers and at each release, so that a
  restart neither skips nor repeats a night step), the room's pacing (``pace``)
  and whether its creator chose the deal's seed (``fixed_deal``), and the pack's state
  (``pack``: the wolves' tentative picks, their chat, interrupt intents; ``werewolf.web.pack``), and
  which speeches the speech timer ended (``timed_out``; ``werewolf.web.timers``).
- ``players``: one row a taken seat: the name and the player token's hash.
- ``answers``: the game's log of answers, one row each, numbered from 0 in the
  order the engine took them: ``(seat, act, value)`` with ``value`` as JSON.
  Rows are only ever inserted; the primary key ``(room, idx)`` makes a doubled
  answer impossible, and ``progress`` refuses (``StaleWrite``) a change whose first
  index is not the number of answers stored. ``Game.replay(setup, answers)`` rebuilds the game exactly.

Writes go through one writer thread that commits whatever is queued in one
transaction (group commit) and then resolves each caller's future: a caller is
told "stored" only once its rows are committed. Work whose caller went away before
it began is skipped; once begun, it is done. SQLite runs in WAL mode; with
``synchronous=NORMAL`` a commit survives the death of the process (SIGKILL), and
``sync="full"`` also survives a power cut, at the cost of an fsync per batch.

On PostgreSQL every change of a room is also announced (``announce``: a NOTIFY on
``CHANNEL``, sent by the server only when the transaction commits) to the other
servers of a cluster sharing the database (``werewolf.web.cluster``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import logging
import os
import queue
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine

from werewolf.printable import scrub, scrub_json
from werewolf.web.jsontext import dumps
from werewolf.web.probe import probe

T = TypeVar("T")
log = logging.getLogger(__name__)

metadata = MetaData()

rooms = Table(
    "rooms", metadata,
    Column("id", String(32), primary_key=True),
    Column("created", Float, nullable=False),
    Column("status", String(16), nullable=False),
    Column("setup", Text, nullable=False),
    Column("mode", String(16), nullable=False),
    Column("lang", String(16), nullable=False),
    Column("bots", Text, nullable=False),
    Column("host_hash", String(64), nullable=False),
    Column("timeout", Float, nullable=True),
    # Added later (``_add_columns`` brings older databases up to date):
    Column("bot_kind", String(16), nullable=True),  # null: random, the only kind before kinds were stored
    Column("talk_ends", Float, nullable=True),  # when the one-night discussion's time is up (Unix time)
    Column("paced", Integer, nullable=True),  # how many of the game's events the pacer has released (null: all)
    Column("pace", Text, nullable=True),  # the room's pacing, [shortest, longest] step in seconds (null: default)
    Column("fixed_deal", Integer, nullable=True),  # 1: the creator chose the seed (the deal is known)
    Column("pack", Text, nullable=True),  # the pack's picks, chat and interrupt intents (werewolf.web.pack), JSON
    Column("heard", Integer, nullable=True),  # face to face: lines the moderator device has spoken (voice.py)
    Column("speech_time", Float, nullable=True),  # seconds a speech lasts (null or 0: no limit but the timeout)
    # Play again (``werewolf.web.lobby``): each game its own room, linked into a series.
    Column("series_id", String(32), nullable=True),  # the series' first game (null: a game of its own)
    Column("game_no", Integer, nullable=True),  # its place in the series, from 1 (null: 1)
    Column("prev_id", String(32), nullable=True),  # the game before it in the series
    Column("next_id", String(32), nullable=True),  # the game after it (set once, by "play again")
    Column("bot_kinds", Text, nullable=True),  # {"seat": kind} over bot_kind (werewolf.web.seats); null: none
    # How many answers are stored (null: count them; a room stored before this column was): a change is
    # checked against it in the statement that stores it (``Store.progress``).
    Column("answers_stored", Integer, nullable=True),
    # The speeches the speech timer ended (``werewolf.web.timers``), as a JSON list of the indices of their
    # ``speech`` events in the game's log: a timed-out speech's answer is a "done" like any other.
    Column("timed_out", Text, nullable=True),
)
LATER_COLUMNS = ("bot_kind", "talk_ends", "paced", "pace", "fixed_deal", "pack", "heard", "speech_time", "series_id",
                 "game_no", "prev_id", "next_id", "bot_kinds", "answers_stored", "timed_out")

players = Table(
    "players", metadata,
    Column("room_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(64), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("joined", Float, nullable=False),
)

# Tokens of players the host removed from a lobby: their requests are told why, not just "unknown token".
removed = Table(
    "removed", metadata,
    Column("room_id", String(32), primary_key=True),
    Column("token_hash", String(64), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("at", Float, nullable=False),
)

answers = Table(
    "answers", metadata,
    Column("room_id", String(32), primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("act", String(32), nullable=False),
    Column("value", Text, nullable=False),
    Column("at", Float, nullable=False),
)

CHANNEL = "werewolf_rooms"  # PostgreSQL's NOTIFY channel of the rooms' changes (werewolf.web.cluster)
_WRITER: tuple[int, str] = (0, "")
SCHEMA_LOCK = 0x7765726577  # the advisory lock held while a server makes or updates the tables


def writer() -> str:
    """This process's name in the announcements (so that it skips its own): random, new in a forked child."""
    global _WRITER
    if _WRITER[0] != os.getpid():
        _WRITER = (os.getpid(), secrets.token_hex(6))
    return _WRITER[1]


def announce(conn: Connection, room_id: str, answers: int | None = None) -> None:
    """Tell every server listening on the database, once this transaction commits, that the room changed
    (``answers``: how many it has stored then, if known). PostgreSQL only: SQLite serves one process."""
    if conn.dialect.name == "postgresql":
        conn.execute(_NOTIFY, {"channel": CHANNEL, "payload": announcement(room_id, answers)})


def announcement(room_id: str, answers: int | None = None) -> str:
    """The NOTIFY's payload: the room, how many answers it has stored (-1: not known), and who wrote."""
    return f"{room_id} {-1 if answers is None else answers} {writer()}"


_NOTIFY = text("SELECT pg_notify(:channel, :payload)")


def database_url(database: str | None) -> str:
    """A SQLAlchemy URL from ``--database``: a file path (SQLite) or a URL.

    ``postgresql://`` and ``postgres://`` URLs use the psycopg (3) driver.
    """
    if not database:
        database = "werewolf.sqlite"
    if "://" not in database:
        return "sqlite:///" + os.path.abspath(database)
    for prefix in ("postgresql://", "postgres://"):
        if database.startswith(prefix):
            return "postgresql+psycopg://" + database[len(prefix):]
    return database


def libpq_url(url: str) -> str:
    """A SQLAlchemy URL of ``database_url``'s making as libpq (psycopg's own connections) takes it."""
    for prefix in ("postgresql+psycopg://", "postgres+psycopg://"):
        if url.startswith(prefix):
            return "postgresql://" + url[len(prefix):]
    return url


@dataclass
class PlayerRecord:
    seat: int
    name: str
    token_hash: str
    joined: float = 0.0  # Unix time; 0: now, when stored


@dataclass
class RoomRecord:
    id: str
    created: float
    status: str
    setup: dict[str, Any]
    mode: str
    lang: str
    bots: list[int]
    host_hash: str
    timeout: float | None
    bot_kind: str | None = None
    talk_ends: float | None = None
    paced: int | None = None  # events released by the pacer (``werewolf.web.pacing``); None: every one
    pace: list[float] | None = None  # [shortest, longest] night step (seconds); None: the server's default
    fixed_deal: bool = False  # the creator chose the seed: anyone may know the deal
    pack: str | None = None  # the room's pack state as JSON (``werewolf.web.pack``); None: nothing yet
    heard: int | None = None  # face to face: the voice's lines spoken (``werewolf.web.voice``)
    speech_time: float | None = None  # seconds a speech lasts (None or 0: only the decision timeout)
    series_id: str | None = None  # the first game of its series (None: this one)
    game_no: int = 1
    prev_id: str | None = None
    next_id: str | None = None
    bot_kinds: dict[int, str] | None = None  # a kind per bot seat, over ``bot_kind``; None: none
    timed_out: list[int] | None = None  # the speech events of the speeches the speech timer ended
    players: list[PlayerRecord] = field(default_factory=list)
    removed: dict[str, tuple[int, str]] = field(default_factory=dict)  # token hash -> (seat, name) removed
    answers: list[tuple[int, str, Any]] = field(default_factory=list)

    def active(self) -> float:
        """When the room last changed before its start: its creation or its latest join."""
        return max([self.created, *(p.joined for p in self.players)])


_STOP = object()


class StaleWrite(Exception):
    """A room's change made on a memory that does not hold what the database holds (nothing of it is stored)."""


class Store:
    """The database, written by one thread that commits queued writes together."""

    def __init__(self, url: str, *, sync: str = "normal") -> None:
        self.url = url
        self.engine: Engine = _engine(url, sync)
        with self.engine.begin() as schema:
            if schema.dialect.name == "postgresql":  # servers of a cluster starting at once: one at a time
                schema.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
            metadata.create_all(self.engine)
            _add_columns(self.engine)
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._conn: Connection | None = None  # the writer thread's, kept from one transaction to the next
        self._thread = threading.Thread(target=self._run, name="werewolf-store", daemon=True)
        self._thread.start()
        self.batches = 0  # number of transactions committed (for the load figures)

    # -- running work in the writer thread ------------------------------------------------
    def call(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn`` in a transaction of the writer thread and wait for its result."""
        fut: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._queue.put((fn, fut))
        return fut.result()

    def submit(self, fn: Callable[[Connection], T]) -> asyncio.Future[T]:
        """Queue ``fn``; the returned future (of the running loop) resolves once its transaction is committed.

        An asyncio future, settled by the writer in one callback of the loop per transaction: a thread's
        future wrapped for the loop (``asyncio.wrap_future``) costs a lock, a condition and a wake-up of the
        loop for every write, which was a fifth of a live room's change."""
        fut: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.put((fn, fut))
        return fut

    def close(self) -> None:
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join(timeout=10)
        self.engine.dispose()

    def _run(self) -> None:
        try:
            self._serve()
        finally:
            self._forget_connection()

    def _serve(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            batch = [item]
            stop = False
            while len(batch) < 1000:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is _STOP:
                    stop = True
                    break
                batch.append(more)
            # A caller that went away before its work began (a request that disconnected) is not served; one
            # whose work began is told nothing more, but the work is done and stays done.
            batch = [(fn, fut) for fn, fut in batch if _begins(fut)]
            if batch:
                _settle(batch, self._commit(batch))
            if stop:
                return

    def _connection(self) -> Connection:
        """The writer's connection: one for every transaction (a checkout from the pool and its reset on
        return cost more than a small transaction's own work)."""
        if self._conn is None:
            self._conn = self.engine.connect()
        return self._conn

    def _forget_connection(self) -> None:
        """After a failed transaction the connection may be broken (a database restarted): the next
        transaction takes a new one from the pool (which checks it first)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.invalidate()
                conn.close()
            except Exception:  # noqa: BLE001 - already broken: nothing more to release
                log.debug("the writer's connection did not close cleanly", exc_info=True)

    def _transaction(self, batch: list[tuple[Callable[[Connection], Any], Any]]
                     ) -> list[Any]:
        conn = self._connection()
        try:
            with conn.begin():
                return [fn(conn) for fn, _ in batch]
        except StaleWrite:  # refused by the writes' own check, rolled back: the connection is sound
            raise
        except Exception:
            self._forget_connection()
            raise

    def _commit(self, batch: list[tuple[Callable[[Connection], Any], Any]]) -> list[tuple[Any, BaseException | None]]:
        """Each write's result, or the error that refused it."""
        began = time.perf_counter()
        try:
            results = self._transaction(batch)
        except Exception:
            # One bad write must not sink the others: redo them one by one.
            if len(batch) == 1:
                try:
                    return [(self._transaction(batch)[0], None)]
                except Exception as err:  # noqa: BLE001 - handed to the caller
                    return [(None, err)]
            return [outcome for one in batch for outcome in self._commit([one])]
        self.batches += 1
        if probe:
            probe.since("store: transaction", began)
            probe.size("store: writes per transaction", len(batch))
        return [(result, None) for result in results]

    # -- the writes ---------------------------------------------------------------------------
    @staticmethod
    def create_room(rec: RoomRecord) -> Callable[[Connection], None]:
        def run(conn: Connection) -> None:
            conn.execute(insert(rooms).values(
                id=rec.id, created=rec.created, status=rec.status, setup=json.dumps(rec.setup),
                mode=rec.mode, lang=rec.lang, bots=json.dumps(rec.bots), host_hash=rec.host_hash,
                timeout=rec.timeout, bot_kind=rec.bot_kind, talk_ends=rec.talk_ends, paced=rec.paced,
                pace=None if rec.pace is None else json.dumps(rec.pace), fixed_deal=int(rec.fixed_deal),
                speech_time=rec.speech_time, series_id=rec.series_id, game_no=rec.game_no, prev_id=rec.prev_id,
                next_id=rec.next_id, answers_stored=0,  # its answers come with ``progress``
                bot_kinds=None if not rec.bot_kinds else json.dumps({str(k): v for k, v in rec.bot_kinds.items()})))
            for p in rec.players:
                Store.add_player(rec.id, p)(conn)
        return run

    @staticmethod
    def add_player(room_id: str, p: PlayerRecord) -> Callable[[Connection], None]:
        def run(conn: Connection) -> None:
            conn.execute(insert(players).values(room_id=room_id, seat=p.seat, name=p.name,
                                                token_hash=p.token_hash, joined=p.joined or time.time()))
            announce(conn, room_id)
        return run

    @staticmethod
    def seat_lobby(room_id: str, seated: Sequence[PlayerRecord], bots: Sequence[int],
                   gone: tuple[str, int, str] | None = None) -> Callable[[Connection], None]:
        """A lobby's seats as the host or a player rearranged them: every player row written again (a move or
        a swap changes the rows' keys), the bot seats, and a removed player's token hash with why (``gone``:
        hash, seat, name). Refused (``StaleWrite``) if the room is no longer a lobby in the database."""
        def run(conn: Connection) -> None:
            status = conn.execute(select(rooms.c.status).where(rooms.c.id == room_id)).scalar()
            if status != "lobby":
                raise StaleWrite(f"room {room_id}: {status}, not a lobby: its seats cannot change")
            conn.execute(players.delete().where(players.c.room_id == room_id))
            if seated:
                conn.execute(insert(players), [{"room_id": room_id, "seat": p.seat, "name": p.name,
                                                "token_hash": p.token_hash, "joined": p.joined or time.time()}
                                               for p in seated])
            conn.execute(update(rooms).where(rooms.c.id == room_id).values(bots=json.dumps(sorted(bots))))
            if gone is not None:
                conn.execute(insert(removed).values(room_id=room_id, token_hash=gone[0], seat=gone[1], name=gone[2],
                                                    at=time.time()))
            announce(conn, room_id)
        return run

    @staticmethod
    def play_again(prev_id: str, rec: RoomRecord) -> Callable[[Connection], None]:
        """The next game of a series: its room (with its players) and the link from the game before, once
        (``StaleWrite`` if that game already has a next one)."""
        create = Store.create_room(rec)

        def run(conn: Connection) -> None:
            done = conn.execute(update(rooms).where(rooms.c.id == prev_id, rooms.c.next_id.is_(None))
                                .values(next_id=rec.id))
            if not done.rowcount:
                raise StaleWrite(f"room {prev_id} already has a next game")
            create(conn)
            announce(conn, prev_id)  # the other servers' phones of the game before follow too
        return run

    @staticmethod
    def series(series_id: str) -> Callable[[Connection], list[tuple[str, int, str]]]:
        """The games of a series in order: (room id, game number, status)."""
        def run(conn: Connection) -> list[tuple[str, int, str]]:
            q = select(rooms.c.id, rooms.c.game_no, rooms.c.status).where(
                (rooms.c.series_id == series_id) | (rooms.c.id == series_id))
            return sorted(((r.id, r.game_no or 1, r.status) for r in conn.execute(q)), key=lambda x: x[1])
        return run

    @staticmethod
    def set_status(room_id: str, status: str, bots: Sequence[int] | None = None) -> Callable[[Connection], None]:
        def run(conn: Connection) -> None:
            values: dict[str, Any] = {"status": status}
            if bots is not None:
                values["bots"] = json.dumps(sorted(bots))
            conn.execute(update(rooms).where(rooms.c.id == room_id).values(**values))
            announce(conn, room_id)
        return run

    @staticmethod
    def close_lobby(room_id: str) -> Callable[[Connection], bool]:
        """Close a lobby nobody started (True), unless it has started meanwhile (False)."""
        def run(conn: Connection) -> bool:
            done = conn.execute(update(rooms).where(rooms.c.id == room_id, rooms.c.status == "lobby")
                                .values(status="closed"))
            if done.rowcount:
                announce(conn, room_id)
            return bool(done.rowcount)
        return run

    @staticmethod
    def close_idle_lobbies(idle_since: float) -> Callable[[Connection], int]:
        """Close every lobby created and last joined before ``idle_since``; how many."""
        def run(conn: Connection) -> int:
            recent = select(players.c.room_id).where(players.c.joined >= idle_since)
            done = conn.execute(update(rooms).where(rooms.c.status == "lobby", rooms.c.created < idle_since,
                                                    rooms.c.id.not_in(recent)).values(status="closed"))
            return int(done.rowcount)
        return run

    @staticmethod
    def set_talk_ends(room_id: str, ends: float) -> Callable[[Connection], None]:
        def run(conn: Connection) -> None:
            conn.execute(update(rooms).where(rooms.c.id == room_id).values(talk_ends=ends))
            announce(conn, room_id)
        return run

    @staticmethod
    def append_answers(room_id: str, start: int, rows: Sequence[tuple[int, str, Any]],
                       status: str | None = None) -> Callable[[Connection], None]:
        """Answers ``start``, ``start + 1``, ... of a room (and its new status, in the same transaction)."""
        now = time.time()
        values = [(room_id, start + i, seat, act, dumps(value), now) for i, (seat, act, value) in enumerate(rows)]

        def run(conn: Connection) -> None:
            cur, pg = _cursor(conn)
            if values:
                cur.executemany(_sql(_INSERT_ANSWERS, pg), values)
            if status is not None:
                cur.execute(_sql(_SET_STATUS, pg), (status, room_id))
        return run

    @staticmethod
    def stored_answers(conn: Connection, room_id: str) -> int:
        """How many answers of the room are stored (their indices are 0 to this, less one)."""
        last = conn.execute(select(func.max(answers.c.idx)).where(answers.c.room_id == room_id)).scalar()
        return 0 if last is None else int(last) + 1

    @staticmethod
    def progress(room_id: str, start: int, rows: Sequence[tuple[int, str, Any]], *, status: str | None = None,
                 bots: Sequence[int] | None = None, paced: int | None = None,
                 talk_ends: float | None = None, pack: str | None = None,
                 heard: int | None = None, timed_out: Sequence[int] | None = None) -> Callable[[Connection], None]:
        """One change of a live room in one transaction: its new answers (from ``start``), and whatever
        else moved with them (status, bot seats, events released, the discussion's end, the pack's state,
        the speeches the speech timer ended)."""
        answers_of = Store.append_answers(room_id, start, rows)
        values: dict[str, Any] = {}
        if status is not None:
            values["status"] = status
        if bots is not None:
            values["bots"] = json.dumps(sorted(bots))
        if paced is not None:
            values["paced"] = paced
        if talk_ends is not None:
            values["talk_ends"] = talk_ends
        if pack is not None:
            values["pack"] = pack
        if heard is not None:
            values["heard"] = heard
        if timed_out is not None:
            values["timed_out"] = json.dumps(list(timed_out))

        def run(conn: Connection) -> None:
            # The writer's idea of what is stored is checked against what is: a change is stored after the
            # last answer stored, never over it nor after a gap. A change without answers (the pacer's
            # count, the clock) may follow answers stored meanwhile by another server of a cluster: what it
            # says holds of the longer log too (the events it counts are a prefix of that log's).
            cur, pg = _cursor(conn)
            counted = {"answers_stored": start + len(rows)} if rows else {}
            if values or counted:  # the check and the row's update in one statement
                new = {**values, **counted}
                cur.execute(_progress_update(tuple(new), "=" if rows else ">=", pg),
                            (*new.values(), room_id, start))
                done = cur.rowcount == 1
            else:
                done = False
            if not done:  # refused, or a row that does not hold the count yet: the answers are counted
                have = Store.stored_answers(conn, room_id)
                if have != start and not (not rows and have > start):
                    raise StaleWrite(f"room {room_id}: {have} answer(s) stored, the change was made after {start}")
                new = {**values, "answers_stored": have + len(rows)}
                cur.execute(_progress_update(tuple(new), None, pg), (*new.values(), room_id))
            answers_of(conn)
            if pg:
                cur.execute(_NOTIFY_RAW, (CHANNEL, announcement(room_id, start + len(rows))))
        return run

    # -- the reads ------------------------------------------------------------------------------
    @staticmethod
    def load(room_ids: Sequence[str] | None = None, *, unfinished: bool = False
             ) -> Callable[[Connection], list[RoomRecord]]:
        """Rooms with their players and answers: by id, or every unfinished one (lobbies and games on)."""
        def run(conn: Connection) -> list[RoomRecord]:
            q = select(rooms)
            if room_ids is not None:
                q = q.where(rooms.c.id.in_(list(room_ids)))
            if unfinished:
                q = q.where(rooms.c.status.in_(("lobby", "playing")))
            out: dict[str, RoomRecord] = {}
            for r in conn.execute(q.order_by(rooms.c.created)):
                out[r.id] = RoomRecord(id=r.id, created=r.created, status=r.status, setup=json.loads(r.setup),
                                       mode=r.mode, lang=scrub(r.lang), bots=json.loads(r.bots),
                                       host_hash=r.host_hash,
                                       timeout=r.timeout, bot_kind=r.bot_kind, talk_ends=r.talk_ends,
                                       paced=r.paced, pace=None if r.pace is None else json.loads(r.pace),
                                       fixed_deal=bool(r.fixed_deal), pack=r.pack, heard=r.heard,
                                       speech_time=r.speech_time,
                                       series_id=r.series_id, game_no=r.game_no or 1, prev_id=r.prev_id,
                                       next_id=r.next_id,
                                       bot_kinds=None if not r.bot_kinds else {
                                           int(k): v for k, v in json.loads(r.bot_kinds).items()},
                                       timed_out=timed_out_of(r.timed_out))
            if not out:
                return []
            ids = list(out)
            for chunk in _chunks(ids, 500):
                for p in conn.execute(select(players).where(players.c.room_id.in_(chunk))
                                      .order_by(players.c.room_id, players.c.seat)):
                    out[p.room_id].players.append(PlayerRecord(p.seat, scrub(p.name), p.token_hash, p.joined))
                for x in conn.execute(select(removed).where(removed.c.room_id.in_(chunk))):
                    out[x.room_id].removed[x.token_hash] = (x.seat, scrub(x.name))
                for a in conn.execute(select(answers).where(answers.c.room_id.in_(chunk))
                                      .order_by(answers.c.room_id, answers.c.idx)):
                    # (scrub: a text an older version stored unchecked must not break the room's views)
                    out[a.room_id].answers.append((a.seat, a.act, scrub_json(json.loads(a.value))))
            return list(out.values())
        return run


# The hot writes (every change of a live room: ``Store.progress``) go to the database's own driver as
# plain SQL, in the writer's transaction: SQLAlchemy's statement and parameter handling cost the writer
# thread four times SQLite's own work (110 µs a change against 25, scripts/load.py's play). The names in
# them are the tables' own (above), never input; every value is a bound parameter.
_INSERT_ANSWERS = "INSERT INTO answers (room_id, idx, seat, act, value, at) VALUES (?, ?, ?, ?, ?, ?)"
_SET_STATUS = "UPDATE rooms SET status = ? WHERE id = ?"
_NOTIFY_RAW = "SELECT pg_notify(%s, %s)"


def _cursor(conn: Connection) -> tuple[Any, bool]:
    """A cursor of the driver's own connection under ``conn`` (in its transaction), and whether the driver
    is PostgreSQL's (psycopg's ``%s`` parameters; else sqlite3's ``?``)."""
    return conn.connection.driver_connection.cursor(), conn.dialect.name == "postgresql"  # type: ignore[union-attr]


@functools.lru_cache(maxsize=64)
def _sql(statement: str, pg: bool) -> str:
    return statement.replace("?", "%s") if pg else statement


@functools.lru_cache(maxsize=256)  # one per set of columns written, check and driver: a few dozen at most
def _progress_update(columns: tuple[str, ...], check: str | None, pg: bool) -> str:
    """``UPDATE rooms SET <columns> WHERE id = ?`` (and, with ``check``, ``answers_stored`` ``=`` or ``>=``
    the change's first index): its parameters are the columns' values, the room's id, then that index."""
    assert all(c in rooms.c for c in columns), columns  # names from this module's code, never from input
    where = "id = ?" + {"=": " AND answers_stored = ?", ">=": " AND answers_stored >= ?", None: ""}[check]
    return _sql(f"UPDATE rooms SET {', '.join(c + ' = ?' for c in columns)} WHERE {where}", pg)


def timed_out_of(stored: str | None) -> list[int]:
    """The stored list of timed-out speeches (their events' indices); anything else in it is skipped."""
    if not stored:
        return []
    try:
        value = json.loads(stored)
    except ValueError:
        return []
    return [i for i in value if isinstance(i, int) and not isinstance(i, bool) and i >= 0] \
        if isinstance(value, list) else []


def _begins(fut: Any) -> bool:
    """Whether a queued write's caller still waits (and, for a thread's future, that it now runs)."""
    if isinstance(fut, asyncio.Future):
        return not fut.cancelled()
    return bool(fut.set_running_or_notify_cancel())


def _settle(batch: list[tuple[Callable[[Connection], Any], Any]],
            outcomes: list[tuple[Any, BaseException | None]]) -> None:
    """Tell each caller of a transaction its outcome: a thread at once, a loop in one callback of its own."""
    loops: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any, BaseException | None]]] = {}
    for (_, fut), (result, err) in zip(batch, outcomes):
        if isinstance(fut, asyncio.Future):
            loops.setdefault(fut.get_loop(), []).append((fut, result, err))
        else:
            _resolve(fut, result, err)
    for loop, told in loops.items():
        try:
            loop.call_soon_threadsafe(_tell, told)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass


def _tell(told: list[tuple[asyncio.Future[Any], Any, BaseException | None]]) -> None:
    for fut, result, err in told:
        if not fut.done():  # (else its caller went away meanwhile)
            _resolve(fut, result, err)


def _resolve(fut: Any, result: Any, err: BaseException | None) -> None:
    """A write's outcome to its caller's future (a thread's or a loop's: the same two calls)."""
    if err is not None:
        fut.set_exception(err)
    else:
        fut.set_result(result)


def _add_columns(engine: Engine) -> None:
    """Bring a database made by an older version up to date: add the columns it lacks (all nullable)."""
    have = {c["name"] for c in inspect(engine).get_columns("rooms")}
    with engine.begin() as conn:
        for name in LATER_COLUMNS:
            if name not in have:
                column = rooms.c[name]
                kind = column.type.compile(dialect=engine.dialect)
                conn.execute(text(f"ALTER TABLE rooms ADD COLUMN {name} {kind}"))


def _chunks(items: list[str], n: int) -> list[list[str]]:
    return [items[i:i + n] for i in range(0, len(items), n)]


def _engine(url: str, sync: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        level = "FULL" if sync == "full" else "NORMAL"

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA synchronous={level}")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True)
