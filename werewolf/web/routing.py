"""``werewolf serve --workers N``: one port, N server processes, each room's connections handed to one.

The parent process listens on the port and runs no app. For each connection it looks at the first
request's line without taking it (``MSG_PEEK``): a path that names a room (``/r/ID``, ``/replay/ID``,
``/api/rooms/ID/…``) goes to the room's *home* process (a hash of its id over the N), anything else to
the processes in turn. The connection itself, not a copy of its bytes, is handed to that process over a
Unix socket (``SCM_RIGHTS``), which serves it as if it had accepted it: no byte of a view passes through
the parent. Each process creates the rooms whose home it is (``werewolf.web.homes``), so a room's phones, its
owner (``werewolf.web.cluster``) and its memory are one process: an answer is applied, stored and
pushed once, and the other processes never read the room.

A process that dies is started again by the parent; until it is back, its rooms' connections go to the
next process, which adopts them as any server of a cluster adopts a room whose owner died. A process
that holds a room that is not its home (a client that mixed rooms on one connection, or a failover
that ended) lets it go once no socket of its own watches it (``Hub.sweep``).

Why not the kernel's port sharing (uvicorn's own ``--workers``): it spreads connections at random, so
every room has phones on every process and each answer is replayed on every copy (measured: no gain;
see docs/performance.md). Why per connection and not per request: a phone's connections serve its one room, and
a request the parent handed to another process is still served right, by a process that reads the room.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

from werewolf.web.homes import PLACE_ENV, home

log = logging.getLogger("werewolf.web")

CHANNEL_ENV = "WEREWOLF_CHANNEL"  # the file descriptor on which the parent hands it connections
SETTINGS_ENV = "WEREWOLF_WORKER_APP"  # the app's settings and log level, as the parent's ``serve`` had them
PEEK_BYTES = 4096
PEEK_SECONDS = 10.0  # a connection that sends no request line in this long goes to any process
RESTART_PAUSE = 1.0  # seconds between two starts of a worker that keeps dying
STARTUP_FAILURE = 3  # uvicorn's exit code when the app could not start (its database away, say)
_ROOM_PATH = re.compile(rb"^[A-Z]+ /(?:api/rooms|r|replay)/([A-Za-z0-9]{1,32})(?:[/?# ]|$)")


def room_in(head: bytes) -> str | None:
    """The room a request's first line names (None: none, or not a request line)."""
    m = _ROOM_PATH.match(head)
    return m.group(1).decode() if m else None


# -- the parent ------------------------------------------------------------------------------------
@dataclass
class Worker:
    index: int
    proc: subprocess.Popen[bytes] | None = None
    channel: socket.socket | None = None
    started: float = 0.0
    alive: bool = False
    starts: int = 0


class Router:
    """The parent of ``serve --workers``: the port, the workers, and the hand-over of each connection."""

    def __init__(self, host: str, port: int, count: int, settings: dict[str, Any]) -> None:
        self.host, self.port, self.count = host, port, count
        self.settings = settings
        self.workers = [Worker(i) for i in range(count)]
        self.turn = 0
        self.stopping = False
        self.failed: str | None = None  # why the service stopped by itself
        self.done = asyncio.Event()  # a signal, or a worker that cannot start
        self.listener: socket.socket | None = None

    def run(self) -> None:
        """Serve until SIGINT or SIGTERM; then the workers finish their connections and stop."""
        from werewolf.web.runtime import more_files

        more_files()  # every connection passes through this process for a moment
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        self.listener = socket.socket(family, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.listener.bind((self.host, self.port))
        except OSError as err:
            self.listener.close()
            raise SystemExit(f"werewolf: cannot listen on {self.host}:{self.port}: {err.strerror or err}") from None
        self.listener.listen(2048)
        self.listener.setblocking(False)
        for w in self.workers:
            self._start(w)
        try:
            asyncio.run(self._serve())
        finally:
            self._stop_all()
            self.listener.close()
        if self.failed:
            raise SystemExit(f"werewolf: {self.failed}")

    def _start(self, w: Worker) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        env = {**os.environ, SETTINGS_ENV: json.dumps(self.settings), PLACE_ENV: f"{w.index}/{self.count}",
               CHANNEL_ENV: str(theirs.fileno())}
        w.proc = subprocess.Popen([sys.executable, "-m", "werewolf.web.worker"], env=env,
                                  pass_fds=[theirs.fileno()])
        theirs.close()
        if w.channel is not None:
            w.channel.close()
        w.channel, w.started, w.alive = ours, time.monotonic(), True
        w.starts += 1
        log.info("worker %d/%d: process %d", w.index, self.count, w.proc.pid)

    async def _serve(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.done.set)
        tasks = {asyncio.create_task(self._accept()), asyncio.create_task(self._supervise())}
        await self.done.wait()
        self.stopping = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        assert self.listener is not None
        pending: set[asyncio.Task[None]] = set()
        while True:
            try:
                conn, _ = await loop.sock_accept(self.listener)
            except OSError as err:  # out of files, say: the kernel keeps the connection queued meanwhile
                log.warning("router: accept: %s", err)
                await asyncio.sleep(0.1)
                continue
            task = asyncio.create_task(self._route(conn))
            pending.add(task)
            task.add_done_callback(pending.discard)

    async def _route(self, conn: socket.socket) -> None:
        try:
            head = await _peek(conn)
            room = room_in(head)
            first = home(room, self.count) if room is not None else self._next_turn()
            for k in range(self.count):
                if await self._hand(self.workers[(first + k) % self.count], conn):
                    return
            log.warning("router: no worker takes connections; one dropped")
        except OSError:
            pass  # the client went away
        finally:
            conn.close()  # the worker holds its own copy of it

    def _next_turn(self) -> int:
        self.turn = (self.turn + 1) % self.count
        return self.turn

    async def _hand(self, w: Worker, conn: socket.socket) -> bool:
        """Give ``conn`` to ``w``; False if ``w`` is not there to take it."""
        if not w.alive or w.channel is None:
            return False
        loop = asyncio.get_running_loop()
        while True:
            try:
                socket.send_fds(w.channel, [b"c"], [conn.fileno()])
                return True
            except BlockingIOError:  # its queue of connections is full: wait until it takes some
                ready = loop.create_future()
                loop.add_writer(w.channel.fileno(), _settle, ready)
                try:
                    await asyncio.wait_for(ready, 5.0)
                except TimeoutError:
                    return False
                finally:
                    loop.remove_writer(w.channel.fileno())
            except OSError:  # it died
                w.alive = False
                return False

    async def _supervise(self) -> None:
        while True:
            await asyncio.sleep(0.2)
            for w in self.workers:
                if w.proc is not None and w.proc.poll() is not None and not self.stopping:
                    w.alive = False
                    if w.starts == 1 and w.proc.returncode == STARTUP_FAILURE:
                        # Its first start failed (the error is above): every start would, as one server's would.
                        self.failed = (f"worker {w.index}/{self.count} could not start (see its error above); "
                                       "the server stops")
                        self.done.set()
                        return
                    if time.monotonic() - w.started < RESTART_PAUSE:
                        continue
                    log.warning("worker %d/%d (process %d) exited with %s; started again", w.index, self.count,
                                w.proc.pid, w.proc.returncode)
                    self._start(w)

    def _stop_all(self) -> None:
        procs = [w.proc for w in self.workers if w.proc is not None and w.proc.poll() is None]
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGTERM)
        end = time.monotonic() + 25
        for p in procs:
            try:
                p.wait(max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
        for w in self.workers:
            if w.channel is not None:
                w.channel.close()


def _settle(ready: asyncio.Future[None]) -> None:
    """A file is ready (a callback may come again before it is removed)."""
    if not ready.done():
        ready.set_result(None)


async def _peek(conn: socket.socket) -> bytes:
    """The start of the connection's first request, left in place for the worker to read."""
    loop = asyncio.get_running_loop()
    conn.setblocking(False)
    end = loop.time() + PEEK_SECONDS
    while True:
        try:
            data = conn.recv(PEEK_BYTES, socket.MSG_PEEK)
        except BlockingIOError:
            data = None
        if data is not None and (not data or b"\r\n" in data or len(data) >= PEEK_BYTES):
            return data
        left = end - loop.time()
        if left <= 0:
            return data or b""
        if data:  # a line under way: readable already, so wait a moment instead
            await asyncio.sleep(0.005)
            continue
        ready = loop.create_future()
        loop.add_reader(conn.fileno(), _settle, ready)
        try:
            await asyncio.wait_for(ready, left)
        except TimeoutError:
            return b""
        finally:
            loop.remove_reader(conn.fileno())
