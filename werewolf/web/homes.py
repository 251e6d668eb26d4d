"""Which process of ``werewolf serve --workers N`` is a room's home, and the ids that say so.

A room's home is a hash of its id over the N processes (``home``); each process creates only rooms whose
home it is (``new_room_id``). The parent that hands each connection to its room's home is
``werewolf.web.routing``; the advisory locks that say a process is alive are ``werewolf.web.cluster``'s.
This part is at the bottom of the web layer (``docs/architecture.md``): the hub, the lobby and the
cluster place rooms with it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Container
from dataclasses import dataclass

PLACE_ENV = "WEREWOLF_PLACE"  # "i/N": this process is worker i of N


@dataclass(frozen=True)
class Place:
    """Which of the ``count`` processes this one is (``index`` from 0)."""

    index: int
    count: int

    def home(self, room_id: str) -> int:
        return home(room_id, self.count)

    def is_home(self, room_id: str) -> bool:
        return self.home(room_id) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def parse(cls, text: str | None) -> Place | None:
        if not text:
            return None
        i, _, n = text.partition("/")
        place = cls(int(i), int(n))
        if not 0 <= place.index < place.count:
            raise ValueError(f"{PLACE_ENV}={text!r}: not a worker index of its count")
        return place


def hash64(text: str) -> int:
    """A signed 64-bit hash of ``text``: a room's home, and the advisory locks' keys (``werewolf.web.cluster``)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big", signed=True)


def home(room_id: str, count: int) -> int:
    """The process of ``count`` that is the room's home."""
    return hash64(room_id) % count


def new_room_id(taken: Container[str], place: Place | None) -> str:
    """A new room's id, none of ``taken``; with a ``place``, one whose home is this process."""
    while True:
        room_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        if room_id not in taken and (place is None or place.is_home(room_id)):
            return room_id


def worker_key(index: int) -> int:
    """The advisory lock a live worker holds (``werewolf.web.cluster``): whether a room's home is alive. (No
    room's key: a room id has no space.)"""
    return hash64(f"worker {index}")
