#!/usr/bin/env python3
"""Bots off the event loop, measured (issue 14, point 7): an unrelated request while 50 all-bot rooms start.

    python scripts/loop_latency.py [--rooms 50]

Starts a server on loopback (SQLite in a temporary folder, pace 0 0 so that every game plays through at
once, no rate limits), creates the all-bot classic-12 rooms, then starts them all at once from another
process while this one asks for an unrelated room's info every 5 ms, and prints that request's latency
percentiles (target: p99 under 50 ms on a quiet 2-core machine). A figure, not a test: the suite checks the
structure instead (tests/web/test_loop.py: every bot round runs off the event loop's thread).
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent

# Starts every room at once (asyncio, one connection each) and fails unless each start is a 200.
STARTER = """
import asyncio, json, sys
import httpx

async def main(url, rooms):
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=httpx.Limits(max_connections=100)) as c:
        rs = await asyncio.gather(*(c.post(f"/api/rooms/{r['room']}/start",
                                           headers={"Authorization": "Bearer " + r["host_token"]}) for r in rooms))
    bad = [r.text for r in rs if r.status_code != 200]
    assert not bad, bad

asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def measure(url: str, n_rooms: int) -> tuple[list[float], float, set[str]]:
    with httpx.Client(base_url=url, timeout=60) as c:
        rooms = []
        for i in range(n_rooms):
            r = c.post("/api/rooms", json={"ruleset": "classic", "deck": "classic12", "bots": list(range(1, 13)),
                                           "seed": i})
            r.raise_for_status()
            rooms.append(r.json())
        other = c.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9"}).json()["room"]
        latencies: list[float] = []
        done = threading.Event()

        def ping() -> None:
            with httpx.Client(base_url=url, timeout=10) as p:
                p.get(f"/api/rooms/{other}")  # a warm connection
                while not done.is_set():
                    t = time.perf_counter()
                    p.get(f"/api/rooms/{other}").raise_for_status()
                    latencies.append(time.perf_counter() - t)
                    time.sleep(0.005)

        pinger = threading.Thread(target=ping)
        pinger.start()
        time.sleep(0.1)
        t0 = time.perf_counter()  # the starts come from another process: only the server is measured
        starter = subprocess.run([sys.executable, "-c", STARTER, url, json.dumps(rooms)], capture_output=True,
                                 text=True, timeout=300)
        busy = time.perf_counter() - t0
        done.set()
        pinger.join()
        if starter.returncode != 0:
            sys.exit(f"the starts failed: {starter.stderr[-2000:]}")
        statuses = {c.get(f"/api/rooms/{r['room']}").json()["status"] for r in rooms}
    return latencies, busy, statuses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rooms", type=int, default=50, help="all-bot classic-12 rooms started at once (at most 500)")
    args = ap.parse_args()
    if not 1 <= args.rooms <= 500:
        sys.exit("--rooms: 1 to 500")
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, "-m", "werewolf.cli", "serve", "--host", "127.0.0.1", "--port",
                                   str(port), "--database", str(Path(tmp) / "loop.sqlite"), "--timeout", "0",
                                   "--limits", "off", "--pace", "0", "0"], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    httpx.get(f"{url}/api/decks", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            latencies, busy, statuses = measure(url, args.rooms)
        finally:
            server.terminate()
            server.wait(timeout=30)
    latencies.sort()
    pick = lambda q: latencies[int(q * (len(latencies) - 1))] * 1000  # noqa: E731
    print(f"{args.rooms} all-bot rooms started at once, played in {busy:.2f} s (games {', '.join(sorted(statuses))})")
    print(f"unrelated request, {len(latencies)} of them: p50 {pick(0.5):.1f} ms, p95 {pick(0.95):.1f} ms, "
          f"p99 {pick(0.99):.1f} ms, max {latencies[-1] * 1000:.1f} ms, mean {statistics.mean(latencies) * 1000:.1f} ms"
          f" (target: p99 under 50 ms)")


if __name__ == "__main__":
    main()
