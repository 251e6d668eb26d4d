"""Answers that arrive together are taken together (issue 16: werewolf.web.inbox): one change, one commit,
one publication, and each caller told its own outcome, exactly as if its answer had come alone."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from werewolf.core.decisions import Decision
from werewolf.web.pacing import Pace
from werewolf.web.rooms import ApiError, Hub, Room
from werewolf.web.store import Store

NINE = ["werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "villager", "villager", "villager"]


async def night_table(tmp_path: Path) -> tuple[Hub, Store, Room, list[Decision]]:
    """Nine people at a table, at the wolves' first kill: three wolves asked at once."""
    store = Store("sqlite:///" + str(tmp_path / "inbox.sqlite"))
    hub = Hub(store, timeout=0, pace=Pace(0, 0))
    await hub.start()
    room, _ = await hub.create(ruleset="classic", deck=NINE, options={}, seed=3, mode="online", lang="en",
                               players=None, timeout=None, bots=[], bot_kind="random", pace=[0, 0])
    for s in range(1, 10):
        await hub.join(room, f"P{s}", s)
    await hub.start_game(room, fill_with_bots=False)
    asked = room.pending()
    assert [d.act for d in asked] == ["kill"] * 3 and len({d.seat for d in asked}) == 3
    return hub, store, room, asked


async def together(hub: Hub, room: Room, answers: list[tuple[int, dict[str, Any]]]) -> list[str]:
    """The answers sent while the room is busy (its lock held), so that they wait together; each caller's
    outcome: "ok" or its error's status and message."""
    async def one(seat: int, move: dict[str, Any]) -> str:
        try:
            await hub.act(room, seat, move)
        except ApiError as err:
            return f"{err.status} {err.message}"
        return "ok"

    async with room.lock:
        calls = [asyncio.ensure_future(one(seat, move)) for seat, move in answers]
        await asyncio.sleep(0.05)
        assert [len(room.inbox.waiting), *(c.done() for c in calls)] == [len(answers), *[False] * len(answers)]
    return list(await asyncio.gather(*calls))


def counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many changes the hub makes and how many of them the store commits."""
    counts = {"changes": 0, "commits": 0}
    change, progress = Hub._change, Store.progress

    async def counted_change(self: Hub, *args: Any, **kwargs: Any) -> None:
        counts["changes"] += 1
        await change(self, *args, **kwargs)

    def counted_progress(*args: Any, **kwargs: Any) -> Callable[[Any], None]:
        counts["commits"] += 1
        return progress(*args, **kwargs)

    monkeypatch.setattr(Hub, "_change", counted_change)
    monkeypatch.setattr(Store, "progress", staticmethod(counted_progress))
    return counts


def stored(tmp_path: Path, room: Room) -> list[tuple[int, str, str]]:
    import sqlite3

    with sqlite3.connect(tmp_path / "inbox.sqlite") as conn:
        return conn.execute("SELECT seat, act, value FROM answers WHERE room_id = ? ORDER BY idx",
                            (room.id,)).fetchall()


def run(tmp_path: Path, body: Callable[[Hub, Room, list[Decision]], Coroutine[Any, Any, None]]) -> None:
    async def main() -> None:
        hub, store, room, asked = await night_table(tmp_path)
        try:
            await body(hub, room, asked)
        finally:
            await hub.stop()
            store.close()
    asyncio.run(asyncio.wait_for(main(), 60))


def test_answers_that_wait_together_are_one_change_and_one_commit(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    async def body(hub: Hub, room: Room, asked: list[Decision]) -> None:
        counts = counting(monkeypatch)
        moves = [(d.seat, d.options()[0]) for d in asked]
        assert await together(hub, room, moves) == ["ok"] * 3
        assert counts == {"changes": 1, "commits": 1}
        assert [(s, a) for s, a, _ in stored(tmp_path, room)] == [(d.seat, "kill") for d in asked]
        assert room.committed == len(room.game.answers) == 3
        assert "kill" not in {d.act for d in room.pending()}  # the wolves' request is over

    run(tmp_path, body)


def test_each_answer_of_a_batch_is_refused_or_taken_as_if_it_came_alone(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """An illegal move, a seat asked nothing and a second answer of a seat that has just answered are each
    refused with the words they get alone; the others of the batch are stored, in the order they came."""
    async def body(hub: Hub, room: Room, asked: list[Decision]) -> None:
        counts = counting(monkeypatch)
        wolf1, wolf2, wolf3 = (d.seat for d in asked)
        villager = next(s for s in range(1, 10) if s not in (wolf1, wolf2, wolf3))
        move = asked[0].options()[0]
        outcomes = await together(hub, room, [
            (wolf1, move), (wolf2, {"act": "kill", "target": 99}), (villager, move), (wolf1, move),
            (wolf3, asked[2].options()[0])])
        assert outcomes[0] == outcomes[4] == "ok"
        assert outcomes[1].startswith("422 ") and "99" in outcomes[1]
        assert outcomes[2] == f"409 not your turn: seat {villager} is not asked for anything now (night1)"
        assert outcomes[3] == f"409 not your turn: seat {wolf1} is not asked for anything now (night1)"
        assert counts == {"changes": 1, "commits": 1}
        assert [(s, a) for s, a, _ in stored(tmp_path, room)] == [(wolf1, "kill"), (wolf3, "kill")]
        assert [d.seat for d in room.pending()] == [wolf2]  # still asked: its answer was refused

    run(tmp_path, body)


def test_a_lone_refused_answer_makes_no_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def body(hub: Hub, room: Room, asked: list[Decision]) -> None:
        counts = counting(monkeypatch)
        villager = next(s for s in range(1, 10) if s not in {d.seat for d in asked})
        with pytest.raises(ApiError) as err:
            await hub.act(room, villager, {"act": "kill", "target": 1})
        assert err.value.status == 409
        assert counts == {"changes": 0, "commits": 0}

    run(tmp_path, body)


def test_a_batch_whose_commit_fails_changes_nothing_and_tells_every_caller(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    async def body(hub: Hub, room: Room, asked: list[Decision]) -> None:
        before = (json.dumps(room.view(None)), [d.seat for d in room.pending()], list(room.game.answers))
        progress = Store.progress

        def failing(*args: Any, **kwargs: Any) -> Callable[[Any], None]:
            write = progress(*args, **kwargs)

            def run(conn: Any) -> None:
                write(conn)
                raise RuntimeError("disk on fire")
            return run

        monkeypatch.setattr(Store, "progress", staticmethod(failing))
        outcomes = await together(hub, room, [(d.seat, d.options()[0]) for d in asked])
        assert outcomes == ["503 the database did not store this: nothing changed, try again"] * 3
        assert stored(tmp_path, room) == []
        assert (json.dumps(room.view(None)), [d.seat for d in room.pending()], list(room.game.answers)) == before
        monkeypatch.setattr(Store, "progress", staticmethod(progress))
        assert await together(hub, room, [(d.seat, d.options()[0]) for d in asked]) == ["ok"] * 3
        assert len(stored(tmp_path, room)) == 3

    run(tmp_path, body)
