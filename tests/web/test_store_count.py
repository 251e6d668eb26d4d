"""A change is checked against the answers stored in the statement that stores it (``rooms.answers_stored``,
``Store.progress``): after the last answer, never over it nor after a gap; a row stored before the column
was (null) is counted once and holds the count from then on."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select, update

from werewolf.web.store import RoomRecord, StaleWrite, Store, rooms


def stored(store: Store, room_id: str) -> int | None:
    return store.call(lambda conn: conn.execute(select(rooms.c.answers_stored)
                                                .where(rooms.c.id == room_id)).scalar())


def answers_of(store: Store, room_id: str) -> list[tuple[int, str, object]]:
    (rec,) = store.call(Store.load([room_id]))
    return rec.answers


@pytest.mark.parametrize("old_row", [False, True])
def test_changes_follow_the_stored_answers_exactly(tmp_path: Path, old_row: bool) -> None:
    store = Store("sqlite:///" + str(tmp_path / "s.sqlite"))
    try:
        rec = RoomRecord(id="r1", created=1.0, status="playing", setup={}, mode="online", lang="en", bots=[],
                         host_hash="h", timeout=None)
        store.call(Store.create_room(rec))
        assert stored(store, "r1") == 0
        store.call(Store.progress("r1", 0, [(1, "speak", "hi"), (2, "speak", "yo")], paced=3))
        if old_row:  # as a database of an older version left it
            store.call(lambda conn: conn.execute(update(rooms).where(rooms.c.id == "r1")
                                                 .values(answers_stored=None)))
        for start in (1, 3):
            with pytest.raises(StaleWrite):  # over an answer stored, or after a gap
                store.call(Store.progress("r1", start, [(3, "vote", 1)], paced=9))
        assert answers_of(store, "r1") == [(1, "speak", "hi"), (2, "speak", "yo")]
        store.call(Store.progress("r1", 1, [], paced=4))  # the pacer's count, made before answer 2 came
        store.call(Store.progress("r1", 2, [(3, "vote", 1)], heard=5))
        assert stored(store, "r1") == 3
        assert answers_of(store, "r1") == [(1, "speak", "hi"), (2, "speak", "yo"), (3, "vote", 1)]
        (rec,) = store.call(Store.load(["r1"]))
        assert (rec.paced, rec.heard) == (4, 5)
    finally:
        store.close()
