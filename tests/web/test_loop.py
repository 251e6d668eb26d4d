"""Bots off the event loop (issue 14, point 7): while 50 all-bot rooms start and play, an unrelated request
is answered within 50 ms at the 99th percentile."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from .conftest import Server

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


def test_an_unrelated_request_is_answered_fast_while_50_all_bot_rooms_play(tmp_path: Path) -> None:
    server = Server(str(tmp_path / "loop.sqlite")).start()  # pace [0, 0]: every game plays through at once
    try:
        with httpx.Client(base_url=server.url, timeout=60) as c:
            rooms = []
            for i in range(50):
                r = c.post("/api/rooms", json={"ruleset": "classic", "deck": "classic12",
                                               "bots": list(range(1, 13)), "seed": i})
                assert r.status_code == 201, r.text
                rooms.append(r.json())
            other = c.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9"}).json()["room"]
            latencies: list[float] = []
            done = threading.Event()

            def ping() -> None:
                with httpx.Client(base_url=server.url, timeout=10) as p:
                    p.get(f"/api/rooms/{other}")  # a warm connection
                    while not done.is_set():
                        t = time.perf_counter()
                        r = p.get(f"/api/rooms/{other}")
                        latencies.append(time.perf_counter() - t)
                        assert r.status_code == 200
                        time.sleep(0.005)

            pinger = threading.Thread(target=ping)
            pinger.start()
            time.sleep(0.1)

            # The starts come from another process, so that only the server is measured, not this one's threads.
            t0 = time.perf_counter()
            starter = subprocess.run([sys.executable, "-c", STARTER, server.url, json.dumps(rooms)],
                                     capture_output=True, text=True, timeout=300)
            assert starter.returncode == 0, starter.stderr
            busy = time.perf_counter() - t0
            done.set()
            pinger.join()
            statuses = {c.get(f"/api/rooms/{r['room']}").json()["status"] for r in rooms}
    finally:
        server.stop()
    assert statuses == {"over"}  # the games were really played meanwhile
    latencies.sort()
    p99 = latencies[int(0.99 * (len(latencies) - 1))]
    assert len(latencies) >= 20, (len(latencies), busy)
    print(f"p99 {p99 * 1000:.1f} ms, {len(latencies)} requests, {busy:.2f} s")
    assert p99 < 0.05, f"p99 {p99 * 1000:.1f} ms over {len(latencies)} requests " \
                       f"(median {statistics.median(latencies) * 1000:.1f} ms) in {busy:.2f} s of play"
