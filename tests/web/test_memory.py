"""Memory that stays flat (issue 16, point 3): a finished game leaves memory once no phone watches it, so a
server that has played many games holds no more than one that has played a few."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from pathlib import Path
from typing import Any

from werewolf.web.hub import UNWATCHED, Hub
from werewolf.web.room import Room
from werewolf.web.state import Subscriber
from werewolf.web.store import RoomRecord, Store


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def play(hub: Hub, clock: Clock, first: int, games: int) -> int:
    """``games`` all-bot games, each watched by a phone until its end; the most rooms memory held at once."""
    most = 0
    for seed in range(first, first + games):
        room, _ = await hub.create(ruleset="classic", deck="classic9", options={}, bots=list(range(1, 10)),
                                   seed=seed, mode="online", lang="en", players=None, timeout=None,
                                   bot_kind="random", pace=[0, 0])
        sub = Subscriber(4, False, "en", delta=True)
        room.subs.add(sub)
        await hub.start_game(room, fill_with_bots=False)
        for _ in range(1000):
            if sub.dirty.is_set():
                sub.dirty.clear()
                await hub.push(room, sub)
            if room.status == "over":
                break
            clock.now += 1
            await hub.sweep()
        assert room.status == "over"
        most = max(most, len(hub.rooms))
        hub.leave(room, sub)  # the phone is closed
        clock.now += UNWATCHED + 1
        await hub.sweep()
    return most


async def settled(hub: Hub, store: Store) -> None:
    """Every write queued so far committed and told, and every task of the hub's ended (a change's last
    callbacks may hold its room): no fixed number of turns of the loop, which a slow writer outlasts."""
    await store.submit(lambda conn: None)  # the writer settles its writes in order: the earlier ones are told
    while hub._tasks:
        await asyncio.gather(*list(hub._tasks), return_exceptions=True)
    for _ in range(3):  # the callbacks those tasks' ends scheduled
        await asyncio.sleep(0)


def test_a_finished_game_no_phone_watches_leaves_memory_and_memory_stays_flat(tmp_path: Path) -> None:
    async def run() -> tuple[int, int, int, int]:
        clock = Clock()
        store = Store("sqlite:///" + str(tmp_path / "m.sqlite"))
        hub = Hub(store, timeout=0, clock=clock, timers=False)
        await hub.start()
        try:
            await play(hub, clock, 0, 10)  # warm-up: caches, the engine's modules, the database's statements
            gc.collect()
            tracemalloc.start()
            most = await play(hub, clock, 10, 30)
            gc.collect()
            after_30 = tracemalloc.get_traced_memory()[0]
            most = max(most, await play(hub, clock, 40, 60))
            gc.collect()
            after_90 = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            return most, len(hub.rooms), after_30, after_90
        finally:
            await hub.stop()
            store.close()

    most, left, after_30, after_90 = asyncio.run(run())
    assert most == 1 and left == 0  # one game in memory at a time, none once every phone is closed
    # 60 more games: no more than a few kilobytes more (a finished game kept would be ~150 kB).
    assert after_90 - after_30 < 60 * 2_000, (after_30, after_90)


def test_a_room_that_leaves_memory_is_freed_by_its_reference_counts(tmp_path: Path) -> None:
    """``werewolf serve`` lets a full collection come only rarely (``werewolf.web.runtime``): a room in a
    reference cycle (its voice held it once) stayed in memory until then. With the collector off, every
    room played and dropped must be gone, and nothing left for the collector to find."""
    import weakref

    async def run() -> tuple[int, int]:
        clock = Clock()
        store = Store("sqlite:///" + str(tmp_path / "m.sqlite"))
        hub = Hub(store, timeout=0, clock=clock, timers=False)
        await hub.start()
        rooms: list[weakref.ReferenceType[Room]] = []
        made = hub._room

        def watched(rec: RoomRecord) -> Room:
            room = made(rec)
            rooms.append(weakref.ref(room))
            return room

        hub._room = watched  # type: ignore[method-assign]
        try:
            await play(hub, clock, 0, 2)  # warm-up: the modules' and the database's first objects
            gc.collect()
            rooms.clear()
            gc.disable()
            try:
                await play(hub, clock, 2, 3)
                await settled(hub, store)
                alive = sum(r() is not None for r in rooms)
                return alive, gc.collect()
            finally:
                gc.enable()
        finally:
            await hub.stop()
            store.close()

    alive, garbage = asyncio.run(run())
    assert alive == 0, f"{alive} room(s) of 3 still in memory once dropped"
    assert garbage == 0, f"{garbage} object(s) in cycles left behind"


def test_a_finished_game_no_socket_watches_keeps_little_more_than_its_game_and_answers_as_before(
        tmp_path: Path) -> None:
    """In its grace (``UNWATCHED``) a finished game nobody watches lets go of what only play and its
    sockets needed (the bots, each event's JSON, the views and their words), so a server whose games end
    fast does not hold them whole; a request meanwhile is answered exactly as before, and once the grace
    is over the room leaves memory."""
    async def run() -> None:
        clock = Clock()
        store = Store("sqlite:///" + str(tmp_path / "m.sqlite"))
        hub = Hub(store, timeout=0, clock=clock, timers=False)
        await hub.start()
        try:
            room, _ = await hub.create(ruleset="classic", deck="classic9", options={}, bots=list(range(1, 10)),
                                       seed=7, mode="online", lang="en", players=None, timeout=None,
                                       bot_kind="random", pace=[0, 0])
            sub = Subscriber(None, False, "zh-Hant", delta=True)
            room.subs.add(sub)
            await hub.start_game(room, fill_with_bots=False)
            while room.status != "over":
                if sub.dirty.is_set():
                    sub.dirty.clear()
                    await hub.push(room, sub)
                clock.now += 1
                await hub.sweep()
            await settled(hub, store)
            audiences = [(None, False, None), (None, False, "en"), (None, True, "zh-Hant"), (3, False, "zh-Hans")]
            before = [room.view_json(*a) for a in audiences]
            assert room._agents is not None and room._encoded and room._views
            clock.now += 1
            await hub.sweep()
            assert hub.rooms.get(room.id) is room  # a socket watches: nothing is let go
            assert room._agents is not None and room._views
            hub.leave(room, sub)  # the last phone is closed
            clock.now += 1
            await hub.sweep()
            assert hub.rooms.get(room.id) is room  # in its grace
            assert room._agents is None and room._host is None and not room._encoded and not room._views
            assert not room.worded and not room.narrations and room._frame is None
            assert [room.view_json(*a) for a in audiences] == before
            clock.now += UNWATCHED + 1
            await hub.sweep()
            assert room.id not in hub.rooms
            back = await hub.room(room.id)  # replayed from the database, the same to everyone
            assert [back.view_json(*a) for a in audiences] == before
        finally:
            await hub.stop()
            store.close()

    asyncio.run(run())


async def _echo_once(scope: Any, receive: Any, send: Any) -> None:
    """A socket accepted, told one word, then listened to until it closes."""
    assert scope["type"] == "websocket"
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": "hello"})
    while (await receive())["type"] != "websocket.disconnect":
        pass


def test_a_closed_socket_is_freed_by_its_reference_counts() -> None:
    """uvicorn's WebSocket protocol parses with a generator that holds the protocol and is never ended:
    every closed socket stayed in memory as a cycle until a full collection, which ``serve`` makes rare.
    The app's protocol (``werewolf.web.protocols.ws_protocol``) ends it when the connection is lost: with
    the collector off, nothing of a closed socket is left."""
    import uvicorn
    import websockets

    from werewolf.web.protocols import ws_protocol

    from .conftest import free_port

    def lingering() -> int:
        return sum(type(o).__name__ in ("ServerProtocol", "FreedOnClose") for o in gc.get_objects())

    async def run() -> tuple[int, int]:
        port = free_port()
        config = uvicorn.Config(_echo_once, host="127.0.0.1", port=port, log_level="warning", lifespan="off",
                                ws=ws_protocol())
        server = uvicorn.Server(config)
        serving = asyncio.ensure_future(server.serve())
        try:
            while not server.started:
                await asyncio.sleep(0.01)
            gc.collect()
            before = lingering()
            gc.disable()
            try:
                for _ in range(3):
                    async with websockets.connect(f"ws://127.0.0.1:{port}/") as ws:
                        assert await ws.recv() == "hello"
                # The server has seen every connection end, and its tasks for them are over.
                while server.server_state.connections or server.server_state.tasks:
                    await asyncio.sleep(0.01)
                for _ in range(3):
                    await asyncio.sleep(0)
                return before, lingering()
            finally:
                gc.enable()
        finally:
            server.should_exit = True
            await serving

    before, after = asyncio.run(run())
    assert after == before, f"{after - before} protocol object(s) of 3 closed sockets left for the collector"
