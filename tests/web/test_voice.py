"""The voice leads face-to-face play (issue 15, point 3), on a fake clock: no decision before its call, the
ack cursor survives a restart, a room without a moderator device still runs, and the line stream says
nothing of a hidden fact."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from werewolf.core.game import Game, Setup
from werewolf.web.cluster import Cluster
from werewolf.web.hub import Hub
from werewolf.web.room import Room
from werewolf.web.store import RoomRecord, Store
from werewolf.web.voice import LEASE, STALL, Line, VoiceAck

from .test_pacing import ONUW, ONUW_CENTER, PACE, SEER_FIRST, SEER_SECOND, Clock, record, scripted

Heard = list[tuple[float, int, str]]  # (time since the start, line number, text) as the device said them


def face(rec: RoomRecord) -> RoomRecord:
    return dataclasses.replace(rec, mode="face_to_face")


def speaking_time(text: str) -> float:
    """How long the device takes to say a line: its length only (a synthesiser knows nothing else)."""
    return 0.4 + 0.03 * len(text)


async def lead(hub: Hub, room: Room, clock: Clock, stop: Callable[[Room], bool],
               act: Callable[[Room, Heard], Awaitable[None]] | None = None, dt: float = 0.05,
               device: bool = True, silent_after: float | None = None) -> Heard:
    """The moderator device: it switches the voice on, says each line of the script once, in order (a line
    takes ``speaking_time``), acknowledges it, and speaks up every few seconds; ``act`` plays the people.
    ``silent_after``: the device goes away then (its page closed)."""
    t0 = clock.now
    heard: Heard = []
    if device:
        await hub.voice(room, VoiceAck(on=True))
    saying: tuple[int, float] | None = None
    beat = clock.now
    for _ in range(400_000):
        here = device and (silent_after is None or clock.now - t0 < silent_after)
        if here:
            lines = room.voice.lines()
            if saying is None and room.voice.heard < len(lines):
                n = room.voice.heard
                text = lines[n].text("en")
                heard.append((round(clock.now - t0, 6), n, text))
                saying = (n, clock.now + speaking_time(text))
            if saying is not None and clock.now >= saying[1]:
                await hub.voice(room, VoiceAck(heard=saying[0] + 1))
                saying = None
                beat = clock.now
            elif clock.now - beat >= 4:
                await hub.voice(room, VoiceAck(heard=room.voice.heard))
                beat = clock.now
        if act is not None:
            await act(room, heard)
        if stop(room):
            return heard
        clock.now += dt
        await hub.sweep()
    raise AssertionError("the game did not get there")


async def opened(tmp: Path, rec: RoomRecord, rng: random.Random, clock: Clock,
                 url: str | None = None) -> tuple[Hub, Store, Room]:
    tmp.mkdir(parents=True, exist_ok=True)
    store = Store(url or "sqlite:///" + str(tmp / f"{rec.id}.sqlite"))
    await store.submit(Store.create_room(rec))
    if rec.answers:
        await store.submit(Store.append_answers(rec.id, 0, rec.answers))
    hub = Hub(store, timeout=0, clock=clock, rng=rng, timers=False, cluster=Cluster)
    await hub.start()
    return hub, store, await hub.room(rec.id)


WITCH_TABLE = ("villager", "villager", "villager", "villager", "werewolf", "werewolf", "werewolf", "werewolf",
               "witch", "seer", "hunter", "guard")
PEOPLE = {5: "werewolf", 9: "witch", 10: "seer", 12: "guard"}  # seats played by people in these tests


def night_table(tmp: Path) -> RoomRecord:
    setup = Setup("classic", seats=WITCH_TABLE, seed=5, live_speech=True, options={"sheriff": False})
    rec = face(record("t5", setup, [], 0))
    rec.bots = [s for s in range(1, 13) if s not in PEOPLE]
    rec.bot_kind = "heuristic"  # random wolves self-destruct at the first chance
    return rec


def test_no_phone_is_asked_at_night_before_the_voice_calls_its_role(tmp_path: Path) -> None:
    rng = random.Random(5)
    asked: list[tuple[str, int, list[str]]] = []  # (phase, seat, the lines heard so far this night)
    by_day: list[tuple[int, str, str]] = []  # (seat, act, the last line heard) of each day decision

    async def people(room: Room, heard: Heard) -> None:
        nonlocal by_day
        for seat in PEOPLE:
            view = room.view(seat)
            if view["pending"] is None:
                continue
            night = [text for _, _, text in heard]
            if room.phase().startswith("night"):
                start = max(i for i, text in enumerate(night) if text.startswith("Night "))
                asked.append((room.phase(), seat, night[start:]))
                assert room.voice.heard == len(room.voice.lines())  # every line said, the call included
            else:
                by_day += [(seat, d["act"], night[-1]) for d in view["decisions"] if d["act"] != "explode"]
            calm = [o for o in view["pending"] if o["act"] != "explode" or o.get("value") is False]  # no self-destruct
            await hub.act(room, seat, rng.choice(calm or view["pending"]))

    async def run() -> Heard:
        nonlocal hub
        clock = Clock()
        hub, store, room = await opened(tmp_path, night_table(tmp_path), random.Random(1), clock)
        try:
            return await lead(hub, room, clock, lambda r: r.phase() == "day2" or r.over(), people)
        finally:
            await hub.stop()
            store.close()

    hub: Any = None
    heard = asyncio.run(run())
    # By day too: a speech is offered once its turn was called, the vote once the vote was called.
    assert {act for _, act, _ in by_day} >= {"speak", "vote"}, "\n".join(x[2] for x in heard)
    for seat, act, last in by_day:
        if act == "speak":
            assert last in (f"Seat {seat} speaks.", f"Seat {seat} gives last words."), (seat, last)
        elif act == "vote":
            assert last == "Now the vote: vote on your phone.", last
    calls = {"werewolf": "Werewolves, open your eyes", "witch": "Witch, open your eyes",
             "seer": "Seer, open your eyes", "guard": "Guard, open your eyes"}
    assert {seat for _, seat, _ in asked} == set(PEOPLE)
    for phase, seat, lines in asked:
        assert lines[-1].startswith(calls[PEOPLE[seat]]), (phase, seat, lines[-3:])
        # The role called before it was dismissed first: every call but the first follows a "close your eyes".
        opens = [i for i, text in enumerate(lines) if "open your eyes" in text]
        assert all("close your eyes" in lines[i - 1] for i in opens[1:]), lines
    texts = [text for _, _, text in heard]
    assert [n for _, n, _ in heard] == list(range(len(heard)))  # each line once, in order
    for night in ("Night 1 falls", "Night 2 falls"):
        assert sum(text.startswith(night) for text in texts) == 1
    # Every role of the deck is called and dismissed, each night.
    night1 = texts[:texts.index(next(t for t in texts if t.startswith("Day 1")))]
    assert [t for t in night1 if "close your eyes" in t and not t.startswith("Night")] == [
        "Guard, close your eyes.", "Werewolves, close your eyes.", "Witch, close your eyes.",
        "Seer, close your eyes.", "Hunter, close your eyes."]


def test_nothing_moves_while_the_voice_is_behind(tmp_path: Path) -> None:
    """The device is there but has not said the guard's call: nothing is offered, released or answered, for as
    long as it keeps speaking up (a long line, or a pause); then its acknowledgement lets the table go on."""

    async def run() -> None:
        clock = Clock()
        hub, store, room = await opened(tmp_path, night_table(tmp_path), random.Random(1), clock)
        try:
            await hub.voice(room, VoiceAck(on=True))
            while not any(line.event.get("type") == "step" for line in room.voice.lines()):
                await hub.voice(room, VoiceAck(heard=len(room.voice.lines())))
                clock.now += 0.5
                await hub.sweep()
            before = (room.pacer.released, len(room.game.answers), room.voice.heard)
            assert room.voice.heard == len(room.voice.lines()) - 1  # the guard's call is next
            for _ in range(100):  # 50 s: the call is still being said
                clock.now += 0.5
                await hub.sweep()
                if _ % 8 == 0:
                    await hub.voice(room, VoiceAck(heard=room.voice.heard, paused=True))
                assert room.pending(12) == [] and room.view(12)["pending"] is None
                assert (room.pacer.released, len(room.game.answers), room.voice.heard) == before
                assert room.pacer.due(room.game.events) is not None  # woken when the waiting would end
            await hub.voice(room, VoiceAck(heard=room.voice.heard + 1))
            assert room.pending(12)  # the guard is asked once the call is heard
            # The step's time counts from the call heard: the guard's step is not over at once.
            assert room.pacer.hold_until >= clock.now + PACE.low - 0.01
        finally:
            await hub.stop()
            store.close()

    asyncio.run(run())


@pytest.mark.parametrize("paused", [True, False])
def test_a_stuck_device_holds_the_table_only_while_paused(tmp_path: Path, paused: bool) -> None:
    """A device that speaks up but never finishes its line: paused, the table waits for it (the host asked
    for it); not paused, the game goes on without it after STALL seconds, so that it never hangs."""

    async def run() -> tuple[bool, bool]:
        clock = Clock()
        hub, store, room = await opened(tmp_path, night_table(tmp_path), random.Random(1), clock)
        try:
            await hub.voice(room, VoiceAck(on=True))
            released = room.pacer.released
            for _ in range(int(2 * STALL / 2)):
                clock.now += 2
                await hub.voice(room, VoiceAck(heard=room.voice.heard, paused=paused))
                await hub.sweep()
            return room.voice.present(clock.now), room.pacer.released > released or bool(room.pending(12))
        finally:
            await hub.stop()
            store.close()

    present, moved = asyncio.run(run())
    assert present and LEASE < STALL
    assert moved is not paused


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_restart_keeps_what_the_voice_has_said(backend: str, tmp_path: Path, request: Any) -> None:
    from werewolf.web.store import database_url

    url = database_url(str(tmp_path / "restart.sqlite") if backend == "sqlite"
                       else request.getfixturevalue("postgres_db"))

    async def run() -> None:
        clock = Clock()
        rec = night_table(tmp_path)
        hub, store, room = await opened(tmp_path, rec, random.Random(1), clock, url)
        await lead(hub, room, clock, lambda r: r.voice.heard >= 2)  # the guard called
        heard, lines = room.voice.heard, [line.text("en") for line in room.voice.lines()]
        await hub.stop()
        store.close()
        stored = Store(url)
        assert (await stored.submit(Store.load([rec.id])))[0].heard == heard
        clock.now += 3600
        hub = Hub(stored, timeout=0, clock=clock, rng=random.Random(2), timers=False, cluster=Cluster)
        await hub.start()
        room = await hub.room(rec.id)
        assert room.voice.heard == heard
        assert [line.text("en") for line in room.voice.lines()][:heard] == lines[:heard]
        # The device comes back (its page reloaded): it goes on from the line after the last one it said.
        await hub.voice(room, VoiceAck(heard=heard))
        await hub.act(room, 12, room.view(12)["pending"][0])  # the guard answers; her step ends in time
        while room.voice.heard == len(room.voice.lines()):
            clock.now += 0.5
            await hub.sweep()
        words = room.voice.words("en")
        assert words is not None and words["lines"][0]["n"] == heard - 1
        assert [line["text"] for line in words["lines"]] == [lines[heard - 1], "Guard, close your eyes."]
        await hub.stop()
        stored.close()

    asyncio.run(run())


def test_without_a_moderator_device_the_phones_pace_the_game(tmp_path: Path) -> None:
    rng = random.Random(3)

    async def people(room: Room, heard: Heard) -> None:
        for seat in PEOPLE:
            view = room.view(seat)
            if view["pending"] is not None:
                await hub.act(room, seat, rng.choice(view["pending"]))

    async def run(device: bool, silent_after: float | None) -> str:
        nonlocal hub
        clock = Clock()
        hub, store, room = await opened(tmp_path / f"{device}{silent_after}", night_table(tmp_path),
                                        random.Random(1), clock)
        try:
            await lead(hub, room, clock, lambda r: r.phase() == "day2" or r.over(), people, device=device,
                       silent_after=silent_after)
            assert silent_after is None or not room.voice.present(clock.now)
            return room.phase()
        finally:
            await hub.stop()
            store.close()

    hub: Any = None
    assert asyncio.run(run(False, None)) == "day2"
    # A device that leads the first lines, then goes away (its page closed): after LEASE seconds the phones
    # lead again, and the game reaches its second day.
    assert asyncio.run(run(True, 3.0)) == "day2"


def night2_lines(tmp: Path, rec: RoomRecord, rng: random.Random) -> Heard:
    async def run() -> Heard:
        clock = Clock()
        hub, store, room = await opened(tmp, rec, rng, clock)
        try:
            heard = await lead(hub, room, clock, lambda r: r.phase() == "day2" or r.over())
        finally:
            await hub.stop()
            store.close()
        return heard

    return asyncio.run(run())


def test_a_dead_seers_night_sounds_like_a_living_seers_night(tmp_path: Path) -> None:
    streams = []
    for name, seats in (("seerdead", SEER_FIRST), ("seeralive", SEER_SECOND)):
        setup = Setup("classic", seats=seats, seed=5, live_speech=True, options={"sheriff": False})
        g = scripted(setup, lambda g: g.phase == "night2")
        paced = next(i for i, e in enumerate(g.events) if e.type == "night" and e.phase == "night2")
        rec = face(record(name, setup, list(g.answers), paced))
        lines = night2_lines(tmp_path, rec, random.Random(7))
        streams.append([(t, text) for t, _, text in lines])
    dead, alive = streams
    assert dead == alive
    texts = [text for _, text in dead]
    assert "Seer, open your eyes. Whom do you check tonight?" in texts and "Seer, close your eyes." in texts


def test_a_robber_in_the_centre_sounds_like_a_dealt_one(tmp_path: Path) -> None:
    streams = []
    dealt = (Setup("onuw", seats=ONUW, center=ONUW_CENTER, seed=3, live_speech=True),
             Setup("onuw", seats=("werewolf", "seer", "villager", "villager", "troublemaker"),
                   center=("werewolf", "robber", "villager"), seed=3, live_speech=True))
    for name, setup in zip(("robberdealt", "robbercentre"), dealt):
        rec = face(record(name, setup, [], 0))

        async def run(rec: RoomRecord = rec) -> Heard:
            clock = Clock()
            hub, store, room = await opened(tmp_path, rec, random.Random(11), clock)
            try:
                return await lead(hub, room, clock, lambda r: r.phase() == "day1" or r.over())
            finally:
                await hub.stop()
                store.close()

        streams.append([(t, text) for t, _, text in asyncio.run(run())])
    assert streams[0] == streams[1]
    assert "Robber, close your eyes." in [text for _, text in streams[0]]


def test_last_words_are_called_once_and_each_turn_once() -> None:
    """A whole bot game's script: "Seat N gives last words" once per last words, each speech called once."""
    setup = Setup("classic", deck="classic12", seed=4, live_speech=True)
    g = Game(setup)
    rng = random.Random(4)
    while not g.over:
        for d in g.pending():
            g.answer(d.seat, rng.choice(d.options()) if d.act != "speak" else {"act": "speak", "text": None})
    lines = script_of(g)
    texts = [line.text("en") for line in lines]
    last_words = [e for e in g.events if e.type == "last_words"]
    assert last_words, "the game had no last words: pick another seed"
    assert sum("gives last words" in text for text in texts) == len(last_words)
    speeches = [e for e in g.events if e.type == "speech" and e.to is None]
    assert sum(text.endswith(" speaks.") or "speech." in text for text in texts) == len(speeches)
    assert all(a != b for a, b in zip(texts, texts[1:])), "a line said twice in a row"
    nights = [e for e in g.events if e.type == "night"]
    assert sum("Everyone, close your eyes." in text for text in texts) == len(nights)


def script_of(g: Game) -> list[Line]:
    """The voice's script of a game whose every event is out (a room stand-in: what ``Voice`` reads)."""
    from types import SimpleNamespace

    from werewolf.web.pacing import Pacer
    from werewolf.web.voice import Voice

    class Stand(SimpleNamespace):  # (a subclass: the voice holds its room by a weak reference)
        pass

    pacer = Pacer(PACE, g.events, len(g.events), 0.0)
    room = Stand(rec=SimpleNamespace(mode="face_to_face"), setup=g.setup, game=g, pacer=pacer,
                           status="over", phase=lambda: g.phase)
    return Voice(room, 0).lines()  # type: ignore[arg-type]


@pytest.mark.parametrize(("lang", "close"), [("zh-Hant", "預言家請閉眼。"), ("zh-Hans", "预言家请闭眼。"),
                                             ("en", "Seer, close your eyes.")])
def test_the_judges_lines_come_from_the_catalogues(lang: str, close: str) -> None:
    step = {"type": "step", "phase": "night1", "step": "M", "role": "seer"}
    assert Line(step, close=True).text(lang) == close
    wolves = {"type": "step", "phase": "night1", "step": "I", "role": "werewolf"}
    assert Line(wolves, close=True).text(lang) != Line(step, close=True).text(lang)


def test_the_voice_endpoint(client: Any) -> None:
    from .conftest import auth

    for mode in ("face_to_face", "online"):
        r = client.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9", "bots": list(range(2, 10)),
                                            "mode": mode, "lang": "en"})
        room, host = r.json()["room"], r.json()["host_token"]
        player = client.post(f"/api/rooms/{room}/join", json={"name": "Ann"}).json()["token"]
        assert client.post(f"/api/rooms/{room}/start", json={}, headers=auth(host)).status_code == 200
        r = client.post(f"/api/rooms/{room}/voice", json={"on": True}, headers=auth(host))
        if mode == "online":
            assert r.status_code == 409, r.text
            assert client.get(f"/api/rooms/{room}/public").json()["voice"] is None
            continue
        assert r.status_code == 200, r.text
        view = client.get(f"/api/rooms/{room}/view?lang=zh-Hant", headers=auth(host)).json()
        assert r.json() == {"ok": True, "heard": view["voice"]["heard"]}  # where the device starts
        assert view["voice"]["on"] is True and view["voice"]["lines"] >= 1
        said = view["text"]["voice"]["lines"]
        assert said and all("請" in line["text"] or "天亮" in line["text"] for line in said), said  # the judge's words
        assert client.post(f"/api/rooms/{room}/voice", json={"heard": 1}, headers=auth(player)).status_code == 403
        for bad in ({"heard": -1}, {"heard": "1"}, {"on": "yes"}, {"heard": 1, "extra": 2}):
            assert client.post(f"/api/rooms/{room}/voice", json=bad, headers=auth(host)).status_code == 422, bad
        # A seat's view has no voice (the phones show their own screens).
        assert client.get(f"/api/rooms/{room}/view", headers=auth(player)).json()["voice"] is None


def test_the_voice_reads_a_vote_as_its_tally_not_ballot_by_ballot() -> None:
    from werewolf.web.voice import Line

    votes = {"type": "votes", "phase": "day1", "round": "vote", "ballots": {"1": 3, "2": 3, "4": 5, "5": None},
             "tally": {"3": 2, "5": 1}}
    for lang, tally in (("en", "Seat 3 (2)"), ("zh-Hant", "3號（2票）")):
        said = Line(votes).text(lang)
        assert tally in said and "Seat 1 →" not in said and "Ballots" not in said and "1號 →" not in said, said
