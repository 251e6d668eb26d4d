#!/usr/bin/env python3
"""Resource abuse (issue 25, item 7), measured over the real HTTP/WebSocket API on loopback.

Not a test: it prints figures. Two probes, each against its own `werewolf serve` on a free
loopback port (or --url, loopback only):

- full: --sockets anonymous spectator sockets (``?delta=true``) each send ``{"full": true}`` in a
  loop for --seconds, while one honest client asks ``/public`` over and over; printed: the bytes the
  server sent to the abusive sockets, the full views they got, and the honest client's median and
  95th percentile latency, with the same client's figures before the abuse (the baseline).
- partial: --partial connections each send half a request line and nothing more; printed: how many
  the server still holds after --header-timeout + 2 s (the server runs with that timeout).

    python scripts/abuse.py                   # both probes
    python scripts/abuse.py --probe full --sockets 20 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(header_timeout: float) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    db = Path(tempfile.mkdtemp()) / "abuse.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "werewolf.cli", "serve", "--host", "127.0.0.1", "--port",
                             str(port), "--database", str(db), "--log-level", "warning",  # the default limits
                             "--header-timeout", f"{header_timeout:g}"], cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if httpx.get(url + "/api/decks", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


def loopback(url: str) -> None:
    host = urlparse(url).hostname or ""
    try:
        ok = ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = host == "localhost"
    if not ok:
        raise SystemExit(f"refusing {url}: load probes run against loopback only")


async def latencies(url: str, room: str, seconds: float) -> list[float]:
    out: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t = time.perf_counter()
            (await c.get(f"/api/rooms/{room}/public")).raise_for_status()
            out.append(time.perf_counter() - t)
            await asyncio.sleep(0.05)
    return out


async def abuser(ws_url: str, seconds: float, totals: dict[str, int]) -> None:
    """Asks for the full view as fast as it can; closed, it connects again (a connection's full view too)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            async with websockets.connect(ws_url, max_size=None) as ws:

                async def read(ws: websockets.ClientConnection = ws) -> None:
                    async for msg in ws:
                        totals["bytes"] += len(msg if isinstance(msg, bytes) else msg.encode())
                        totals["full"] += msg.startswith('{"v":') and '"base"' not in msg[:40]
                        totals["refused"] += msg.startswith('{"error"')

                reader = asyncio.create_task(read())
                try:
                    while time.monotonic() < end:
                        await ws.send('{"full": true}')
                        await asyncio.sleep(0)
                finally:
                    reader.cancel()
        except websockets.ConnectionClosed:
            totals["closed"] += 1


def figures(name: str, xs: list[float]) -> str:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(len(xs) * 0.95))]
    return f"{name}: median {statistics.median(xs) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms ({len(xs)} requests)"


async def probe_full(url: str, sockets: int, seconds: float) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        r = (await c.post("/api/rooms", json={"ruleset": "classic", "deck": "classic12", "bots": list(range(1, 13)),
                                              "pace": [4, 9]})).json()
        room = r["room"]
        await c.post(f"/api/rooms/{room}/start", headers={"Authorization": f"Bearer {r['host_token']}"})
        size = len((await c.get(f"/api/rooms/{room}/public", params={"lang": "en"})).content)
    base = await latencies(url, room, min(seconds, 5))
    totals = {"bytes": 0, "full": 0, "closed": 0, "refused": 0}
    ws_url = url.replace("http", "ws", 1) + f"/api/rooms/{room}/ws?spectator=true&delta=true&lang=en"
    during, *_ = await asyncio.gather(latencies(url, room, seconds),
                                      *(abuser(ws_url, seconds, totals) for _ in range(sockets)))
    print(f"full: {sockets} sockets asking {{\"full\": true}} in a loop for {seconds:g} s (a full view: {size} B)")
    print(f"  sent to them: {totals['bytes'] / 1e6:.2f} MB in {totals['full']} full views "
          f"({totals['full'] / sockets / seconds:.2f} per socket per second, the connection's own included); "
          f"{totals['closed']} sockets closed by the server and opened again, {totals['refused']} refused at once")
    print("  " + figures("another client before", base))
    print("  " + figures("another client during", during))


def probe_partial(url: str, count: int, header_timeout: float) -> None:
    host, port = urlparse(url).hostname or "127.0.0.1", urlparse(url).port or 80
    conns = []
    for _ in range(count):
        s = socket.create_connection((host, port))
        s.sendall(b"GET /api/decks HTTP/1.1\r\nHost: a")  # half a request, never finished
        conns.append(s)
    time.sleep(header_timeout + 2)  # (a probe, not a test: it waits out the bound it measures)
    held = 0
    for s in conns:
        s.setblocking(False)
        try:
            while s.recv(65536):
                pass
        except BlockingIOError:
            held += 1  # nothing to read and not closed: still held
        except OSError:
            pass
        s.close()
    print(f"partial: {count} connections sent half a request; after {header_timeout + 2:g} s the server "
          f"still held {held}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probe", choices=["full", "partial", "both"], default="both")
    ap.add_argument("--url", default=None)
    ap.add_argument("--sockets", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--partial", type=int, default=500)
    ap.add_argument("--header-timeout", type=float, default=10.0)
    args = ap.parse_args()
    proc = None
    url = args.url
    if url is None:
        proc, url = start_server(args.header_timeout)
    loopback(url)
    try:
        if args.probe in ("full", "both"):
            asyncio.run(probe_full(url, args.sockets, args.seconds))
        if args.probe in ("partial", "both"):
            probe_partial(url, args.partial, args.header_timeout)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
