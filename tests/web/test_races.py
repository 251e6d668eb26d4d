"""One writer per room, whatever the clock does: a live room under a real (short) pace, its timers firing
while people answer as fast as they can and bots follow, timeouts taken by the tick, callers that go away
mid-change, and a server that stops in the middle of it all.

After every change the database holds exactly what memory does (every answer once, none lost, the pacer's
released count), and a restart replays the same game.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from werewolf.web.errors import ApiError
from werewolf.web.hub import Hub
from werewolf.web.pacing import Pace
from werewolf.web.room import Room
from werewolf.web.store import Store

T = TypeVar("T")
NINE = ["werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "villager", "villager", "villager"]


def within(work: Coroutine[Any, Any, T], seconds: float = 90) -> Coroutine[Any, Any, T]:
    """``work``, failed rather than hung if the database stops answering."""
    return asyncio.wait_for(work, seconds)


def stored(rec: Any) -> list[tuple[int, str, str]]:
    return [(s, a, json.dumps(v)) for s, a, v in rec.answers]


def in_memory(room: Room) -> list[tuple[int, str, str]]:
    return [(s, a, json.dumps(v)) for s, a, v in room.game.answers]


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every change of every hub is followed (room lock still held) by a look at the database: what it
    holds must be exactly what the room holds. The disagreements found are listed."""
    found: list[str] = []
    change = Hub._change

    async def change_then_compare(self: Hub, room: Room, *args: Any, **kwargs: Any) -> None:
        try:
            await change(self, room, *args, **kwargs)
        finally:
            if self.rooms.get(room.id) is room and self.store._thread.is_alive():
                rec = (await self.store.submit(Store.load([room.id])))[0]
                if stored(rec) != in_memory(room) or room.committed != len(rec.answers):
                    found.append(f"room {room.id}: {len(rec.answers)} answers stored, {len(room.game.answers)} "
                                 f"in memory, {room.committed} counted as stored")
                if (rec.paced or 0) != room.pacer.released:
                    found.append(f"room {room.id}: paced {rec.paced} stored, {room.pacer.released} in memory")

    monkeypatch.setattr(Hub, "_change", change_then_compare)
    yield found


async def play(hub: Hub, room: Room, people: list[int], rng: random.Random, junk: float = 0.2) -> list[str]:
    """People who answer what they are asked as soon as they see it (some of it nonsense), until the end.
    The 5xx they get are returned."""
    errors: list[str] = []

    async def person(seat: int) -> None:
        while not room.over():
            asked = room.pending(seat)
            if not asked:
                await asyncio.sleep(rng.random() * 0.004)
                continue
            moves = [m for d in asked for m in d.options()]
            move = rng.choice(moves) if rng.random() > junk else rng.choice(
                [{"act": "nonsense"}, {"act": moves[0]["act"], "target": 99}, {"x": 1}])
            try:
                await hub.act(room, seat, move)
            except ApiError as err:
                if err.status >= 500:
                    errors.append(err.message)

    await asyncio.wait_for(asyncio.gather(*(person(s) for s in people)), 60)
    return errors


async def table(hub: Hub, people: list[int], seed: int, pace: Pace, timeout: float | None = None) -> Room:
    room, _ = await hub.create(ruleset="classic", deck=NINE, options={}, seed=seed, mode="online", lang="en",
                               players=None, timeout=timeout, bots=[s for s in range(1, 10) if s not in people],
                               bot_kind="random", pace=pace.as_json())
    for s in people:
        await hub.join(room, f"P{s}", s)
    await hub.start_game(room, fill_with_bots=False)
    return room


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
@pytest.mark.parametrize("people", [list(range(1, 10)), [1, 4, 5], [2]], ids=["people", "mixed", "one"])
def test_quick_answers_and_timers_never_store_an_answer_twice(tmp_path: Path, checked: list[str],
                                                               caplog: pytest.LogCaptureFixture,
                                                               people: list[int]) -> None:
    """Three rooms at once at a real pace of a few hundredths of a second (its timers and the tick firing
    between and during the answers); then the server restarts and every room replays to the same state."""
    url = "sqlite:///" + str(tmp_path / "races.sqlite")
    pace = Pace(0.005, 0.03)

    async def run() -> dict[str, tuple[Any, ...]]:
        store = Store(url)
        hub = Hub(store, timeout=0, tick=0.01, pace=pace)
        await hub.start()
        rooms = [await table(hub, people, seed, pace) for seed in range(3)]
        errors = await asyncio.gather(*(play(hub, r, people, random.Random(i)) for i, r in enumerate(rooms)))
        assert [e for es in errors for e in es] == []
        await hub.stop()  # the changes under way are stored first
        assert store._thread.is_alive()
        store.close()
        before = {r.id: (in_memory(r), [e.as_json() for e in r.shown()], r.status) for r in rooms}
        store = Store(url)
        hub = Hub(store, timeout=0, pace=pace)
        await hub.start()
        after = {}
        for rid in before:
            r = await hub.room(rid)
            after[rid] = (in_memory(r), [e.as_json() for e in r.shown()], r.status)
        await hub.stop()
        store.close()
        assert after == before
        return before

    with caplog.at_level(logging.WARNING, logger="werewolf.web"):
        games = asyncio.run(within(run()))
    assert checked == []
    assert all(status == "over" for _, _, status in games.values())
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_timeouts_taken_by_the_tick_during_quick_answers(tmp_path: Path, checked: list[str],
                                                         caplog: pytest.LogCaptureFixture) -> None:
    """People who answer now and then, a timeout of a few hundredths of a second taken by the tick (while
    timers release steps and the others answer): the same invariants."""
    pace = Pace(0.005, 0.02)

    async def run() -> Room:
        store = Store("sqlite:///" + str(tmp_path / "timeouts.sqlite"))
        hub = Hub(store, timeout=0.03, tick=0.005, pace=pace)
        await hub.start()
        room = await table(hub, [1, 2, 3, 4, 5, 6], 11, pace, timeout=0.03)
        rng = random.Random(5)

        async def slow(seat: int) -> None:
            while not room.over():
                await asyncio.sleep(rng.random() * 0.05)
                asked = room.pending(seat)
                if asked and rng.random() < 0.5:
                    try:
                        await hub.act(room, seat, rng.choice([m for d in asked for m in d.options()]))
                    except ApiError as err:
                        assert err.status < 500, err.message

        await asyncio.wait_for(asyncio.gather(*(slow(s) for s in range(1, 7))), 60)
        await hub.stop()
        assert store._thread.is_alive()
        store.close()
        return room

    with caplog.at_level(logging.WARNING, logger="werewolf.web"):
        room = asyncio.run(within(run()))
    assert room.status == "over"
    assert checked == []
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_caller_that_goes_away_mid_commit_changes_nothing_of_the_room(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The tick's timeout (or any caller) cancelled while its change is being stored: the change is stored
    and counted all the same, so the next answer is stored after it, not over it."""
    slow = threading.Event()
    progress = Store.progress

    def slow_progress(*args: Any, **kwargs: Any) -> Any:
        write = progress(*args, **kwargs)

        def run(conn: Any) -> None:
            if slow.is_set():
                time.sleep(0.2)  # the transaction is under way when its caller goes
            write(conn)
        return run

    monkeypatch.setattr(Store, "progress", staticmethod(slow_progress))

    async def run() -> tuple[list[Any], list[Any], list[Any]]:
        store = Store("sqlite:///" + str(tmp_path / "cancel.sqlite"))
        hub = Hub(store, timeout=0, pace=Pace(0, 0), timers=False)
        await hub.start()
        room = await table(hub, [1, 2, 3, 4, 5, 6, 7, 8, 9], 3, Pace(0, 0))
        first = room.pending()[0]
        slow.set()
        caller = asyncio.ensure_future(hub.decline(room, [first]))
        await asyncio.sleep(0.05)  # the change is in the database's hands
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        slow.clear()
        nxt = room.pending()
        while not nxt:  # the cancelled change may still be finishing
            await asyncio.sleep(0.01)
            nxt = room.pending()
        # The next change answers (at the pack's knife a person's ``/act`` is a pick until the pack agrees).
        await hub.decline(room, [nxt[0]])
        rec = (await store.submit(Store.load([room.id])))[0]
        memory = in_memory(room)
        await hub.stop()
        store.close()
        return stored(rec), memory, [room.committed]

    db, memory, committed = asyncio.run(within(run()))
    assert db == memory and committed == [len(db)] and len(db) == 2


def test_a_read_whose_caller_went_away_does_not_stop_the_database(tmp_path: Path) -> None:
    """A request that disconnects while its room is being loaded: the writer thread goes on."""
    async def run() -> int:
        store = Store("sqlite:///" + str(tmp_path / "reads.sqlite"))
        gate = threading.Event()
        blocker = store.submit(lambda conn: gate.wait(5))
        abandoned = store.submit(Store.load(["nobody"]))
        abandoned.cancel()
        for _ in range(3):
            await asyncio.sleep(0)  # the cancellation reaches the store's future
        gate.set()
        await blocker
        n = await asyncio.wait_for(store.submit(Store.load(["nobody"])), 5)
        store.close()
        return len(n)

    assert asyncio.run(within(run())) == 0


def test_stop_cancels_the_timers_first_and_refuses_new_work(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A server that stops while its rooms are paced and their bots play: no timer fires after the stop, no
    change is cut in half, and what comes after the stop is refused with a clear error, not tried."""
    pace = Pace(0.01, 0.03)

    async def run() -> tuple[Room, str, Hub]:
        store = Store("sqlite:///" + str(tmp_path / "stop.sqlite"))
        hub = Hub(store, timeout=0, tick=0.005, pace=pace)
        await hub.start()
        rooms = [await table(hub, [], seed, pace) for seed in range(4)]
        person = await table(hub, [1], 9, pace)
        # the bots' rooms are under way, their timers set, when the server stops
        end = asyncio.get_running_loop().time() + 30
        while min(len(r.game.answers) for r in rooms) < 3:
            assert asyncio.get_running_loop().time() < end, "the bots' rooms did not start playing"
            await asyncio.sleep(0.01)
        await hub.stop()
        await asyncio.sleep(0.2)  # any timer left would fire now
        try:
            asked = person.pending(1)
            await hub.act(person, 1, asked[0].options()[0] if asked else {"act": "vote", "target": 2})
            refused = ""
        except ApiError as err:
            refused = f"{err.status} {err.message}"
        store.close()
        return rooms[0], refused, hub

    with caplog.at_level(logging.WARNING, logger="werewolf.web"):
        room, refused, hub = asyncio.run(within(run()))
    assert refused.startswith("503 ") and "shutting down" in refused
    assert not hub._tasks
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_step_that_waits_for_its_player_does_not_wake_its_room_over_and_over(tmp_path: Path) -> None:
    """Once a step's time is over, only its player's answer moves it on: the room is not woken (nor
    published) again and again meanwhile, however long the player thinks."""
    pace = Pace(0.01, 0.02)

    async def run() -> tuple[int, list[str]]:
        store = Store("sqlite:///" + str(tmp_path / "wait.sqlite"))
        hub = Hub(store, timeout=0, tick=0.05, pace=pace)
        await hub.start()
        room = await table(hub, list(range(1, 10)), 1, pace)
        # the wolves' step is over (nothing left for the clock to move on): they think
        end = asyncio.get_running_loop().time() + 30
        while room.pacer.due(room.game.events) is not None or not room.pending():
            assert asyncio.get_running_loop().time() < end, "the wolves' step never ended"
            await asyncio.sleep(0.01)
        asked = [d.act for d in room.pending()]
        published = room.version
        await asyncio.sleep(0.5)
        published = room.version - published
        await hub.stop()
        store.close()
        return published, asked

    published, asked = asyncio.run(within(run()))
    assert asked and set(asked) == {"kill"}
    assert published <= 1
