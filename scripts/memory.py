#!/usr/bin/env python3
"""Memory that stays flat: the server's RSS after many finished games, against after a few.

Not a test: it prints figures. It starts a real server (``werewolf serve`` on loopback, its own temporary
SQLite, nights unpaced, no rate limits; or ``--workers N --database postgresql://…``) and plays finished
games through its HTTP and WebSocket API, ``--concurrency`` at a time: each game is an all-bot room (created,
watched by a spectator's socket asking for deltas, as a phone does, started, watched to its end, the socket
closed). At each checkpoint (by default after 1,000 and after 10,000 games) it lets the server idle until
the finished games have left its memory (``werewolf.web.hub.UNWATCHED`` seconds after their last socket, and
a tick) and it has given the allocator's free pages back (``werewolf.web.runtime.give_back``), then reads
the server's resident memory from ``/proc`` (its workers' too) and prints it with the games a second and
the ratio to the first checkpoint. The target (issue 29): no more than 10% above.

    python scripts/memory.py                          # 1,000 and 10,000 games (about 10-20 minutes)
    python scripts/memory.py --games 200 1000         # a shorter look
    python scripts/memory.py --bot-kind heuristic     # the bots that talk (slower: more of the engine)

Bounded: at most 20,000 games, and only against its own server on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from load import free_port, server_cpu, start_server  # noqa: E402 - scripts/load.py, beside this one

from werewolf.web.hub import UNWATCHED  # noqa: E402 - the server's own grace for an unwatched finished game
from werewolf.web.runtime import GIVE_BACK_LOOK  # noqa: E402 - how soon it gives memory back


def rss_kb(pid: int) -> int:
    """Resident memory of the process and its live children (the workers of ``serve --workers``), in kB."""
    total = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    total = int(line.split()[1])
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        return total
    return total + sum(rss_kb(c) for c in children)


def rss_kinds(pid: int) -> str:
    """The process's resident memory by kind (``/proc``: anonymous, mapped files, shared memory), in MB."""
    kinds = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(("RssAnon:", "RssFile:", "RssShmem:")):
                    kinds[line.split(":")[0][3:].lower()] = int(line.split()[1]) / 1024
    except OSError:
        return ""
    return ", ".join(f"{k} {v:.1f}" for k, v in kinds.items())


class Games:
    def __init__(self, base: str, args: argparse.Namespace) -> None:
        self.base, self.args = base, args
        self.done = 0
        self.begun = 0
        self.errors: dict[str, int] = {}
        self.seed = args.seed

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    async def one(self, http: httpx.AsyncClient) -> None:
        """One all-bot game, created, watched by a spectator's socket to its end, the socket closed."""
        self.seed += 1
        body = {"ruleset": self.args.ruleset, "deck": self.args.deck, "seed": self.seed, "timeout": 0,
                "bots": list(range(1, self.args.seats + 1)), "bot_kind": self.args.bot_kind, "pace": [0, 0]}
        try:
            r = await http.post("/api/rooms", json=body)
            r.raise_for_status()
            room, host = r.json()["room"], r.json()["host_token"]
            url = self.base.replace("http", "ws", 1) + f"/api/rooms/{room}/ws?spectator=true&delta=true&lang=en"
            async with websockets.connect(url, max_size=None, ping_interval=None, compression=None,
                                          open_timeout=60) as ws:
                await ws.recv()  # the lobby's view: the socket is watching
                (await http.post(f"/api/rooms/{room}/start", headers={"Authorization": f"Bearer {host}"})
                 ).raise_for_status()
                while True:
                    message = await asyncio.wait_for(ws.recv(), timeout=120)
                    view = json.loads(message)
                    if (view.get("set") or view).get("game_over") is not None:
                        break
            self.done += 1
        except (httpx.HTTPError, OSError, TimeoutError, websockets.WebSocketException) as err:
            self.error(type(err).__name__)

    async def play(self, http: httpx.AsyncClient, until: int) -> None:
        """Games until ``until`` are finished (``--concurrency`` at a time)."""
        async def lane() -> None:
            while self.begun < until:
                self.begun += 1
                await self.one(http)

        await asyncio.gather(*(lane() for _ in range(self.args.concurrency)))


async def run(args: argparse.Namespace, base: str, pid: int) -> None:
    games = Games(base, args)
    # Every finished game has left memory (its grace, and the tick that drops it), and the server has given
    # the allocator's free pages back (werewolf.web.runtime.give_back: a look or two after the last left).
    idle = UNWATCHED + 3.0 + 3 * GIVE_BACK_LOOK
    baseline = 0
    first_kinds: dict[str, int] = {}
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        await asyncio.sleep(1.0)
        started_kb = rss_kb(pid)
        print(f"server RSS at start:    {started_kb / 1024:7.1f} MB", flush=True)
        for checkpoint in args.games:
            t0, c0 = time.time(), (server_cpu(pid) or 0.0)
            await games.play(http, checkpoint)
            took, cpu = time.time() - t0, (server_cpu(pid) or 0.0) - c0
            await asyncio.sleep(idle)
            kb = rss_kb(pid)
            baseline = baseline or kb
            load = os.getloadavg()[0]
            if args.objects:  # what is in that memory (the objects, the arenas), then what a full collection frees
                rep = (await http.get("/api/debug/probe", params={"objects": "true", "collect": "true"})).json()
                kinds = dict(rep["objects"]["top"])
                grown = sorted(((n - first_kinds.get(k, 0), k) for k, n in kinds.items()), reverse=True)
                print("  objects the collector tracks, most first (and their growth since the first checkpoint): "
                      + ", ".join(f"{k} {kinds[k]:,} ({d:+,})" for d, k in grown[:12]))
                first_kinds = first_kinds or kinds
                pm = rep.get("pymalloc") or {}
                if pm.get("arenas"):  # Python's small-object allocator (its counts are hidden under tracemalloc)
                    print(f"  pymalloc: {pm['arenas']} arenas of 1 MB, {pm['used'] / 2**20:.1f} MB in used blocks, "
                          f"{pm['free'] / 2**20:.1f} MB in free ones; {pm['blocks']:,} blocks")
                for grew in rep.get("allocations") or []:  # with PYTHONTRACEMALLOC=N set: since the last checkpoint
                    print(f"    {grew['kB']:+10.1f} kB {grew['count']:+8,} blocks  " + " < ".join(grew["where"][::-1]))
                print(f"  then a full collection found {rep['collected']:,} unreachable objects (cycles left for "
                      f"it) and left {rss_kb(pid) / 1024:.1f} MB")
            print(f"after {games.done:>6,} games: {kb / 1024:7.1f} MB  ({100 * (kb / baseline - 1):+5.1f}% on the "
                  f"first checkpoint; {took:.0f} s, {cpu:.0f} s of server CPU, load average {load:.1f}; "
                  f"the first process's MB: {rss_kinds(pid)})", flush=True)
    if games.errors:
        print(f"errors: {sum(games.errors.values())} {games.errors}")
    else:
        print("errors: 0")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, nargs="+", default=[1000, 10000],
                    help="checkpoints: finished games after which RSS is read (default 1000 10000)")
    ap.add_argument("--concurrency", type=int, default=4, help="games played at once (default 4)")
    ap.add_argument("--ruleset", default="classic")
    ap.add_argument("--deck", default="classic9")
    ap.add_argument("--seats", type=int, default=9, help="the deck's seats, every one a bot (default 9)")
    ap.add_argument("--bot-kind", default="random", choices=["random", "heuristic"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--database", default=None, help="default: a temporary SQLite")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--objects", action="store_true",
                    help="start the server with WEREWOLF_PROBE=1 and print, at each checkpoint, the objects the "
                         "garbage collector tracks by type (what stays behind), Python's small-object arenas "
                         "and their live bytes (many arenas, few live bytes: the high-water mark of a busy "
                         "moment, kept), then what a full collection finds; with PYTHONTRACEMALLOC=N set, "
                         "also the allocations that grew most since the last checkpoint, by their last N frames")
    args = ap.parse_args()
    if max(args.games) > 20000 or args.games != sorted(args.games):
        sys.exit("bounded: increasing checkpoints, at most 20,000 games")
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.database or os.path.join(tmp, "memory.sqlite")
        server = start_server(port, db, args.workers, (0, 0), args.objects)
        base = f"http://127.0.0.1:{port}"
        try:
            print(f"memory: {' then '.join(f'{g:,}' for g in args.games)} finished all-{args.bot_kind}-bot "
                  f"{args.ruleset} {args.deck} games, {args.concurrency} at a time, against {base}"
                  + (f" ({args.workers} processes)" if args.workers > 1 else ""), flush=True)
            asyncio.run(run(args, base, server.pid))
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    main()
