"""Memory that stays flat (issue 16, point 3): a finished game leaves memory once no phone watches it, so a
server that has played many games holds no more than one that has played a few."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from pathlib import Path

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
                for _ in range(5):  # the loop's callbacks of the last change run (they may hold its room)
                    await asyncio.sleep(0)
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
