"""``serve --workers``: each room's home process (werewolf.web.routing), the copies of rooms that are not a
worker's own, and the way a room goes home after its home died and came back (werewolf.web.cluster).

The process-level test (two workers behind one port, SIGKILL of each) is in test_cluster.py; here two hubs
on one PostgreSQL database play the two workers, each with its place, on a clock of the test's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest

from werewolf.web.cluster import Cluster
from werewolf.web.homes import Place, home, new_room_id
from werewolf.web.hub import STRAY, Hub
from werewolf.web.routing import room_in
from werewolf.web.state import Subscriber
from werewolf.web.store import Store, database_url

from .test_cluster import owner_pid
from .test_pack import Clock, run


def test_a_request_line_names_its_room_and_each_room_has_one_home() -> None:
    assert room_in(b"GET /api/rooms/Ab3dE6gH/ws?delta=true HTTP/1.1\r\nHost: x\r\n") == "Ab3dE6gH"
    assert room_in(b"POST /api/rooms/Ab3dE6gH/act HTTP/1.1\r\n") == "Ab3dE6gH"
    assert room_in(b"GET /r/Ab3dE6gH HTTP/1.1\r\n") == "Ab3dE6gH"
    assert room_in(b"GET /replay/Ab3dE6gH?seat=2 HTTP/1.1\r\n") == "Ab3dE6gH"
    assert room_in(b"GET /api/rooms/Ab3dE6gH HTTP/1.1\r\n") == "Ab3dE6gH"
    for line in (b"POST /api/rooms HTTP/1.1\r\n", b"GET / HTTP/1.1\r\n", b"GET /static/app.js HTTP/1.1\r\n",
                 b"GET /api/rooms/" + b"a" * 33 + b" HTTP/1.1\r\n", b"GET /api/rooms/a%2Fb HTTP/1.1\r\n",
                 b"\x16\x03\x01", b"", b"GET /r/../x HTTP/1.1\r\n"):
        assert room_in(line) is None, line
    ids = [f"room{i}" for i in range(400)]
    assert {home(i, 3) for i in ids} == {0, 1, 2}
    assert all(home(i, 3) == home(i, 3) for i in ids)
    for index in range(3):
        place = Place(index, 3)
        made = {new_room_id(set(), place) for _ in range(30)}
        assert all(place.is_home(i) and home(i, 3) == index for i in made)
    assert Place.parse("1/2") == Place(1, 2) and Place.parse(None) is None
    for bad in ("2/2", "-1/2", "x/2", "1"):
        with pytest.raises(ValueError):
            Place.parse(bad)


async def worker(database: str, index: int, clock: Clock) -> Hub:
    # No clock of their own (tick: an hour): the test sweeps and claims by hand.
    hub = Hub(Store(database_url(database)), timeout=0, tick=3600.0, clock=clock, timers=False,
              place=Place(index, 2), cluster=Cluster)
    await hub.start()
    return hub


async def stop(hub: Hub) -> None:
    await hub.stop()
    hub.store.close()


async def tick(hub: Hub) -> None:
    """One tick of the worker's cluster (claims and releases, adoption) and of its rooms (the sweep), once
    the catch-ups under way (tasks of their own, holding their room's lock) are done."""
    assert hub.cluster is not None
    for _ in range(100):
        if not any(r.lock.locked() for r in hub.rooms.values()) and not hub._tasks:
            break
        await asyncio.sleep(0.05)
    await hub.cluster._claim_and_release(adopt=True)
    await hub.sweep()


async def until(condition: Callable[[], bool], what: str, within: float = 30.0,
                again: Callable[[], Awaitable[None]] | None = None) -> None:
    """Wait for ``condition`` (a claim or a hand-back runs as a task of its own), however busy the machine;
    ``again``: the worker's next tick, as its own clock would run it (a lock its dead home held may be let go
    by the database a moment after the first try)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    polls = 0
    while not condition():
        assert loop.time() < end, f"not within {within:g} s: {what}"
        polls += 1
        if again is not None and polls % 10 == 0:
            await again()
        await asyncio.sleep(0.02)


def test_a_room_is_driven_by_its_home_and_goes_home_after_a_failover(postgres_db: str) -> None:
    async def go() -> None:
        clock = Clock()
        zero, one = await worker(postgres_db, 0, clock), await worker(postgres_db, 1, clock)
        try:
            room, _ = await zero.create(ruleset="classic", deck="classic12", options={}, bots=[], seed=3,
                                        mode="online", lang="en", players=None, timeout=None,
                                        bot_kind="heuristic")
            rid = room.id
            assert Place(0, 2).is_home(rid)
            await zero.join(room, "a person", 1)  # the game waits for them (and for the clock)
            await zero.start_game(room, fill_with_bots=True)
            assert zero.cluster is not None
            await until(lambda: zero.cluster is not None and zero.cluster.owns(rid), "worker 0 claims its room")

            # A request for it reaches worker 1 (a client that mixed rooms on one connection): it is served
            # from a copy, which worker 1 does not claim, and lets go once nobody asked for it a while.
            copy = await one.room(rid)
            assert copy.game.answers == room.game.answers
            await tick(one)
            assert one.cluster is not None and not one.cluster.owns(rid) and rid in one.rooms
            clock.now += STRAY + 1
            await tick(one)
            assert rid not in one.rooms and zero.cluster.owns(rid)

            # Its home dies: worker 1 takes the room over (the home's lock is gone with it).
            await stop(zero)
            await tick(one)
            await until(lambda: one.cluster is not None and one.cluster.owns(rid) and rid in one.rooms,
                        "worker 1 takes the room over", again=lambda: tick(one))
            assert owner_pid(postgres_db, rid) is not None

            # The home is back: worker 1 keeps the room while a socket of its own watches it or it is asked
            # for, then gives it back, and the home takes it.
            zero = await worker(postgres_db, 0, clock)
            assert zero.cluster is not None and not zero.cluster.owns(rid)
            await zero.room(rid)
            await tick(one)
            assert one.cluster.owns(rid), "asked for a moment ago"
            clock.now += STRAY + 1
            await tick(one)
            assert rid not in one.rooms and not one.cluster.owns(rid)
            await tick(zero)
            await until(lambda: zero.cluster is not None and zero.cluster.owns(rid), "the room goes home",
                        again=lambda: tick(zero))
            back = await zero.room(rid)
            assert back.status == "playing" and back.game.answers[:len(room.game.answers)] == room.game.answers
        finally:
            for hub in (zero, one):
                if not hub.closing:
                    await stop(hub)

    run(go())


def test_a_worker_says_it_is_alive_once_the_process_it_replaces_has_let_go(postgres_db: str) -> None:
    """The lock that says a worker is alive may still be held, for a moment, by the session of the process
    it replaces: the new one takes it at a later tick, not never."""
    import psycopg

    from werewolf.web.homes import worker_key

    async def go() -> None:
        with psycopg.connect(postgres_db, autocommit=True) as old:
            old.execute("SELECT pg_advisory_lock(%s)", (worker_key(0),))
            zero = await worker(postgres_db, 0, Clock())
            try:
                assert zero.cluster is not None and not zero.cluster.said_alive
                await tick(zero)
                assert not zero.cluster.said_alive
                old.execute("SELECT pg_advisory_unlock(%s)", (worker_key(0),))
                await tick(zero)
                assert zero.cluster.said_alive
                one = await worker(postgres_db, 1, Clock())
                try:
                    await tick(one)
                    assert one.cluster is not None and one.cluster.homes_alive == {0, 1}
                finally:
                    await stop(one)
            finally:
                await stop(zero)

    run(go())


def test_a_room_a_request_loads_while_the_tick_adopts_it_stays_the_one_its_sockets_watch(postgres_db: str) -> None:
    """The tick's adoption (a room no server holds) and a request (a spectator's socket) may load the same
    room at once. The copy the request made stays in memory, and is the one driven: replaced by the
    adoption's, it would keep its socket at the lobby while the game was played on the other (seen about
    once in 4,000 all-bot games under ``serve --workers 2``)."""
    async def go() -> None:
        zero = await worker(postgres_db, 0, Clock())
        cluster = zero.cluster
        assert cluster is not None
        try:
            made, _ = await zero.create(ruleset="classic", deck="classic12", options={}, bots=range(1, 13),
                                        seed=5, mode="online", lang="en", players=None, timeout=0,
                                        bot_kind="heuristic", pace=[0, 0])
            rid = made.id
            await until(lambda: cluster.owns(rid), "the creator claims its room")
            zero._drop(made)  # no server holds it now: an orphan the next adoption takes
            await cluster.let_go(rid)

            watched: list[Any] = []
            take_locks = cluster._try_locks

            async def locks_then_a_request(ids: Sequence[str]) -> list[str]:
                taken = await take_locks(ids)
                if rid in taken and not watched:  # the adoption holds the lock and has not loaded the room yet
                    room = await zero.room(rid)
                    sub = Subscriber(None, False, "en", delta=True)
                    room.subs.add(sub)
                    watched.append((room, sub))
                return taken

            cluster._try_locks = locks_then_a_request  # type: ignore[method-assign]
            await tick(zero)
            assert watched, "the adoption took the room"
            room, sub = watched[0]
            assert zero.rooms[rid] is room, "the socket's copy is the one in memory"
            await until(lambda: cluster.owns(rid), "the worker drives the room it adopted")
            sub.dirty.clear()
            await zero.start_game(room, fill_with_bots=True)
            assert room.status == "over" and sub.dirty.is_set(), "the socket is told of the game"
        finally:
            await stop(zero)

    run(go())


def test_a_copy_left_behind_by_a_missed_announcement_catches_up_at_the_next_looks(
        postgres_db: str, caplog: pytest.LogCaptureFixture) -> None:
    """A server that follows a room (its copy, a socket on it; another server drives it) and misses the
    announcement of a change (a catch-up whose read failed, say) finds its copy behind the room's row at two
    looks in a row, catches it up, and says so in its log; the socket is told."""
    async def go() -> None:
        clock = Clock()
        zero, one = await worker(postgres_db, 0, clock), await worker(postgres_db, 1, clock)
        try:
            made, _ = await zero.create(ruleset="classic", deck="classic12", options={}, bots=range(1, 13),
                                        seed=6, mode="online", lang="en", players=None, timeout=0,
                                        bot_kind="heuristic", pace=[0, 0])
            rid = made.id
            assert zero.cluster is not None and one.cluster is not None
            await until(lambda: zero.cluster is not None and zero.cluster.owns(rid), "worker 0 claims its room")
            copy = await one.room(rid)
            sub = Subscriber(None, False, "en", delta=True)
            copy.subs.add(sub)

            # Played to its end in one change: one announcement, which worker 1 does not hear (a process
            # takes the announcements of its own writes for its own: werewolf.web.store.writer, and these two
            # hubs share one), as a server misses one whose catch-up failed.
            await zero.start_game(made, fill_with_bots=True)
            assert made.status == "over" and copy.status == "lobby"

            sub.dirty.clear()
            await tick(one)  # behind once: an announcement may still be on its way
            assert copy.status == "lobby" and one.cluster.missed == 0
            await tick(one)  # behind still: caught up, and logged
            await until(lambda: copy.status == "over", "the copy catches up")
            assert one.cluster.missed == 1 and sub.dirty.is_set()
            assert one.rooms[rid] is copy and copy.game.answers == made.game.answers
            assert any("no announcement heard" in r.getMessage() for r in caplog.records)
        finally:
            for hub in (zero, one):
                if not hub.closing:
                    await stop(hub)

    run(go())
