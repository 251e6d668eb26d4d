"""Bots off the event loop (issue 14, point 7): while 50 all-bot rooms start and play, an unrelated request
is answered within 50 ms at the 99th percentile."""

from __future__ import annotations

import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from .conftest import Server, auth


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

            def start(room: dict[str, str]) -> float:
                with httpx.Client(base_url=server.url, timeout=60) as s:
                    t = time.perf_counter()
                    r = s.post(f"/api/rooms/{room['room']}/start", headers=auth(room["host_token"]))
                    assert r.status_code == 200, r.text
                    return time.perf_counter() - t

            t0 = time.perf_counter()
            with ThreadPoolExecutor(50) as pool:
                list(pool.map(start, rooms))
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
