"""Property (issue 14, point 9): in paced live rooms of every ruleset, with people and bots, every view and
every socket push of every seat and of the spectator holds exactly the released events that seat may see,
its own decisions only once everything before them is out, and nothing of what the engine has not yet
released."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from werewolf.core.events import Event
from werewolf.i18n import narrate
from werewolf.web.hub import Hub
from werewolf.web.pacing import Pace
from werewolf.web.room import Room
from werewolf.web.state import Subscriber
from werewolf.web.store import Store

CASES = [("classic", "classic12"), ("classic", "classic9"), ("facetoface", "ff12_444_guard"), ("wechat", "wechat12"),
         ("onuw", "onuw6"), ("onenight", "onenight5")]
PACE = Pace(0.5, 1.5)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def addressed(events: Any, seat: int | None) -> list[dict[str, Any]]:
    mine = [e.as_json(with_audience=False) for e in events if e.to is None or (seat is not None and seat in e.to)]
    return list(json.loads(json.dumps(mine)))


def check(v: dict[str, Any], room: Room, seat: int | None, host: bool = False) -> None:
    game = room.game
    shown = list(room.shown())
    assert v["seat"] == seat
    # Exactly the released events this seat may see (and the released part is a prefix of the engine's log).
    assert shown == game.events[:len(shown)]
    assert v["events"] == addressed(shown, seat)
    for e in v["events"]:
        assert set(e) >= {"type", "phase"} and "to" not in e
    if seat is None:
        assert v["role"] is None and v["pending"] is None and not v["decisions"] and v["awake"] is None
    else:
        told = [e for e in shown if e.type in ("role", "took") and e.to is not None and seat in e.to
                and e.data.get("seat") == seat]
        assert v["role"] == (told[-1].data["role"] if told else None)
        settled = len(shown) == len(game.events)
        owed = [o for d in game.pending(seat) for o in d.options()] if settled else []
        assert v["pending"] == (owed or None)
        for d in v["decisions"] or []:
            assert d["seat"] == seat
        if v["awake"] is not None:
            assert v["awake"]["role"] == v["role"] and not v["pending"]
    if not (len(shown) == len(game.events)):
        assert v["game_over"] is None and not v["speaking"]
    check_pack(v, room, seat)
    if "text" in v:
        assert len(v["text"]["events"]) == len(v["events"])
        # Narrated once per language for every seat an event does not name: the same words as its own.
        told = [e for e in shown if e.to is None or (seat is not None and seat in e.to)]
        assert v["text"]["events"] == [narrate(e, v["text"]["lang"], seat) for e in told]


def check_pack(v: dict[str, Any], room: Room, seat: int | None) -> None:
    """The pack's fields (werewolf.web.pack): the picks only to the voices of the knife the table sees now,
    each chat line only to the voices it was said to, a seat's buttons only to it; for anyone else null."""
    game = room.game
    request = game.request if room.status == "playing" and len(room.shown()) == len(game.events) else []
    voices = [d.seat for d in request] if request and all(d.act == "kill" for d in request) else []
    if seat is None or seat not in voices:
        assert v["pack"] is None and v["pack_ready"] is None and v["pack_why"] is None
    else:
        assert set(v["pack"]) == {str(s) for s in voices}
        for s, t in v["pack"].items():
            assert t is None or t in next(d for d in request if d.seat == int(s)).targets
    lines = [{k: x[k] for k in ("seat", "text", "phase")} for x in room.pack.chat
             if seat is not None and seat in x["to"]]
    assert (v["pack_chat"] or []) == lines
    for x in room.pack.chat:
        assert set(x["to"]) <= set(game.table.roles_by_seat()) and x["seat"] in x["to"]
    if seat is None:
        assert v["pack_chat"] is None and v["interrupts"] is None
    if v["interrupts"] is not None:
        assert seat in room.pack.offers
    if "text" in v:
        assert (v["text"]["pack"] is not None) == (v["pack"] is not None or v["pack_chat"] is not None)
        assert (v["text"]["interrupts"] is not None) == bool(v["interrupts"])


def apply(view: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """A delta socket's message applied as app.js applies it (a full view replaces everything)."""
    if "base" not in message:
        assert isinstance(message.get("v"), int)
        return message
    assert view is not None and view["v"] == message["base"] and message["v"] == message["base"] + 1
    out = {**view, **message["set"], "v": message["v"], "events": view["events"] + message["events"]}
    if "text" in message:
        out["text"] = {**view["text"], **message["text"],
                       "events": view["text"]["events"] + message["text"]["events"]}
    return out


def check_delta(message: dict[str, Any], room: Room, seat: int | None, before: int) -> None:
    """A delta holds exactly the seat's released events it was not sent yet: no other seat's, none unreleased."""
    if "base" in message:
        assert message["events"] == addressed(room.shown(), seat)[before:]


async def play(tmp: Path, ruleset: str, deck: str, seed: int, humans: int, bot_kind: str) -> int:
    clock = Clock()
    store = Store("sqlite:///" + str(tmp / f"{ruleset}-{seed}.sqlite"))
    hub = Hub(store, timeout=0, clock=clock, rng=random.Random(seed), timers=False)
    await hub.start()
    try:
        rng = random.Random(seed)
        room, host = await hub.create(ruleset=ruleset, deck=deck, options={}, bots=[], seed=None, mode="online",
                                      lang="en", players=None, timeout=None, bot_kind=bot_kind, pace=PACE.as_json())
        people = sorted(rng.sample(range(1, room.n + 1), min(humans, room.n)))
        for s in people:
            await hub.join(room, f"p{s}", s)
        langs = [None, "en", "zh-Hant"]
        subs = [Subscriber(s, False, rng.choice(langs), delta=rng.random() < 0.5) for s in range(1, room.n + 1)]
        subs += [Subscriber(None, False, None), Subscriber(None, True, "zh-Hans"),
                 Subscriber(people[0], True, "en", delta=True),  # the host of an online room is a player
                 Subscriber(None, False, "en", delta=True),
                 Subscriber(rng.randint(1, room.n), False, "zh-Hant", delta=True)]
        views: dict[int, dict[str, Any] | None] = {id(sub): None for sub in subs}
        room.subs.update(subs)
        await hub.start_game(room, fill_with_bots=True)
        pushes = deltas = 0
        for _ in range(20_000):
            for sub in subs:  # what each socket is sent now
                if sub.dirty.is_set():
                    sub.dirty.clear()
                    text = await hub.push(room, sub)
                    if text is not None:
                        pushes += 1
                        message = json.loads(text)
                        if sub.delta:
                            old = views[id(sub)]
                            check_delta(message, room, sub.seat, len(old["events"]) if old else 0)
                            deltas += "base" in message
                            views[id(sub)] = message = apply(old, message)
                            if rng.random() < 0.05:  # the phone lost track: it asks for the full view
                                sub.want_full = True
                                sub.dirty.set()
                        check(message, room, sub.seat, sub.host)
            if room.over():
                break
            asked = [s for s in people if room.pending(s)]
            at_knife = [s for s in asked if any(d.act == "kill" for d in room.pending(s))]
            if at_knife and rng.random() < 0.3:  # a wolf picks (not final) or talks to the pack
                from werewolf.web import pack

                seat = rng.choice(at_knife)
                (d,) = [d for d in room.pending(seat) if d.act == "kill"]
                target = rng.choice([*d.targets, None])  # type: ignore[attr-defined]
                if rng.random() < 0.5:
                    await hub.pack_move(room, lambda s=seat, t=target: pack.pick(room, s, t, False))
                else:
                    await hub.pack_move(room, lambda s=seat, t=target: pack.say(room, s, f"seat {t}?"))
            elif asked and rng.random() < 0.6:
                seat = rng.choice(asked)
                v = json.loads(await hub.view_json(room, seat, False, rng.choice(langs)))
                check(v, room, seat)
                calm = [m for m in v["pending"] if m["act"] not in ("explode", "duel")]
                move = rng.choice(calm if calm and rng.random() < 0.95 else v["pending"])
                await hub.act(room, seat, move)
            else:
                clock.now += rng.choice([0.1, 0.3, 0.7])
                await hub.sweep()
            # A seat not asked, or asked for something not yet released, is refused the same way.
            idle = rng.randint(1, room.n)
            if idle in people and not room.pending(idle):
                try:
                    await hub.act(room, idle, {"act": "vote", "target": 1})
                except Exception as err:  # noqa: BLE001
                    assert getattr(err, "status", None) == 409, err
        assert room.over(), room.phase()
        assert deltas > 0
        return pushes
    finally:
        await hub.stop()
        store.close()


@settings(max_examples=6, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**31 - 1), humans=st.integers(1, 4),
       bot_kind=st.sampled_from(["random", "heuristic"]))
def test_no_view_or_push_ever_holds_what_its_seat_may_not_see_yet(tmp_path_factory: Any, case: tuple[str, str],
                                                                  seed: int, humans: int, bot_kind: str) -> None:
    ruleset, deck = case
    pushes = asyncio.run(play(tmp_path_factory.mktemp("g"), ruleset, deck, seed, humans, bot_kind))
    assert pushes > 0


def test_every_ruleset_is_played_paced(tmp_path: Path) -> None:
    for i, (ruleset, deck) in enumerate(CASES):
        assert asyncio.run(play(tmp_path, ruleset, deck, 1000 + i, 2, "random")) > 0


def test_event_audiences_are_what_the_check_reads() -> None:
    e = Event("check", "night1", {"seat": 3}, frozenset({3}))
    assert addressed([e], 3) and not addressed([e], 4) and not addressed([e], None)


def watch_a_paced_onuw_game(tmp_path: Path, sockets: dict[str, str]) -> tuple[dict[str, list[str]], list[Event]]:
    """A paced ONUW room (steps of 0.05–0.1 s) on the real server and clock: Ann in seat 1, random bots in the
    rest, who says nothing and takes the first option of whatever she is asked. Each socket of ``sockets``
    (name -> URL, with ``{rid}`` and ``{token}`` filled in) is read until its game is over; returns what each
    was sent, as sent, and the game's log."""
    import threading
    import time

    from fastapi.testclient import TestClient

    from werewolf.web import create_app

    from .conftest import auth

    def over(text: str) -> bool:
        v = json.loads(text)
        return bool(v.get("game_over") or v.get("set", {}).get("game_over"))

    with TestClient(create_app(str(tmp_path / "ws.sqlite"), timeout=0, pace=(0.05, 0.1))) as client:
        r = client.post("/api/rooms", json={"ruleset": "onuw", "deck": "onuw5", "bots": [2, 3, 4, 5],
                                            "bot_kind": "random"}).json()
        rid, host = r["room"], r["host_token"]
        token = client.post(f"/api/rooms/{rid}/join", json={"name": "Ann"}).json()["token"]
        room = client.app.state.hub.rooms[rid]
        got: dict[str, list[str]] = {who: [] for who in sockets}

        def listen(who: str, url: str) -> None:
            with client.websocket_connect(url.format(rid=rid, token=token)) as ws:
                while True:
                    text = ws.receive_text()
                    got[who].append(text)
                    if over(text) or len(got[who]) > 2000:
                        return

        threads = [threading.Thread(target=listen, args=(who, url)) for who, url in sockets.items()]
        for t in threads:
            t.start()
        client.post(f"/api/rooms/{rid}/start", headers=auth(host))
        deadline = time.time() + 60
        while time.time() < deadline and any(t.is_alive() for t in threads):
            v = client.get(f"/api/rooms/{rid}/view", headers=auth(token)).json()
            if v["pending"]:
                move = next((m for m in v["pending"] if m["act"] == "speak" and m.get("text") is None),
                            v["pending"][0])
                client.post(f"/api/rooms/{rid}/act", json=move, headers=auth(token))
            time.sleep(0.01)
        for t in threads:
            t.join(5)
        return got, list(room.game.events)


def test_the_sockets_of_a_paced_room_get_one_step_at_a_time(tmp_path: Path) -> None:
    # Over the real WebSocket, on the real clock with a short pace: every message a seat or the spectator
    # is sent holds only what it may see, and no message carries two night steps.
    got, everything = watch_a_paced_onuw_game(tmp_path, {"seat": "/api/rooms/{rid}/ws?token={token}",
                                                         "spectator": "/api/rooms/{rid}/ws?spectator=true"})
    messages = {who: [json.loads(text) for text in texts] for who, texts in got.items()}
    for who, seat in (("seat", 1), ("spectator", None)):
        seen = 0
        assert messages[who] and messages[who][-1]["game_over"]
        for v in messages[who]:
            assert v["events"] == addressed(everything, seat)[:len(v["events"])]
            new = v["events"][seen:]
            assert sum(e["type"] == "step" for e in new) <= 1, new
            seen = len(v["events"])
        assert sum(e["type"] == "step" for e in messages[who][-1]["events"]) >= 4


def test_a_delta_socket_gets_the_full_view_then_deltas_and_the_full_view_again_when_it_asks(client: Any) -> None:
    from .conftest import auth

    r = client.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9", "bots": list(range(2, 10)),
                                        "bot_kind": "random"}).json()
    rid, host = r["room"], r["host_token"]
    token = client.post(f"/api/rooms/{rid}/join", json={"name": "Ann"}).json()["token"]
    with client.websocket_connect(f"/api/rooms/{rid}/ws?delta=true&lang=en",
                                  subprotocols=["werewolf", f"token.{token}"]) as ws:
        view = apply(None, json.loads(ws.receive_text()))  # on connect: the full view, with its version
        assert view["v"] == 1 and view["events"] == [] and view["room"]["status"] == "lobby"
        client.post(f"/api/rooms/{rid}/start", headers=auth(host))
        message = json.loads(ws.receive_text())
        assert "base" in message and "seat" not in message["set"] and message["set"]["room"]["status"] == "playing"
        view = apply(view, message)
        room = client.app.state.hub.rooms[rid]
        assert view["events"] == addressed(room.shown(), 1)
        assert view["text"]["events"] == [narrate(e, "en", 1) for e in room.shown() if e.visible_to(1)]
        ws.send_text('{"full": true}')  # a phone that lost track
        again = json.loads(ws.receive_text())
        assert "base" not in again and again["v"] == view["v"] + 1
        assert {k: x for k, x in again.items() if k != "v"} == {k: x for k, x in view.items() if k != "v"}
