"""The pack decides together, interrupts are buttons (issue 15, points 1 and 2; werewolf.web.pack).

Classic 12 with seed 5 deals the wolves to seats 2, 5, 6 and 8 (checked below); the knife is night 1's first
request. The rooms play unpaced (tests/web/conftest.py) on a hub without timers: timeouts are given by hand,
as the tick gives them (``Hub.decline``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from werewolf.web import pack
from werewolf.web.cluster import Cluster, read
from werewolf.web.errors import ApiError
from werewolf.web.hub import Hub
from werewolf.web.pacing import Pace
from werewolf.web.room import Room
from werewolf.web.state import Subscriber
from werewolf.web.store import Store

from .conftest import auth

T = TypeVar("T")
SEED = 5
WOLVES = [2, 5, 6, 8]
WITCH, SEER = 10, 11


def run(work: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(asyncio.wait_for(work, 120))


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def open_room(db: Path, people: list[int], *, mode: str = "online", options: dict[str, Any] | None = None,
                    clock: Clock | None = None, pace: Pace | None = None) -> tuple[Hub, Store, Room]:
    store = Store("sqlite:///" + str(db))
    hub = Hub(store, timeout=0, timers=False, clock=clock or Clock(), pace=pace)
    await hub.start()
    room, _ = await hub.create(ruleset="classic", deck="classic12", options=options or {}, bots=[], seed=SEED,
                               mode=mode, lang="en", players=None, timeout=None, bot_kind="heuristic")
    assert [i + 1 for i, r in enumerate(room.game.dealt) if r == "werewolf"] == WOLVES
    for s in people:
        await hub.join(room, f"p{s}", s)
    await hub.start_game(room, fill_with_bots=True)
    return hub, store, room


async def close(hub: Hub, store: Store) -> None:
    await hub.stop()
    store.close()


async def view(hub: Hub, room: Room, seat: int | None, host: bool = False, lang: str | None = None) -> dict[str, Any]:
    return dict(json.loads(await hub.view_json(room, seat, host, lang)))


async def pick(hub: Hub, room: Room, seat: int, target: int | None, confirm: bool = False) -> None:
    await hub.pack_move(room, lambda: pack.pick(room, seat, target, confirm))


async def say(hub: Hub, room: Room, seat: int, text: str) -> None:
    await hub.pack_move(room, lambda: pack.say(room, seat, text))


FIELDS = ("pack", "pack_ready", "pack_chat", "pack_why", "pack_split", "interrupts")


def nothing_of_the_pack(v: dict[str, Any]) -> None:
    assert all(v[k] is None for k in FIELDS), {k: v[k] for k in FIELDS}
    assert (v.get("text") or {}).get("pack") is None


def test_each_wolf_sees_the_pack_live_and_nobody_else_does(tmp_path: Path) -> None:
    async def go() -> None:
        hub, store, room = await open_room(tmp_path / "a.sqlite", [2, 5, 6, WITCH, SEER])
        try:
            subs = {s: Subscriber(s, False, "en", delta=True) for s in range(1, 13)}
            subs[0] = Subscriber(None, False, "en", delta=True)  # the spectator
            host = Subscriber(WITCH, True, "en", delta=True)  # the host of an online room is a player
            room.subs.update([*subs.values(), host])
            for sub in room.subs:
                assert await hub.push(room, sub) is not None  # each socket's first, full view
            for s in WOLVES:
                v = await view(hub, room, s, lang="en")
                assert set(v["pack"]) == {"2", "5", "6", "8"} and v["pack_ready"] == []
                assert v["pack"]["2"] is None and v["pack"]["5"] is None and v["pack"]["6"] is None
                assert v["pack_chat"] == [] and v["text"]["pack"]["title"] == "The pack chooses"
            own = (await view(hub, room, 2))["pack"]["8"]  # the bot shows its own choice while nobody picks
            assert own is not None and own not in WOLVES
            for seat, is_host in ((None, False), (None, True), (WITCH, True), (SEER, False), (1, False)):
                nothing_of_the_pack(await view(hub, room, seat, is_host, "en"))

            await pick(hub, room, 2, 1)
            await say(hub, room, 5, "seat 1 claimed seer in my dreams")
            pushed = {s: await hub.push(room, sub) for s, sub in subs.items()}
            assert all(pushed[s] is not None for s in WOLVES), "every wolf's socket gets the pick"
            assert all(pushed[s] is None for s in subs if s not in WOLVES), "no other socket is woken"
            assert await hub.push(room, host) is None
            delta = json.loads(pushed[6] or "{}")
            assert delta["set"]["pack"]["2"] == 1 and delta["set"]["pack"]["8"] == 1  # the bot follows
            assert delta["set"]["pack_chat"] == [{"seat": 5, "text": "seat 1 claimed seer in my dreams",
                                                  "phase": "night1"}]
            assert not room.game.answers, "a pick is not an answer"

            await pick(hub, room, 2, 3, confirm=True)  # changed, and final
            await hub.act(room, 5, {"act": "kill", "target": 3})  # /act at the knife: a confirmed pick
            v = await view(hub, room, 6)
            assert v["pack"] == {"2": 3, "5": 3, "6": None, "8": 3} and v["pack_ready"] == [2, 5]
            assert not room.game.answers
            await pick(hub, room, 6, 3, confirm=True)  # the last person: the knife is given
            assert sorted((s, a, t) for s, a, t in room.game.answers if a == "kill") == \
                [(2, "kill", 3), (5, "kill", 3), (6, "kill", 3), (8, "kill", 3)]
            choice = next(e for e in room.game.events if e.type == "pack_choice")
            assert choice.data["target"] == 3
            for s in (None, WITCH, SEER):
                nothing_of_the_pack(await view(hub, room, s))
            assert (await view(hub, room, 2))["pack"] is None  # the step is over
            assert (await view(hub, room, 2))["pack_chat"][0]["seat"] == 5  # the pack's lines stay the pack's
            assert (await view(hub, room, SEER))["pack_chat"] is None
        finally:
            await close(hub, store)

    run(go())


def test_bots_follow_the_pick_most_people_chose_and_the_lowest_seat_on_a_tie(tmp_path: Path) -> None:
    async def go() -> None:
        hub, store, room = await open_room(tmp_path / "b.sqlite", [2, 5, 6])
        try:
            await pick(hub, room, 6, 4)
            await pick(hub, room, 5, 3)
            assert (await view(hub, room, 2))["pack"]["8"] == 3  # a tie: the pick of seat 5, the lowest
            await pick(hub, room, 2, 4)
            assert (await view(hub, room, 2))["pack"]["8"] == 4  # most of them
            await pick(hub, room, 2, None)
            assert (await view(hub, room, 2))["pack"]["8"] is None  # "nobody" is a pick: a tie, seat 2's
            await pick(hub, room, 6, 3)
            assert (await view(hub, room, 2))["pack"]["8"] == 3
            for s in (2, 5, 6):
                await pick(hub, room, s, 7, confirm=True)
            assert (8, "kill", 7) in room.game.answers
        finally:
            await close(hub, store)

    run(go())


def test_time_up_each_person_s_pick_is_the_answer_and_no_pick_the_default(tmp_path: Path) -> None:
    async def go() -> None:
        hub, store, room = await open_room(tmp_path / "c.sqlite", [2, 5, 6])
        try:
            await pick(hub, room, 2, 1)
            await pick(hub, room, 5, 1, confirm=True)
            await hub.decline(room, [d for d in room.pending() if d.act == "kill" and d.seat != 8])
            kills = sorted((s, t) for s, a, t in room.game.answers if a == "kill")
            assert kills == [(2, 1), (5, 1), (6, None), (8, 1)]
            assert next(e for e in room.game.events if e.type == "pack_choice").data["target"] == 1
        finally:
            await close(hub, store)

    run(go())


def test_a_restart_mid_step_keeps_the_picks_and_the_chat(tmp_path: Path) -> None:
    async def go() -> None:
        db = tmp_path / "d.sqlite"
        hub, store, room = await open_room(db, [2, 5, 6])
        await pick(hub, room, 2, 1)
        await pick(hub, room, 5, 3, confirm=True)
        await say(hub, room, 6, "not seat 3, please")
        before = {s: await view(hub, room, s) for s in (2, 5, 6, 7)}
        rid = room.id
        await close(hub, store)

        store = Store("sqlite:///" + str(db))
        hub = Hub(store, timeout=0, timers=False)
        await hub.start()
        try:
            room = await hub.room(rid)
            for s, v in before.items():
                after = await view(hub, room, s)
                assert {k: after[k] for k in FIELDS} == {k: v[k] for k in FIELDS}
            assert before[2]["pack"] == {"2": 1, "5": 3, "6": None, "8": 1}  # a tie: seat 2's pick
            assert before[7]["pack"] is None and before[7]["pack_chat"] is None
            await pick(hub, room, 2, 3, confirm=True)
            await pick(hub, room, 6, 3, confirm=True)
            assert (8, "kill", 3) in room.game.answers
        finally:
            await close(hub, store)

    run(go())


def test_a_second_server_s_copy_shows_a_pick_stored_by_the_first_even_if_it_saw_the_knife_open_first(
        tmp_path: Path) -> None:
    """Two servers hold the room (werewolf.web.cluster): the follower's copy saw the knife open (its views
    started the pack afresh) before any pack state of that knife was stored; the pick the other server
    then stores still reaches the follower's wolves at its next catch-up (it used to wait forever)."""
    async def go() -> None:
        hub, store, room = await open_room(tmp_path / "f.sqlite", [2, 5, 6])
        try:
            (rec,) = await store.submit(Store.load([room.id]))
            rec.pack = None  # stored before this knife opened
            other = Room(rec, 0.0)
            assert json.loads(other.view_json(5, False, "en"))["pack"]["2"] is None
            await pick(hub, room, 2, 1)
            fresh = await store.submit(read(room.id, other.committed, seats=False))
            assert fresh is not None and Cluster._apply_table(other, fresh)
            other.changed()  # as the catch-up does
            assert json.loads(other.view_json(5, False, "en"))["pack"] == \
                json.loads(await hub.view_json(room, 5, False, "en"))["pack"] == {"2": 1, "5": None, "6": None,
                                                                                  "8": 1}
            fresh = await store.submit(read(room.id, other.committed, seats=False))
            assert fresh is not None and not Cluster._apply_table(other, fresh), "nothing new the second time"
        finally:
            await close(hub, store)

    run(go())


def test_a_pick_is_checked_and_only_a_wolf_at_the_knife_may_pick_or_talk(tmp_path: Path) -> None:
    async def go() -> None:
        hub, store, room = await open_room(tmp_path / "e.sqlite", [2, 5, SEER])
        try:
            with pytest.raises(ApiError) as err:
                await pick(hub, room, SEER, 1)
            assert err.value.status == 409 and "not your turn" in err.value.message
            with pytest.raises(ApiError) as err:
                await pick(hub, room, 2, 99)
            assert err.value.status == 422 and "seat 99" in err.value.message
            with pytest.raises(ApiError) as err:
                await say(hub, room, SEER, "hello wolves")
            assert err.value.status == 409
            with pytest.raises(ApiError) as err:
                await hub.act(room, 2, {"act": "kill", "target": 4, "extra": 1})
            assert err.value.status == 422
            assert all(v is None for v in room.pack.picks.values()) and not room.pack.chat
        finally:
            await close(hub, store)

    run(go())


def test_face_to_face_the_pack_picks_together_but_has_no_chat(tmp_path: Path) -> None:
    async def go() -> None:
        hub, store, room = await open_room(tmp_path / "f.sqlite", [2, 5], mode="face_to_face")
        try:
            await pick(hub, room, 2, 4)
            v = await view(hub, room, 5)
            assert v["pack"]["2"] == 4 and v["pack_chat"] is None
            with pytest.raises(ApiError) as err:
                await say(hub, room, 2, "psst")
            assert err.value.status == 409 and "face to face" in err.value.message
        finally:
            await close(hub, store)

    run(go())


async def answer_calmly(hub: Hub, room: Room, seat: int) -> None:
    """The person at ``seat`` answers what it owes: kill seat 1, speak nothing, abstain, decline."""
    for d in room.pending(seat):
        opts = d.options()
        move = next((o for o in opts if o.get("target") == 1), None) if d.act == "kill" else None
        if move is None:
            move = next((o for o in opts if o.get("target", 0) is None or o.get("value") is False
                         or o.get("text", 0) is None), opts[0])
        await hub.act(room, seat, move)


def test_interrupts_wait_for_nobody_and_the_button_is_used_at_the_next_offer(tmp_path: Path) -> None:
    async def go() -> None:
        hub, store, room = await open_room(tmp_path / "g.sqlite", [2, SEER])
        try:
            offers = 0
            armed = False
            for _ in range(400):
                if room.over() or any(e.type == "explode" for e in room.game.events):
                    break
                # Whatever the room did, no person's interrupt offer is left open: nothing waits for one.
                assert not [d for d in room.game.pending() if d.interrupt and d.seat not in room.bots]
                v = await view(hub, room, 2, lang="en")
                assert not [m for m in v["pending"] or [] if m["act"] in ("explode", "duel")]
                # The button is there from the start (foreseen: no offer was made yet) ...
                (button,) = v["interrupts"]
                assert button["act"] == "explode" and button["options"] == [{"act": "explode"}]
                assert v["text"]["interrupts"][0]["title"] == "Self-destruct"
                offers = sum(a == "explode" for s, a, _ in room.game.answers if s == 2)
                # ... and pressed once two offers came and went (each declined at once), it is used at the next.
                if offers >= 2 and not armed:
                    await hub.pack_move(room, lambda: pack.intend(room, 2, {"act": "explode"}))
                    armed = True
                    assert (await view(hub, room, 2))["interrupts"][0]["armed"] == {"act": "explode"}
                    for s in (None, SEER, 3):  # nobody else is told of the button
                        assert (await view(hub, room, s))["interrupts"] is None
                    continue
                if room.pending(2):
                    await answer_calmly(hub, room, 2)
                elif room.pending(SEER):
                    await answer_calmly(hub, room, SEER)
                else:
                    raise AssertionError(f"nobody is asked anything ({room.phase()})")
            assert armed, "the button never came"
            mine = [t for s, a, t in room.game.answers if s == 2 and a == "explode"]
            assert mine == [None] * offers + [("explode", None)], "the intent is the answer of the next offer"
            boom = next(e for e in room.game.events if e.type == "explode")
            assert boom.data["seat"] == 2
            assert (await view(hub, room, 2))["interrupts"] is None  # dead: no button any more

            # That night the wolf who self-destructed still names the victim (000's rule), and is told why.
            for _ in range(200):
                v = await view(hub, room, 2, lang="zh-Hant")
                if v["pack"] is not None or room.over():
                    break
                if room.pending(SEER):
                    await answer_calmly(hub, room, SEER)
                else:
                    await hub.decline(room, room.pending())
            assert v["pack"] is not None and "2" in v["pack"]
            assert v["pack_why"] == "self_destructed_wolf_votes_knife"
            assert "自爆" in v["text"]["pack_why"]["text"] and v["text"]["pack_why"]["book"] == "000"
            assert (await view(hub, room, 5))["pack_why"] is None
        finally:
            await close(hub, store)

    run(go())


def test_an_intent_is_checked_against_what_the_seat_is_offered(tmp_path: Path) -> None:
    async def go() -> None:
        hub, store, room = await open_room(tmp_path / "h.sqlite", [2, SEER])
        try:
            # Night 1: the wolf's button is foreseen (its first offer comes on day 1); the seer has none.
            assert (await view(hub, room, 2))["interrupts"][0]["options"] == [{"act": "explode"}]
            assert (await view(hub, room, SEER))["interrupts"] is None
            with pytest.raises(ApiError) as err:
                await hub.pack_move(room, lambda: pack.intend(room, SEER, {"act": "explode"}))
            assert err.value.status == 409
            with pytest.raises(ApiError) as err:
                await hub.pack_move(room, lambda: pack.intend(room, 2, {"act": "explode", "target": 4}))
            assert err.value.status == 422
            await hub.pack_move(room, lambda: pack.intend(room, 2, {"act": "explode", "when": "discussion"}))
            assert room.pack.intents == {2: {"act": "explode"}}
            assert (await view(hub, room, 2))["interrupts"][0]["armed"] == {"act": "explode"}
            await hub.pack_move(room, lambda: pack.intend(room, 2, {"act": "explode", "value": False}))
            assert room.pack.intents == {}
            # A button foreseen for a role the seat does not hold (a thief's other card) is not there.
            room.pack.offers[2]["explode"]["role"] = "seer"
            assert (await view(hub, room, 2))["interrupts"] is None
            with pytest.raises(ApiError) as err:
                await hub.pack_move(room, lambda: pack.intend(room, 2, {"act": "explode"}))
            assert err.value.status == 409
        finally:
            await close(hub, store)

    run(go())


def test_the_endpoints_are_strict_rate_limited_and_answer_like_the_others(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from werewolf.web import create_app
    from werewolf.web.limits import Limits

    with TestClient(create_app(str(tmp_path / "api.sqlite"), timeout=0,
                               limits=Limits(create=None, join=None, auth=None, pack="14/minute"))) as c:
        r = c.post("/api/rooms", json={"ruleset": "classic", "deck": "classic12", "seed": SEED}).json()
        rid, host = r["room"], r["host_token"]
        tokens = {s: c.post(f"/api/rooms/{rid}/join", json={"name": f"p{s}", "seat": s}).json()["token"]
                  for s in (2, 5, SEER)}
        assert c.post(f"/api/rooms/{rid}/start", json={"fill_with_bots": True}, headers=auth(host)).status_code == 200
        url = f"/api/rooms/{rid}"
        assert c.post(f"{url}/pick", json={"target": 4}, headers=auth(tokens[2])).json() == {"ok": True}
        assert c.get(f"{url}/view", headers=auth(tokens[5])).json()["pack"]["2"] == 4
        assert c.get(f"{url}/view", headers=auth(tokens[SEER])).json()["pack"] is None
        assert c.get(f"{url}/view", headers=auth(host)).json()["pack"] is None
        assert c.get(f"{url}/public").json()["pack"] is None
        for body, words in (({"target": "4"}, "target"), ({"target": 4, "confirm": "yes"}, "confirm"),
                            ({"target": 4, "seat": 2}, "seat"), ({}, "target")):
            r = c.post(f"{url}/pick", json=body, headers=auth(tokens[2]))
            assert r.status_code == 422 and words in r.json()["error"], r.text
        r = c.post(f"{url}/pack_chat", json={"text": "x" * 301}, headers=auth(tokens[2]))
        assert r.status_code == 422 and "300" in r.json()["error"]
        r = c.post(f"{url}/pack_chat", json={"text": "hi\u202e"}, headers=auth(tokens[2]))
        assert r.status_code == 422
        assert c.post(f"{url}/pack_chat", json={"text": "  seat 4? "}, headers=auth(tokens[2])).status_code == 200
        assert c.get(f"{url}/view", headers=auth(tokens[5])).json()["pack_chat"][0]["text"] == "seat 4?"
        assert c.post(f"{url}/pack_chat", json={"text": "me too"}, headers=auth(tokens[SEER])).status_code == 409
        assert c.post(f"{url}/pick", json={"target": 4}, headers=auth(host)).status_code == 403
        assert c.post(f"{url}/intent", json={"act": "explode"}, headers=auth(tokens[SEER])).status_code == 409
        assert c.post(f"{url}/intent", json={"act": "explode"}, headers=auth(tokens[2])).status_code == 200
        assert c.post(f"{url}/pick", json={"target": 4}).status_code == 401
        codes = [c.post(f"{url}/pick", json={"target": 4}, headers=auth(tokens[5])).status_code for _ in range(6)]
        # Every request counts, the malformed ones too (13 so far): one more, then 429 with Retry-After.
        assert codes[:1] == [200] and set(codes[1:]) == {429}
        r = c.post(f"{url}/intent", json={"act": "explode"}, headers=auth(tokens[5]))
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1 and "pack" in r.json()["error"]


def test_the_wolves_step_lasts_its_drawn_time_however_fast_the_pack_agrees(tmp_path: Path) -> None:
    async def knife_ends(people: list[int], name: str) -> tuple[float, float]:
        """(the step's drawn end, when the next public event came out), seconds after the step began."""
        clock = Clock()
        hub, store, room = await open_room(tmp_path / f"{name}.sqlite", people, clock=clock, pace=Pace(3.0, 3.0))
        # This room's people answer the knife at once: a step that waits for no person (the bots' pack) lasts
        # as long as they take (werewolf.web.pacing), here its drawn time.
        room.pacer.answers = {role: [0.0] for role in ("werewolf", "wolf", "werewolves")}
        try:
            for _ in range(100):  # the wolves' step is released (the pacer's first hold)
                if pack.knife(room):
                    break
                clock.now += 0.05
                await hub.sweep()
            begun, drawn = clock.now, room.pacer.hold_until - clock.now
            public = len([e for e in room.shown() if e.to is None])
            for s in people:  # every person of the pack agrees at once
                if s in WOLVES:
                    await hub.act(room, s, {"act": "kill", "target": 1})
            while len([e for e in room.shown() if e.to is None]) == public:
                clock.now += 0.05
                await hub.sweep()
            return drawn, clock.now - begun
        finally:
            await close(hub, store)

    async def go() -> None:
        with_people = await knife_ends([2, 5, 6], "people")
        all_bots = await knife_ends([SEER], "bots")
        for drawn, ended in (with_people, all_bots):
            assert drawn == 3.0 and ended >= drawn, (drawn, ended)
        assert abs(with_people[1] - all_bots[1]) < 0.2  # the same length, people or bots

    run(go())


def test_confirmed_picks_that_differ_warn_the_pack_and_wait_for_it_to_agree(tmp_path: Path) -> None:
    async def go() -> None:
        hub, store, room = await open_room(tmp_path / "split.sqlite", [2, 5, 6])
        room.timeout = 120  # the knife's end, to agree by
        try:
            await pick(hub, room, 2, 1, confirm=True)
            await pick(hub, room, 5, 3, confirm=True)
            await pick(hub, room, 6, 1, confirm=True)
            # Every person confirmed, but not the same seat: nothing is answered, the pack is warned.
            assert not [a for a in room.game.answers if a[1] == "kill"]
            for s in WOLVES:
                v = await view(hub, room, s, lang="en")
                assert v["pack_split"] is True and "differ" in v["text"]["pack"]["split"]
            for s in (None, WITCH, SEER, 1):
                nothing_of_the_pack(await view(hub, room, s, lang="en"))
            await pick(hub, room, 5, 1, confirm=True)  # seat 5 comes round: the knife falls
            assert sorted((s, t) for s, a, t in room.game.answers if a == "kill") == [(2, 1), (5, 1), (6, 1), (8, 1)]
            assert next(e for e in room.game.events if e.type == "pack_choice").data["target"] == 1
        finally:
            await close(hub, store)

    run(go())


def test_a_split_still_standing_when_the_time_is_up_kills_nobody(tmp_path: Path) -> None:
    async def go() -> None:
        hub, store, room = await open_room(tmp_path / "split2.sqlite", [2, 5, 6])
        room.timeout = 120
        try:
            for s, target in ((2, 1), (5, 3), (6, 1)):
                await pick(hub, room, s, target, confirm=True)
            assert (await view(hub, room, 2))["pack_split"] is True
            await hub.decline(room, [d for d in room.pending() if d.act == "kill" and d.seat != 8])
            assert next(e for e in room.game.events if e.type == "pack_choice").data["target"] is None
        finally:
            await close(hub, store)

    run(go())


def test_with_no_time_limit_the_last_confirmation_gives_the_picks_as_they_are(tmp_path: Path) -> None:
    async def go() -> None:
        hub, store, room = await open_room(tmp_path / "split3.sqlite", [2, 5, 6])
        try:
            assert room.timeout == 0
            await pick(hub, room, 2, 1, confirm=True)
            await pick(hub, room, 5, 3, confirm=True)
            assert (await view(hub, room, 6))["pack_split"] is True  # warned before the last confirmation
            await pick(hub, room, 6, 1, confirm=True)
            assert next(e for e in room.game.events if e.type == "pack_choice").data["target"] is None
        finally:
            await close(hub, store)

    run(go())
