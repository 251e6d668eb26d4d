#!/usr/bin/env python3
"""The bare transport: what the same sockets and messages cost the server with no game behind them.

Not a test: it prints figures. A server of the same stack and settings as ``werewolf serve`` (uvicorn, its
HTTP and WebSocket protocols, pings; ``werewolf.web.uvicorn_settings``) whose only work is the messages:
rooms of 12 sockets, and each message a socket sends (an answer) makes the server send ``--fanout`` pushes
on average to sockets of its room, the sender's own carrying the reply (as ``?replies=inline`` does), each
push a delta of about the size the phones get. The client sends them at the rate ``scripts/load.py``
measured. The server's CPU time per message in is the floor under load.py's CPU per answer on this
machine: the sockets' and the kernel's share, which no change of the game's code removes.

    python scripts/transport_floor.py                         # 200 rooms, 1.1 answers a second a room, 6.6 pushes
    python scripts/transport_floor.py --rooms 200 --rate 1.1 --fanout 6.6 --seconds 40
    python scripts/load.py --pace 0 0 --floor                 # load.py's run, then this one at its rates

Bounded: at most 1000 rooms and 600 seconds, on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# (At the module's top: FastAPI reads the route's annotations, strings here, from the module's names.)
from fastapi import FastAPI, WebSocket
from load import free_port, more_files, server_cpu  # scripts/load.py, beside this one
from starlette.websockets import WebSocketDisconnect

ROOT = Path(__file__).resolve().parent.parent
# A delta of a speech, as most pushes are (about the 0.2 kB the phones' deltas average).
PUSH = ('"v":12,"base":11,"set":{"speaking":[4],"speaker_deadline":null},"events":[{"type":"speech",'
        '"phase":"day1","data":{"seat":3,"text":"I am a villager. Seat 7 voted oddly yesterday: vote 7."}}]}')
REPLY = '{"reply":1,"ok":true,'


def app(fanout: float, seed: int) -> object:
    """The bare server: rooms of sockets, each message answered with pushes and the carried reply."""
    web = FastAPI()
    rooms: dict[str, list[WebSocket]] = {}
    rng = random.Random(seed)
    whole, part = int(fanout), fanout - int(fanout)

    @web.websocket("/ws/{room}")
    async def ws(websocket: WebSocket, room: str) -> None:
        await websocket.accept()
        members = rooms.setdefault(room, [])
        members.append(websocket)
        try:
            while True:
                await websocket.receive_text()
                pushes = whole + (rng.random() < part)
                others = [w for w in members if w is not websocket]
                for w in rng.sample(others, min(max(pushes - 1, 0), len(others))):
                    try:
                        await w.send_text("{" + PUSH)
                    except (WebSocketDisconnect, RuntimeError, OSError):
                        pass
                await websocket.send_text(REPLY + PUSH if pushes else REPLY[:-1] + "}")
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass
        finally:
            members.remove(websocket)

    return web


def serve(port: int, fanout: float, seed: int) -> None:
    import uvicorn

    more_files()

    sys.path.insert(0, str(ROOT))
    from werewolf.web import uvicorn_settings

    settings = uvicorn_settings("warning")
    settings.pop("http")  # (the app has no HTTP routes: the JSON error pages of the real one do not matter)
    uvicorn.run(app(fanout, seed), host="127.0.0.1", port=port, **settings)  # type: ignore[arg-type]


@dataclass
class Floor:
    messages: int  # sent by the clients during the measured window
    per_second: float
    cpu_ms: float  # the server's CPU per message in
    per_push: float  # the same, per push out (the carried reply's push counted once)


async def drive(port: int, rooms: int, rate: float, seconds: float, pid: int, seed: int) -> tuple[int, float, float]:
    """Play the rooms' messages; the messages sent in the measured window, a second, and the server's CPU
    seconds over it. A room that could not play (a socket refused, too many open files) stops the run."""
    import websockets

    stop = time.time() + seconds + 10
    sent = [0]

    async def read(ws: websockets.ClientConnection) -> None:
        try:
            async for _ in ws:
                pass
        except websockets.WebSocketException:
            pass

    async def room(r: int) -> None:
        socks = [await websockets.connect(f"ws://127.0.0.1:{port}/ws/r{r}", compression=None, ping_interval=None,
                                          max_size=None, open_timeout=60) for _ in range(12)]
        readers = [asyncio.ensure_future(read(ws)) for ws in socks]
        rng = random.Random(seed * 100_003 + r)
        await asyncio.sleep(5 * rng.random())  # (the rooms start spread out, as load.py's ramp does)
        while time.time() < stop:
            await asyncio.sleep(rng.expovariate(rate))
            await rng.choice(socks).send('{"id":1,"post":"act","body":{"act":"vote","target":7}}')
            sent[0] += 1
        for ws in socks:
            await ws.close()
        for t in readers:
            t.cancel()

    tasks = [asyncio.ensure_future(room(r)) for r in range(rooms)]
    await asyncio.sleep(10)  # every socket open, every room under way
    c0, m0, t0 = server_cpu(pid), sent[0], time.time()
    await asyncio.sleep(seconds)
    c1, m1, t1 = server_cpu(pid), sent[0], time.time()
    failed = [x for x in await asyncio.gather(*tasks, return_exceptions=True) if isinstance(x, BaseException)]
    if failed:
        sys.exit(f"the bare transport: {len(failed)} of {rooms} rooms could not play "
                 f"({type(failed[0]).__name__}: {failed[0]})")
    if c0 is None or c1 is None:
        sys.exit("the bare transport: its server stopped during the run")
    if m1 == m0:
        sys.exit("the bare transport: no message was sent in the measured window")
    return m1 - m0, (m1 - m0) / (t1 - t0), c1 - c0


def measure(rooms: int, rate: float, fanout: float, seconds: float, seed: int = 1) -> Floor:
    """Start the bare server, drive it, and return its CPU per message in (and per push out)."""
    more_files()  # (12 sockets a room: 200 rooms are over the usual limit of 1,024 descriptors)
    port = free_port()
    server = subprocess.Popen([sys.executable, __file__, "serve", str(port), str(fanout), str(seed)],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("the bare server did not start")
        try:
            import uvloop
        except ImportError:
            messages, per_second, cpu = asyncio.run(drive(port, rooms, rate, seconds, server.pid, seed))
        else:
            messages, per_second, cpu = uvloop.run(drive(port, rooms, rate, seconds, server.pid, seed))
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
    cpu_ms = 1000 * cpu / messages
    return Floor(messages, per_second, cpu_ms, cpu_ms / max(fanout, 1.0))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        serve(int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rooms", type=int, default=200)
    ap.add_argument("--rate", type=float, default=1.1, help="answers a second in each room (load.py prints it)")
    ap.add_argument("--fanout", type=float, default=6.6, help="pushes an answer makes (load.py: views / answers)")
    ap.add_argument("--seconds", type=float, default=30, help="the measured window, after 10 s of warm-up")
    args = ap.parse_args()
    if not (0 < args.rooms <= 1000 and 0 < args.seconds <= 600 and 0 < args.rate <= 20 and 0 <= args.fanout <= 12):
        sys.exit("bounded: 1-1000 rooms, 1-600 seconds, a rate of 0-20 a room, a fan-out of 0-12")
    print(f"bare transport: {args.rooms} rooms × 12 sockets, {args.rate} answers/s a room, {args.fanout} pushes "
          f"an answer, {args.seconds:.0f} s", flush=True)
    f = measure(args.rooms, args.rate, args.fanout, args.seconds)
    print(f"messages in:           {f.messages} ({f.per_second:.0f}/s)")
    print(f"server CPU:            {f.cpu_ms:.3f} ms per answer, {f.per_push:.3f} ms per push")


if __name__ == "__main__":
    main()
