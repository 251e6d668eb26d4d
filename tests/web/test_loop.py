"""Bots off the event loop (issue 14, point 7).

The latency it buys (an unrelated request while 50 all-bot rooms start: p99 under 50 ms) is a figure for a
quiet machine, measured by ``scripts/loop_latency.py``, not a timed test that a busy machine would fail.
Here, the structure that gives it, exactly: every bot round runs on a worker thread, never on the loop's.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from werewolf.web.room import Room

from .conftest import auth


def test_bots_answer_in_the_worker_thread_never_on_the_event_loop(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The structural half of point 7, exact on any machine: every bot round of whole all-bot games (started
    through /start, then played on by the room's own wake-ups) runs off the event loop's thread."""
    loop_thread = client.portal.call(threading.get_ident)  # BlockingPortal.call runs it on the loop's thread
    bot_threads: set[int] = set()
    original = Room.bot_round

    def recording(self: Room) -> bool:
        bot_threads.add(threading.get_ident())
        return original(self)

    monkeypatch.setattr(Room, "bot_round", recording)
    rooms = [client.post("/api/rooms", json={"ruleset": "classic", "deck": "classic9", "bots": list(range(1, 10)),
                                             "seed": i}).json() for i in range(3)]
    for r in rooms:
        assert client.post(f"/api/rooms/{r['room']}/start", headers=auth(r["host_token"])).status_code == 200
    assert {client.get(f"/api/rooms/{r['room']}").json()["status"] for r in rooms} == {"over"}
    assert bot_threads and loop_thread not in bot_threads
