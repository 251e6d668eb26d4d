#!/usr/bin/env python3
"""Load: many rooms of 12 client bots each, over the real HTTP/WebSocket API on loopback.

Not a test: it prints figures. Every player is a client of its own: it joins over
HTTP, keeps a WebSocket open, and, once every room is seated (the games then start
spread over --ramp seconds), answers a random legal move (self-destructs and
duels only rarely) a random "think time" after its view asks for one. The figure
measured is the time from sending an answer (on the player's WebSocket, as the
phones' page does; ``--answer http``: POST /act) to receiving, on that WebSocket,
the view in which that answer is taken (for a wolf's pick at the pack's knife,
which waits for the packmates, the view that shows it confirmed): its 50th, 95th
and 99th percentiles, with the number of errors (any refused answer, failed request
or dropped socket). It also prints the server's CPU seconds (from /proc) per answer and
per view pushed, during play: on a shared machine the latencies move with the neighbours'
load, these much less, so a regression shows without a stopwatch. The players ask for
deltas (``?delta=true``), as the phones' page does; ``--full-views`` asks for whole views.

    python scripts/load.py                      # 200 rooms, own server on a free loopback port
    python scripts/load.py --rooms 20 --seconds 30
    python scripts/load.py --url http://127.0.0.1:8000   # a server already running (loopback only)
    python scripts/load.py --probe --breakdown  # where the time goes: the server's own timings, by act

``--probe`` starts the server with ``WEREWOLF_PROBE=1`` (``werewolf.web.probe``) and prints, for the play
only, its own timings: the room lock's waits, the worker thread's queue and run, the commits (queue and
transaction) and writes per transaction, the pushes, the garbage collector's pauses (wall and CPU time)
and the event loop's lag, each with its percentiles and its samples over 50 and 100 ms: counts of stalls
that a shared machine skews much less than the latencies.
    python scripts/load.py --workers 2 --database postgresql://user@127.0.0.1/db   # two processes, one port

Bounded: at most --rooms rooms (each plays one game, or stops at --seconds), and
it refuses any address that is not loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    when: list[float] = field(default_factory=list)  # time of each latency sample
    answers: int = 0
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    games_done: int = 0
    views: int = 0
    cpu_start: float | None = None  # the server's CPU seconds once every room is seated (play only)
    own_start: float = 0.0  # the load client's own CPU seconds then
    play_start: float = 0.0  # and the time
    http: list[float] = field(default_factory=list)  # POST /act: from sending to its answer
    by_kind: dict[str, list[float]] = field(default_factory=dict)  # latencies by act, and by phase change
    probe: dict[str, Any] | None = None  # the server's own timings (--probe)

    def latency(self, seconds: float, when: float, act: str, moved: bool) -> None:
        self.latencies.append(seconds)
        self.when.append(when)
        for kind in (f"act {act}", "view moved to a new phase" if moved else "view in the same phase"):
            self.by_kind.setdefault(kind, []).append(seconds)

    def error(self, kind: str) -> None:
        self.errors += 1
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1


def server_cpu(pid: int | None) -> float | None:
    """The server's CPU seconds so far (user + system, its threads included), from /proc: the process and
    its live children (the workers of ``serve --workers``)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        children = []
    return total + sum(server_cpu(c) or 0.0 for c in children)


def more_files() -> None:
    """Two descriptors a player (its socket and its connection for answers): 500 rooms need 12,000, far over
    the usual soft limit of 1,024; raised to the hard limit (as ``werewolf serve`` does for itself)."""
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass


def own_cpu() -> float:
    t = os.times()
    return t.user + t.system


def loopback_only(url: str) -> None:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    sys.exit(f"load.py only targets loopback addresses, not {host!r}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


EVENTS = ',"events":['


def head(message: str | bytes) -> dict[str, Any]:
    """The view without its events: the server writes them last, and the load client needs only
    ``pending`` and ``game_over`` (parsing every event of every view would load the client, not the server)."""
    text = message.decode() if isinstance(message, bytes) else message
    i = text.rfind(EVENTS)
    if i < 0:
        return dict(json.loads(text))
    return dict(json.loads(text[:i] + "}"))


class Conn:
    """A minimal HTTP/1.1 keep-alive client for the hot path (POST /act): httpx costs the load client
    more CPU than the server spends on the request, which would measure the client, not the server."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes, token: str) -> int:
        for attempt in range(2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            assert self.reader is not None
            self.writer.write(f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                              f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                              f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            try:
                await self.writer.drain()
                head = await self.reader.readuntil(b"\r\n\r\n")
            except (OSError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
                continue
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            length = next((int(x.split(":", 1)[1]) for x in lines if x.lower().startswith("content-length:")), 0)
            await self.reader.readexactly(length)
            return status
        raise OSError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class Player:
    def __init__(self, base: str, room: str, seat: int, token: str, http: httpx.AsyncClient, stats: Stats,
                 think: float, rng: random.Random, stop_at: float, delta: bool, on_socket: bool) -> None:
        self.base, self.room, self.seat, self.token, self.delta = base, room, seat, token, delta
        self.on_socket = on_socket  # answer on the socket (as the phones' page does), else POST /act
        self.ws: Any = None
        self.replies: dict[int, asyncio.Future[int]] = {}  # a socket's move: its status, by id
        self.sent_id = 0
        self.http, self.stats, self.think, self.rng, self.stop_at = http, stats, think, rng, stop_at
        self.view: dict[str, Any] | None = None
        self.changed = asyncio.Event()
        self.sent_at: float | None = None
        self.sent_pending: Any = None
        self.sent_act = ""
        self.sent_phase: Any = None
        u = urlparse(base)
        self.conn = Conn(u.hostname or "127.0.0.1", u.port or 80)

    async def run(self) -> None:
        # Answers on the socket are replied to in the push that shows them (``?replies=inline``), as the phones' are.
        query = "&".join(q for q, wanted in (("delta=true", self.delta), ("replies=inline", self.on_socket)) if wanted)
        ws_url = self.base.replace("http", "ws", 1) + f"/api/rooms/{self.room}/ws" + ("?" + query if query else "")
        protocols: Any = ["werewolf", f"token.{self.token}"]  # the token in a header, not in the URL
        try:
            async with websockets.connect(ws_url, max_size=None, open_timeout=60, ping_interval=None,
                                          compression=None, subprotocols=protocols) as ws:
                self.ws = ws
                reader = asyncio.create_task(self.read(ws))
                try:
                    await self.answer_loop()
                finally:
                    reader.cancel()
                    self.conn.close()
        except (TimeoutError, OSError, websockets.WebSocketException) as err:
            self.stats.error(f"websocket: {type(err).__name__}")

    async def read(self, ws: Any) -> None:
        try:
            async for message in ws:
                now = time.perf_counter()
                view = head(message)
                if "reply" in view:  # the answer to a move sent on the socket, alone or with the push that shows it
                    fut = self.replies.pop(view["reply"], None)
                    if fut is not None and not fut.done():
                        fut.set_result(200 if view.get("ok") else int(view.get("status", 0)))
                    if "v" not in view:
                        continue
                    view = {k: x for k, x in view.items() if k not in ("reply", "ok")}
                self.stats.views += 1
                if "base" in view:  # a delta: the fields that changed since the version ``base``
                    if self.view is None or self.view.get("v") != view["base"]:
                        self.stats.error("delta out of order")
                        await ws.send('{"full":true}')
                        continue
                    view = {**self.view, **view["set"], "v": view["v"]}
                # Taken: the seat is asked something else now, or (a wolf's pick at the pack's knife, which
                # waits for the packmates) its pick is shown as confirmed.
                if self.sent_at is not None and (view.get("pending") != self.sent_pending or (
                        self.sent_act == "kill" and self.seat in (view.get("pack_ready") or ()))):
                    self.stats.latency(now - self.sent_at, now, self.sent_act, view.get("phase") != self.sent_phase)
                    self.sent_at = None
                self.view = view
                self.changed.set()
        except websockets.WebSocketException:
            if time.time() < self.stop_at:
                self.stats.error("websocket dropped")
        finally:
            for fut in self.replies.values():
                if not fut.done():
                    fut.set_exception(OSError("the socket closed before the move's reply"))
            self.changed.set()

    async def send_move(self, move: dict[str, Any]) -> int:
        """Send the move, the way --answer says, and wait for the status it is answered with."""
        if not self.on_socket:
            return await self.conn.post(f"/api/rooms/{self.room}/act", json.dumps(move).encode(), self.token)
        self.sent_id += 1
        fut = self.replies[self.sent_id] = asyncio.get_running_loop().create_future()
        await self.ws.send(json.dumps({"id": self.sent_id, "post": "act", "body": move}))
        return await fut

    async def answer_loop(self) -> None:
        while time.time() < self.stop_at:
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=max(0.1, self.stop_at - time.time()))
            except TimeoutError:
                return
            self.changed.clear()
            view = self.view
            if view is None:
                continue
            if view.get("game_over") is not None:
                return
            pending = view.get("pending")
            if not pending or self.sent_at is not None or self.seat in (view.get("pack_ready") or ()):
                continue  # (a wolf whose pick is confirmed waits for the pack: asked still, nothing to add)
            await asyncio.sleep(self.rng.uniform(0, 2 * self.think))
            view = self.view  # the freshest one
            if view is None or not view.get("pending") or view.get("game_over") is not None \
                    or self.seat in (view.get("pack_ready") or ()):
                continue
            pending = view["pending"]
            calm = [m for m in pending if m["act"] not in ("explode", "duel")]
            move = self.rng.choice(calm if calm and self.rng.random() < 0.99 else pending)
            self.sent_pending = pending
            self.sent_act, self.sent_phase = move["act"], view.get("phase")
            self.sent_at = sent = time.perf_counter()
            try:
                status = await self.send_move(move)
                self.stats.http.append(time.perf_counter() - sent)
            except (OSError, asyncio.IncompleteReadError, ValueError, websockets.WebSocketException) as err:
                self.sent_at = None
                self.stats.error(f"act: {type(err).__name__}")
                continue
            if status != 200:
                self.sent_at = None
                self.stats.error(f"act {status}")
            else:
                self.stats.answers += 1
            self.changed.set()  # look again: a new decision may already be in the view


async def one_room(base: str, http: httpx.AsyncClient, stats: Stats, think: float, seed: int,
                   stop_at: float, ruleset: str, deck: str, ready: asyncio.Barrier, delay: float,
                   pid: int | None, delta: bool, probing: bool, on_socket: bool) -> None:
    """Create a room, seat 12 players with their sockets open; once every room is ready, play. The room is
    set up and started on a connection of its own, as a host's phone does (``serve --workers`` hands a
    connection to the process of the room it first names, and each process creates its own rooms)."""
    rng = random.Random(seed)
    players: list[Player] = []
    room = host = ""
    own = httpx.AsyncClient(base_url=base, timeout=120, limits=httpx.Limits(max_connections=1,
                                                                            keepalive_expiry=2.0))
    async with own:
        try:
            r = await own.post("/api/rooms", json={"ruleset": ruleset, "deck": deck, "seed": seed, "timeout": 0})
            r.raise_for_status()
            room, host, n = r.json()["room"], r.json()["host_token"], r.json()["players"]
            for i in range(n):
                j = await own.post(f"/api/rooms/{room}/join", json={"name": f"bot {i + 1}"})
                j.raise_for_status()
                players.append(Player(base, room, j.json()["seat"], j.json()["token"], http, stats, think,
                                      random.Random(rng.random()), stop_at, delta, on_socket))
        except httpx.HTTPError as err:
            stats.error(f"setup: {type(err).__name__}")
        tasks = [asyncio.create_task(p.run()) for p in players]
        await asyncio.sleep(1.0)  # the sockets connect
        await ready.wait()  # every room is set up: from here on, only play
        if stats.cpu_start is None:
            stats.cpu_start = server_cpu(pid)
            stats.own_start, stats.play_start = own_cpu(), time.time()
            if probing:
                (await http.get("/api/debug/probe", params={"reset": "true"})).raise_for_status()
        if not players:
            return
        await asyncio.sleep(delay)
        try:
            (await own.post(f"/api/rooms/{room}/start",
                            headers={"Authorization": f"Bearer {host}"})).raise_for_status()
        except httpx.HTTPError as err:
            stats.error(f"start: {type(err).__name__}")
    await asyncio.gather(*tasks)
    if any(p.view and p.view.get("game_over") for p in players):
        stats.games_done += 1


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def main_async(args: argparse.Namespace, base: str, pid: int | None) -> Stats:
    stats = Stats()
    # Idle connections are dropped well before uvicorn's keep-alive timeout (5 s, httpx's default expiry too):
    # at equal timeouts a request sent as the server closes the connection fails with a ReadError.
    limits = httpx.Limits(max_connections=args.connections, max_keepalive_connections=args.connections,
                          keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        stop_at = time.time() + args.seconds
        ready = asyncio.Barrier(args.rooms)
        rooms = []
        for i in range(args.rooms):
            # Games start spread over --ramp seconds, once every room is seated.
            rooms.append(asyncio.create_task(one_room(base, http, stats, args.think, args.seed + i, stop_at,
                                                      args.ruleset, args.deck, ready,
                                                      args.ramp * i / max(1, args.rooms), pid,
                                                      not args.full_views, args.probe,
                                                      args.answer == "socket")))
            await asyncio.sleep(0.01)
        await asyncio.gather(*rooms)
        if args.probe:
            stats.probe = (await http.get("/api/debug/probe", params={"objects": "true"})).json()
    return stats


@dataclass
class Summary:
    """One run's figures, for the table of a sweep."""

    workers: int
    answers: int
    per_second: float  # answers a second of play (from every room seated to the end)
    p50: float
    p95: float
    p99: float
    cpu_per_answer: float | None
    cpu_per_view: float | None
    cores: float | None
    errors: int
    load: float


def start_server(port: int, database: str, workers: int, pace: Sequence[float] | None,
                 probe: bool) -> subprocess.Popen[bytes]:
    """``werewolf serve`` on a loopback port, with no rate limits (hundreds of rooms from one address), once it
    answers; it is killed, and the script stops, if it does not start within 30 s."""
    server = subprocess.Popen([sys.executable, "-m", "werewolf.cli", "serve", "--host", "127.0.0.1",
                               "--port", str(port), "--database", database, "--timeout", "0", "--limits", "off",
                               "--workers", str(workers), *(["--pace", *map(str, pace)] if pace else [])],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, **({"WEREWOLF_PROBE": "1"} if probe else {})})
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/decks", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.1)
    server.kill()
    sys.exit("the server did not start")


def measure(args: argparse.Namespace, workers: int, database: str | None) -> Summary:
    """One run: a server started (or ``--url``'s), the rooms played, every figure printed."""
    server = None
    tmp = None
    base = args.url
    pid = args.server_pid
    if base is None:
        port = free_port()
        tmp = tempfile.TemporaryDirectory()
        db = database or os.path.join(tmp.name, "load.sqlite")
        server = start_server(port, db, workers, args.pace, args.probe)
        base = f"http://127.0.0.1:{port}"
        pid = server.pid
    base = base.rstrip("/")
    loopback_only(base)
    print(f"load: {args.rooms} rooms × 12 players ({args.ruleset} {args.deck}), think {args.think}s mean, "
          f"at most {args.seconds:.0f}s, answers on the {'socket' if args.answer == 'socket' else 'POST /act'}, "
          f"against {base}"
          + (f" ({workers} server processes)" if workers > 1 else ""), flush=True)
    t0 = time.time()
    cpu_end = None
    own_end = play_end = 0.0
    try:
        try:
            import uvloop  # installed with uvicorn[standard]: a cheaper event loop for the load client
        except ImportError:
            stats = asyncio.run(main_async(args, base, pid))
        else:
            stats = uvloop.run(main_async(args, base, pid))
        cpu_end = server_cpu(pid)
        own_end, play_end = own_cpu(), time.time()
    finally:
        if server is not None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()
        if tmp is not None:
            tmp.cleanup()
    took = time.time() - t0
    lat = [x * 1000 for x in stats.latencies]
    print(f"games finished:        {stats.games_done}/{args.rooms} in {took:.1f}s")
    print(f"answers:               {stats.answers} ({stats.answers / took:.0f}/s), views received: {stats.views}")
    print(f"answer→view latency:   p50 {pct(lat, 50):.1f} ms, p95 {pct(lat, 95):.1f} ms, "
          f"p99 {pct(lat, 99):.1f} ms, max {max(lat) if lat else float('nan'):.1f} ms"
          + (f", mean {statistics.fmean(lat):.1f} ms" if lat else ""))
    if args.timeline and lat:
        t_first = min(stats.when)
        windows: dict[int, list[float]] = {}
        for w, x in zip(stats.when, lat):
            windows.setdefault(int((w - t_first) // 10), []).append(x)
        for k in sorted(windows):
            xs = windows[k]
            print(f"  {k * 10:>4}-{k * 10 + 10:<4}s  {len(xs):>6} answers  p50 {pct(xs, 50):7.1f} ms  "
                  f"p95 {pct(xs, 95):7.1f} ms")
    if args.breakdown and lat:
        def line(name: str, xs: list[float]) -> str:
            return (f"  {name:<34} {len(xs):>6}  p50 {pct(xs, 50):7.1f}  p95 {pct(xs, 95):7.1f}  "
                    f"p99 {pct(xs, 99):7.1f}  max {max(xs):7.1f} ms")
        print(line(f"the answer's reply ({args.answer})", [x * 1000 for x in stats.http]))
        for kind, xs in sorted(stats.by_kind.items(), key=lambda kv: -len(kv[1])):
            print(line(kind, [x * 1000 for x in xs]))
    if stats.probe is not None:
        print("server's own timings (play): count, p50 / p95 / p99 / max ms, samples over 50 / 100 ms")
        for name, f in stats.probe.items():
            if name == "objects":
                print(f"  objects the garbage collector tracks: {f['n']:,}; the most: "
                      + ", ".join(f"{k} {n:,}" for k, n in f["top"][:12]))
            elif not isinstance(f, dict) or "n" not in f:  # (the allocator's figures: memory.py prints them)
                continue
            elif "p50_ms" in f:
                print(f"  {name:<38} {f['n']:>7}  {f['p50_ms']:7.2f} {f['p95_ms']:7.2f} {f['p99_ms']:7.2f} "
                      f"{f['max_ms']:7.1f}  {f['over_50ms']:>5} {f['over_100ms']:>5}  ({f['total_s']:.1f} s in all)")
            else:
                print(f"  {name:<38} {f['n']:>7}  mean {f['mean']}, max {f['max']}")
    if stats.cpu_start is not None and cpu_end is not None:
        # The figure to watch on a shared machine: wall-clock latencies move with the neighbours' load,
        # the server's CPU seconds per answer and per view push much less.
        cpu = cpu_end - stats.cpu_start
        print(f"server CPU (play):     {cpu:.1f} s, {1000 * cpu / max(1, stats.answers):.2f} ms per answer, "
              f"{1000 * cpu / max(1, stats.views):.3f} ms per view pushed "
              f"({100 * cpu / max(1e-9, play_end - stats.play_start):.0f}% of a core)")
        own = own_end - stats.own_start
        print(f"load client CPU:       {own:.1f} s ({100 * own / max(1e-9, play_end - stats.play_start):.0f}% of a "
              "core: near 100%, the client's own delays are in the latencies)")
    print(f"errors:                {stats.errors}" + (f" {stats.error_kinds}" if stats.errors else ""))

    cpu_ms = cpu_view = cores = None
    if stats.cpu_start is not None and cpu_end is not None:
        cpu = cpu_end - stats.cpu_start
        cpu_ms, cpu_view = 1000 * cpu / max(1, stats.answers), 1000 * cpu / max(1, stats.views)
        cores = cpu / max(1e-9, play_end - stats.play_start)
    played = max(1e-9, play_end - stats.play_start) if stats.play_start else took
    return Summary(workers, stats.answers, stats.answers / played, pct(lat, 50), pct(lat, 95), pct(lat, 99),
                   cpu_ms, cpu_view, cores, stats.errors, os.getloadavg()[0])


@contextlib.contextmanager
def fresh_database(server: str) -> Iterator[str]:
    """A new database on the PostgreSQL server ``server`` (a URL naming any database on it), dropped after."""
    import psycopg

    name = "werewolf_load_" + secrets.token_hex(6)
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield server.rpartition("/")[0] + "/" + name
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def sweep(args: argparse.Namespace) -> None:
    """``--sweep N…``: one run a process count, each on a fresh database of the PostgreSQL server
    ``--database``, then the curve: answers a second and latencies against processes."""
    if not (args.database or "").startswith(("postgresql://", "postgres://")):
        sys.exit("--sweep needs --database postgresql://…: the server on which each run makes a fresh database")
    if args.url is not None:
        sys.exit("--sweep starts its own servers: leave out --url")
    rows: list[Summary] = []
    for n in args.sweep:
        print(f"\n== {n} process(es), load average {os.getloadavg()[0]:.1f} before the run ==", flush=True)
        with fresh_database(args.database) as db:
            rows.append(measure(args, n, db))
    print(f"\nsweep: {args.rooms} rooms, {args.seconds:.0f} s each, PostgreSQL, a fresh database a run")
    print("| processes | answers | answers/s of play | p50 ms | p95 ms | p99 ms | CPU ms/answer | ms/view | cores used "
          "| errors | load average after |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        def f(x: float | None, digits: int) -> str:
            return "n/a" if x is None else f"{x:,.{digits}f}"

        print(f"| {r.workers} | {r.answers:,} | {r.per_second:.0f} | {r.p50:.1f} | {r.p95:.1f} | {r.p99:.1f} | "
              f"{f(r.cpu_per_answer, 2)} | {f(r.cpu_per_view, 3)} | {f(r.cores, 2)} | {r.errors} | {r.load:.1f} |")
    if len(rows) > 1:
        first = rows[0]
        for r in rows[1:]:
            print(f"{r.workers} processes against {first.workers}: {r.per_second / max(1e-9, first.per_second):.2f}× "
                  f"the answers a second, p95 {r.p95 / max(1e-9, first.p95):.2f}×, CPU per answer "
                  + (f"{r.cpu_per_answer / first.cpu_per_answer:.2f}×" if r.cpu_per_answer and first.cpu_per_answer
                     else "n/a"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rooms", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=180, help="stop every room after this long (default 180)")
    ap.add_argument("--think", type=float, default=1.0,
                    help="mean think time of a player before answering, seconds (uniform 0..2x; default 1)")
    ap.add_argument("--ramp", type=float, default=10,
                    help="seconds over which the games start, once every room is seated (default 10)")
    ap.add_argument("--ruleset", default="classic")
    ap.add_argument("--deck", default="classic12")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--connections", type=int, default=200, help="HTTP connections of the load client")
    ap.add_argument("--timeline", action="store_true", help="also print the latency per 10-second window")
    ap.add_argument("--breakdown", action="store_true",
                    help="also print the latency by act, by whether the view moved to a new phase, and of the "
                         "POST /act answer itself")
    ap.add_argument("--probe", action="store_true",
                    help="start the server with WEREWOLF_PROBE=1 and print its own timings during play (its "
                         "lock waits, worker thread, commits, pushes, GC pauses, event-loop lag; with --url, "
                         "start that server with WEREWOLF_PROBE=1 yourself)")
    ap.add_argument("--url", default=None, help="a running server (loopback only; start it with --limits off, or "
                                                "its rate limits refuse most rooms); default: start one")
    ap.add_argument("--database", default=None, help="the started server's database (default: a temporary SQLite)")
    ap.add_argument("--workers", type=int, default=1,
                    help="the started server's --workers: processes sharing its port (needs a PostgreSQL --database)")
    ap.add_argument("--sweep", type=int, nargs="+", default=None, metavar="N",
                    help="one run for each process count N (e.g. 1 2 3 4), each against a fresh database made on "
                         "the PostgreSQL server --database names (and dropped after), then the curve")
    ap.add_argument("--pace", type=float, nargs=2, default=None, metavar=("MIN", "MAX"),
                    help="the started server's --pace: seconds each night step lasts (default: the server's, "
                         "4 9; 0 0 plays the nights as fast as the players answer, as before pacing)")
    ap.add_argument("--full-views", action="store_true",
                    help="ask for the whole view at every push, not for deltas (the protocol before deltas)")
    ap.add_argument("--answer", choices=["socket", "http"], default="socket",
                    help="how players answer: on their WebSocket, as the phones' page does (default), or with "
                         "POST /act, as scripts and HTTP bots do")
    ap.add_argument("--floor", action="store_true",
                    help="then measure the bare transport at the same rates (the same sockets and messages, no "
                         "game: scripts/transport_floor.py) and print the server's CPU as a multiple of it")
    ap.add_argument("--server-pid", type=int, default=None,
                    help="with --url: the server's process id, to print its CPU time per answer and per view")
    args = ap.parse_args()
    if args.rooms > 1000 or args.seconds > 1800:
        sys.exit("bounded: at most 1000 rooms and 1800 seconds")
    more_files()
    if args.sweep:
        sweep(args)
        return
    run = measure(args, args.workers, args.database)
    if args.floor and run.cpu_per_answer and run.cpu_per_view:
        bare(args, run)


def bare(args: argparse.Namespace, run: Summary) -> None:
    """``--floor``: the same sockets and messages on a server that plays no game (``transport_floor.py``), at
    the answers a second and pushes an answer just measured, and the run's CPU as a multiple of it."""
    import transport_floor  # (beside this script)

    assert run.cpu_per_answer is not None and run.cpu_per_view is not None
    rate, fanout = run.per_second / args.rooms, run.cpu_per_answer / run.cpu_per_view
    print(f"bare transport:        {args.rooms} rooms × 12 sockets, {rate:.2f} answers/s a room, {fanout:.1f} pushes "
          "an answer, no game (scripts/transport_floor.py) …", flush=True)
    f = transport_floor.measure(args.rooms, rate, fanout, min(args.seconds, 40.0), args.seed)
    print(f"bare transport CPU:    {f.cpu_ms:.2f} ms per answer, {f.per_push:.3f} ms per push; the server's: "
          f"{run.cpu_per_answer / f.cpu_ms:.2f}× and {run.cpu_per_view / f.per_push:.2f}× that")


if __name__ == "__main__":
    main()
