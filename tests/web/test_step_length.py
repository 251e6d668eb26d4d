"""A step's length says nothing of who holds the role (issue 25, item 3): a slow person's step is
declined at the step's cap, as a dead role's step ends, and a step that waits for no person lasts as long
as this room's people take at that step (scripts/step_timing.py measures the distributions)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from werewolf.core.game import Game, Setup
from werewolf.web.hub import Hub
from werewolf.web.pacing import STEP_CAP, Pace, Pacer
from werewolf.web.store import Store

from .test_pacing import SEER_FIRST, WITCH_TABLE, Clock, record

PACE = Pace(4.0, 9.0)


def first_waiting_step(pacer: Pacer, g: Game, clock: float) -> float:
    """On to the first step that waits for an answer, wholly released; the clock then."""
    while pacer.step is None or not pacer.settled(g.events) or not g.pending():
        if not pacer.advance(g.events, clock):
            clock += 0.25
    return clock


def test_a_person_who_has_not_answered_at_the_cap_is_declined() -> None:
    g = Game(Setup("classic", seats=SEER_FIRST, seed=1))
    pacer = Pacer(PACE, g.events, 0, 1000.0, random.Random(1))
    pacer.asks_person = lambda: True
    clock = first_waiting_step(pacer, g, 1000.0)
    assert pacer.person and PACE.cap == STEP_CAP > PACE.high
    start = pacer.started
    clock = pacer.hold_until + 0.1
    pacer.advance(g.events, clock)  # its drawn time is over; the person still thinks
    assert pacer.due(g.events) == start + PACE.cap  # the room is woken at the cap
    assert not pacer.overdue(g.events, start + PACE.cap - 0.01)
    assert pacer.overdue(g.events, start + PACE.cap)
    pacer.expire()
    role = g.events[pacer.step].data["role"]
    for d in g.pending():
        g.decline(d)
    while pacer.advance(g.events, start + PACE.cap):
        pass
    assert pacer.step is None or g.events[pacer.step].data["role"] != role  # the step is over
    assert pacer.answers.get(role, []) == []  # a decline is no answer time


def test_a_person_s_answer_time_is_the_room_s_for_that_step() -> None:
    g = Game(Setup("classic", seats=SEER_FIRST, seed=1))
    pacer = Pacer(PACE, g.events, 0, 1000.0, random.Random(1))
    pacer.asks_person = lambda: True
    first_waiting_step(pacer, g, 1000.0)
    role = g.events[pacer.step].data["role"]
    start = pacer.started
    for d in g.pending():
        g.decline(d)
    pacer.advance(g.events, start + 17.5)
    assert pacer.answers[role] == [17.5]


def test_a_step_that_waits_for_no_person_lasts_as_long_as_the_room_s_people_take() -> None:
    for times, length in (([20.0], 20.0), ([100.0], STEP_CAP), ([0.5], None)):
        g = Game(Setup("classic", seats=SEER_FIRST, seed=1))
        pacer = Pacer(PACE, g.events, 0, 1000.0, random.Random(1))
        pacer.asks_person = lambda: False  # bots, or a dead role: nobody to wait for
        clock = 1000.0
        while pacer.step is None:
            if not pacer.advance(g.events, clock):
                clock += 0.25
        role = g.events[pacer.step].data["role"]
        pacer.answers[role] = times
        pacer.step = None
        pacer.released = next(i for i, e in enumerate(g.events) if e.type == "step")  # that step, again
        pacer.next_at = clock
        assert pacer.advance(g.events, clock) and not pacer.person
        drawn = pacer.hold_until - pacer.started
        if length is None:
            assert PACE.low <= drawn <= PACE.high  # a quick room: the pace's own draw
        else:
            assert drawn == length


def test_a_person_seer_who_never_answers_is_declined_and_the_night_goes_on(tmp_path: Path) -> None:
    setup = Setup("classic", seats=WITCH_TABLE, seed=5, live_speech=True, options={"sheriff": False})
    rec = record("slow", setup, [], 0)
    rec.pace = PACE.as_json()
    rec.bots = [s for s in range(1, 13) if s != 10]  # the seer (seat 10) is a person, who never answers

    async def run() -> tuple[float, float]:
        clock = Clock()
        store = Store("sqlite:///" + str(tmp_path / "slow.sqlite"))
        await store.submit(Store.create_room(rec))
        hub = Hub(store, timeout=0, clock=clock, rng=random.Random(4), timers=False)
        await hub.start()
        room = await hub.room(rec.id)
        asked = after = 0.0
        t0 = clock.now
        while not after and clock.now - t0 < 600:  # (today's main waits for her for ever)
            steps = [e for e in room.shown() if e.type == "step"]
            if room.pending(10) and not asked:
                asked = clock.now
            if asked and steps[-1].data["role"] != "seer":
                after = clock.now
            clock.now += 0.25
            await hub.sweep()
        await hub.stop()
        store.close()
        return room.pacer.started, asked

    started_next, asked = asyncio.run(run())
    assert asked and asked < started_next <= asked + STEP_CAP + PACE.gap + 0.6  # declined at the cap
