"""Timing that says nothing: a live room's public stream is the same whether a role is played, dead or
in the centre (issue 14, point 1), on a fake clock."""

from __future__ import annotations

import asyncio
import random
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from werewolf.core.game import Game, Setup
from werewolf.web.hub import Hub
from werewolf.web.pacing import Pace, Pacer
from werewolf.web.room import Room
from werewolf.web.state import Subscriber
from werewolf.web.store import RoomRecord, Store

PACE = Pace(2.0, 5.0)

# Classic 12: the seer in seat 1 (A) or seat 2 (B); the wolves kill seat 1 on night 1 in both.
SEER_FIRST = ("seer", "villager", "villager", "villager", "villager", "werewolf", "werewolf", "werewolf",
              "werewolf", "witch", "hunter", "guard")
SEER_SECOND = ("villager", "seer") + SEER_FIRST[2:]


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def scripted(setup: Setup, until: Callable[[Game], bool]) -> Game:
    """Night 1 and day 1 played the same way in both rooms: the pack kills seat 1, the rest decline."""
    g = Game(setup)
    while not until(g):
        for d in g.pending():
            if d.act == "kill":
                g.answer_value(d, 1)
            else:
                g.decline(d)
    return g


def record(room_id: str, setup: Setup, answers: list[Any], paced: int) -> RoomRecord:
    n = len(setup.seats or ())
    return RoomRecord(id=room_id, created=0.0, status="playing", setup=setup.as_json(), mode="online", lang="en",
                      bots=list(range(1, n + 1)), host_hash="x" * 64, timeout=None, bot_kind="random",
                      paced=paced, pace=PACE.as_json(), answers=answers)


async def stream(tmp: Path, rec: RoomRecord, rng: random.Random, stop: Callable[[Room], bool],
                 dt: float = 0.05) -> list[tuple[float, list[dict[str, Any]]]]:
    """The spectator's updates from the reload of ``rec`` until ``stop``: (time since the start, the new public
    events of the update). The clock moves in steps of ``dt``; the hub is swept after each."""
    clock = Clock()
    tmp.mkdir(parents=True, exist_ok=True)
    store = Store("sqlite:///" + str(tmp / f"{rec.id}.sqlite"))
    try:
        await store.submit(Store.create_room(rec))
        if rec.answers:
            await store.submit(Store.append_answers(rec.id, 0, rec.answers))
        hub = Hub(store, timeout=0, clock=clock, rng=rng, timers=False)
        await hub.start()
        room = await hub.room(rec.id)
        sub = Subscriber(None, False, None)
        room.subs.add(sub)
        out: list[tuple[float, list[dict[str, Any]]]] = []
        seen = 0
        t0 = clock.now
        for _ in range(100_000):
            if sub.dirty.is_set():
                sub.dirty.clear()
                view = await hub.push(room, sub)
                if view is not None:
                    events = [e for e in room.shown() if e.to is None]
                    if len(events) > seen:
                        out.append((round(clock.now - t0, 6), [e.as_json() for e in events[seen:]]))
                        seen = len(events)
            if stop(room):
                break
            clock.now += dt
            await hub.sweep()
        await hub.stop()
        return out
    finally:
        store.close()


def night2(events: list[tuple[float, list[dict[str, Any]]]]) -> list[tuple[float, list[dict[str, Any]]]]:
    """The updates of night 2 up to the dawn (the first update holding a public event of day 2)."""
    out = []
    for t, evs in events:
        out.append((t, [e for e in evs if e["phase"] == "night2"]))
        if any(e["phase"] == "day2" for e in evs):
            break
    return out


def classic_pair(tmp: Path, rng: Callable[[], random.Random]) -> tuple[list[Any], list[Any]]:
    outs = []
    for name, seats in (("seerdead", SEER_FIRST), ("seeralive", SEER_SECOND)):
        setup = Setup("classic", seats=seats, seed=5, live_speech=True, options={"sheriff": False})
        g = scripted(setup, lambda g: g.phase == "night2")
        # Everything up to night 2 is out; night 2 is paced from the reload on.
        paced = next(i for i, e in enumerate(g.events) if e.type == "night" and e.phase == "night2")
        rec = record(name, setup, list(g.answers), paced)
        outs.append(night2(asyncio.run(stream(tmp, rec, rng(), lambda r: r.phase() == "day2" or r.over()))))
    assert {e.type for e in scripted(Setup("classic", seats=SEER_FIRST, seed=5, live_speech=True,
                                            options={"sheriff": False}), lambda g: g.phase == "night2").events
            if e.type == "death" and e.data.get("seat") == 1}
    return outs[0], outs[1]


def test_a_dead_seers_night_looks_like_a_living_seers_night(tmp_path: Path) -> None:
    # The same pacing randomness in both rooms: the spectator's stream is the same, update for update.
    dead, alive = classic_pair(tmp_path, lambda: random.Random(7))
    assert dead == alive
    steps = [e for _, evs in dead for e in evs if e["type"] == "step"]
    assert [e["role"] for e in steps] == ["guard", "werewolf", "witch", "seer", "hunter"]
    # Each update carries at most one step, and no step comes in the update of the step before it.
    assert all(sum(e["type"] == "step" for e in evs) <= 1 for _, evs in dead)
    gaps = [b[0] - a[0] for a, b in zip(dead, dead[1:])]
    assert all(g >= PACE.low for g in gaps[1:]), gaps


def test_timing_is_drawn_the_same_way_dead_or_alive(tmp_path: Path) -> None:
    # The server's own randomness: each room draws its own durations; the grouping is the same and every
    # step lasts within the room's range, up to its cap where a person's answer time is drawn too (plus the
    # pause after a step), whoever held it.
    for _ in range(3):
        dead, alive = classic_pair(tmp_path / f"r{_}", lambda: random.SystemRandom())
        assert [[e["type"] for e in evs] for _, evs in dead] == [[e["type"] for e in evs] for _, evs in alive]
        for stream_ in (dead, alive):
            times = [t for t, evs in stream_ if any(e["type"] == "step" for e in evs)]
            for a, b in zip(times, times[1:]):
                assert PACE.low + PACE.gap - 0.06 <= b - a <= PACE.cap + PACE.gap + 0.11, (a, b)


ONUW = ("werewolf", "seer", "robber", "villager", "troublemaker")
ONUW_CENTER = ("werewolf", "villager", "villager")


def onuw_pair(tmp: Path, rng: Callable[[], random.Random]) -> tuple[list[Any], list[Any]]:
    outs = []
    dealt = (Setup("onuw", seats=ONUW, center=ONUW_CENTER, seed=3, live_speech=True),
             Setup("onuw", seats=("werewolf", "seer", "villager", "villager", "troublemaker"),
                   center=("werewolf", "robber", "villager"), seed=3, live_speech=True))
    for name, setup in zip(("robberdealt", "robbercentre"), dealt):
        rec = record(name, setup, [], 0)
        events = asyncio.run(stream(tmp, rec, rng(), lambda r: r.phase() == "day1" or r.over()))
        outs.append([(t, [e for e in evs if e["phase"] == "night1"]) for t, evs in events])
    return outs[0], outs[1]


def test_a_robber_in_the_centre_takes_as_long_as_a_dealt_one(tmp_path: Path) -> None:
    dealt, centre = onuw_pair(tmp_path, lambda: random.Random(11))
    assert dealt == centre
    steps = [e["role"] for _, evs in dealt for e in evs if e["type"] == "step"]
    assert steps == ["werewolf", "seer", "robber", "troublemaker"]
    assert all(sum(e["type"] == "step" for e in evs) <= 1 for _, evs in dealt)


def test_a_lone_wolf_waits_as_long_as_a_pair(tmp_path: Path) -> None:
    # A lone wolf may look at a centre card (a decision); two wolves only see each other (none).
    streams = []
    for name, seats, center in (("lone", ONUW, ONUW_CENTER),
                                ("pair", ("werewolf", "seer", "robber", "werewolf", "troublemaker"),
                                 ("villager", "villager", "villager"))):
        setup = Setup("onuw", seats=seats, center=center, seed=3, live_speech=True)
        events = asyncio.run(stream(tmp_path, record(name, setup, [], 0), random.Random(2),
                                    lambda r: r.phase() == "day1" or r.over()))
        streams.append([(t, [e for e in evs if e["phase"] == "night1"]) for t, evs in events])
    assert streams[0] == streams[1]


def test_pace_is_validated() -> None:
    assert Pace.parse([1, 2]) == Pace(1.0, 2.0)
    for bad in ([1], [2, 1], [-1, 2], [0, float("inf")], [0, float("nan")], [0, 121], ["1", 2], [True, 2],
                "4-9", None, [0, 10**400]):
        with pytest.raises(ValueError, match="pace"):
            Pace.parse(bad)


def test_durations_come_from_the_secret_randomness_by_default() -> None:
    import secrets

    p = Pacer(PACE, [], 0, 0.0)
    assert isinstance(p.rng, secrets.SystemRandom)
    draws = [PACE.draw(p.rng) for _ in range(200)]
    assert all(PACE.low <= d <= PACE.high for d in draws) and statistics.pstdev(draws) > 0.5


def test_a_restart_neither_skips_nor_repeats_a_step(tmp_path: Path) -> None:
    async def run() -> tuple[list[Any], list[Any], list[Any], int]:
        clock = Clock()
        url = "sqlite:///" + str(tmp_path / "restart.sqlite")
        store = Store(url)
        hub = Hub(store, timeout=0, clock=clock, rng=random.Random(1), timers=False)
        await hub.start()
        room, _ = await hub.create(ruleset="classic", deck="classic12", options={}, bots=list(range(1, 13)),
                                   seed=None, mode="online", lang="en", players=None, timeout=None,
                                   bot_kind="random", pace=PACE.as_json())
        await hub.start_game(room, fill_with_bots=False)
        while sum(e.type == "step" for e in room.shown()) < 3:
            clock.now += 0.1
            await hub.sweep()
        before = [e.as_json() for e in room.shown() if e.to is None]
        engine_ahead = len(room.game.events) - len(room.shown())
        await hub.stop()
        store.close()
        # The server comes back (later, on its clock): the same events are out, the open step is played again.
        clock.now += 3600
        store = Store(url)
        hub = Hub(store, timeout=0, clock=clock, rng=random.Random(2), timers=False)
        await hub.start()
        room = await hub.room(room.id)
        after = [e.as_json() for e in room.shown() if e.to is None]
        while not room.phase().startswith("day"):
            clock.now += 0.1
            await hub.sweep()
        rest = [e.as_json() for e in room.shown() if e.to is None]
        await hub.stop()
        store.close()
        return before, after, rest, engine_ahead

    before, after, rest, _ = asyncio.run(run())
    assert after == before
    assert rest[:len(before)] == before
    steps = [e["role"] for e in rest if e["type"] == "step" and e["phase"] == "night1"]
    assert steps == ["werewolf", "witch", "seer", "hunter", "idiot"]  # each once, in order


WITCH_TABLE = ("villager", "villager", "villager", "villager", "werewolf", "werewolf", "werewolf", "werewolf",
               "witch", "seer", "hunter", "guard")


def witch_uses_both(g: Game) -> None:
    """Night 1: the pack kills seat 1, the witch saves; night 2: the pack kills seat 3, she poisons seat 2."""
    night = g.phase
    for d in g.pending():
        if d.act == "kill":
            g.answer_value(d, 1 if night == "night1" else 3)
        elif d.act == "save|poison":
            g.answer_value(d, ("save", True) if night == "night1" else ("poison", 2))
        elif d.act == "save" and night == "night1":
            g.answer_value(d, True)
        elif d.act == "poison" and night == "night2":
            g.answer_value(d, 2)
        else:
            g.decline(d)


def test_a_witch_with_nothing_left_is_woken_and_shown_it(tmp_path: Path) -> None:
    setup = Setup("classic", seats=WITCH_TABLE, seed=5, live_speech=True, options={"sheriff": False})
    g = Game(setup)
    while g.phase != "night3":
        witch_uses_both(g)
    paced = next(i for i, e in enumerate(g.events) if e.type == "night" and e.phase == "night3")
    rec = record("witch", setup, list(g.answers), paced)
    rec.bots = [s for s in range(1, 13) if s != 9]  # the witch is a person

    async def run() -> tuple[list[Any], list[Any], float, float]:
        clock = Clock()
        store = Store("sqlite:///" + str(tmp_path / "witch.sqlite"))
        await store.submit(Store.create_room(rec))
        await store.submit(Store.append_answers(rec.id, 0, rec.answers))
        hub = Hub(store, timeout=0, clock=clock, rng=random.Random(3), timers=False)
        await hub.start()
        room = await hub.room(rec.id)
        woken, others = [], []
        opened = closed = 0.0
        while not room.phase().startswith("day"):
            witch = room.view(9)
            if witch["awake"] is not None and not woken:
                opened = clock.now
            if witch["awake"] is None and woken and not closed:
                closed = clock.now
            if witch["awake"] is not None:
                assert witch["pending"] is None
                woken.append(witch["awake"])
            others += [room.view(s)["awake"] for s in (1, 5, 10)] + [room.view(None)["awake"]]
            clock.now += 0.05
            await hub.sweep()
        await hub.stop()
        store.close()
        return woken, others, opened, closed

    woken, others, opened, closed = asyncio.run(run())
    assert woken and all(w == {"step": woken[0]["step"], "role": "witch"} for w in woken)
    assert PACE.low - 0.06 <= closed - opened <= PACE.high + 0.06  # held as long as anyone's step
    assert all(a is None for a in others)


def test_a_quick_person_does_not_shorten_the_step(tmp_path: Path) -> None:
    # The seer (a person) answers the moment she is asked: she sees her result at once, but the next step
    # starts only once her step's drawn time is over, as for anyone else.
    setup = Setup("classic", seats=WITCH_TABLE, seed=5, live_speech=True, options={"sheriff": False})
    rec = record("quick", setup, [], 0)
    rec.bots = [s for s in range(1, 13) if s != 10]

    async def run() -> tuple[float, float, float, bool]:
        clock = Clock()
        store = Store("sqlite:///" + str(tmp_path / "quick.sqlite"))
        await store.submit(Store.create_room(rec))
        hub = Hub(store, timeout=0, clock=clock, rng=random.Random(4), timers=False)
        await hub.start()
        room = await hub.room(rec.id)
        asked = answered = following = 0.0
        told = False
        while not following:
            if room.pending(10) and not answered:
                asked = answered = clock.now
                v = room.view(10)
                await hub.act(room, 10, v["pending"][0])
                told = any(e["type"] == "check" for e in room.view(10)["events"])
            steps = [e for e in room.shown() if e.type == "step"]
            if answered and steps[-1].data["role"] != "seer":
                following = clock.now
            clock.now += 0.05
            await hub.sweep()
        await hub.stop()
        store.close()
        return asked, answered, following, told

    asked, answered, following, told = asyncio.run(run())
    assert told  # her result, at once
    assert following - asked >= PACE.low + PACE.gap - 0.06


def test_a_step_a_person_owes_stops_the_clock_once_its_time_is_over() -> None:
    """Once a person's step has lasted its time, only their answer moves the room on: the pacer is not due
    again (it was due at once, for ever: every room whose player thought at night spun the server)."""
    setup = Setup("classic", seats=SEER_FIRST, seed=1)
    g = Game(setup)
    clock = 1000.0
    pacer = Pacer(PACE, g.events, 0, clock, random.Random(1))
    while pacer.step is None or not pacer.settled(g.events):  # on to the first step, wholly released
        if not pacer.advance(g.events, clock):
            clock += 0.5
    owed = g.pending()
    assert owed and pacer.due(g.events) == pacer.hold_until > clock
    clock = pacer.hold_until + 0.1
    assert not pacer.advance(g.events, clock)  # over, but nothing more to release: the holder still owes it
    assert pacer.due(g.events) is None and pacer.bots_may_answer(g.events, clock)
    for d in owed:
        g.decline(d)
    if not pacer.settled(g.events):  # the answer's events: the clock moves the room on again
        assert pacer.due(g.events) is not None
