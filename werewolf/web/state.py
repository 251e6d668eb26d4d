"""A room's state as every part of the web layer shares it: the values a room is made of and watched by.

At the bottom of the web layer (``docs/architecture.md``), with the store: the sockets watching a room
(``Subscriber``), what one seat may see of the released events (``Sight``), the room's tokens, its
setup as stored and its seat count. The room itself (``werewolf.web.room.Room``) holds these; the
features (pack, voice, lobby, text) read and change it through the small interfaces they declare.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from werewolf.core.events import Event
from werewolf.core.game import Game, Setup
from werewolf.web.store import RoomRecord


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def setup_from_json(d: dict[str, Any]) -> Setup:
    """The inverse of ``Setup.as_json`` (fields this engine does not know are an error)."""
    known = {f.name for f in dataclasses.fields(Setup)}
    unknown = set(d) - known
    if unknown:
        raise ValueError(f"setup field(s) {', '.join(sorted(unknown))} unknown to this engine")
    kw: dict[str, Any] = {k: v for k, v in d.items() if v is not None or k in ("seats", "deck")}
    for k in ("seats", "center"):
        if kw.get(k) is not None:
            kw[k] = tuple(kw[k])
    if isinstance(kw.get("deck"), list):
        kw["deck"] = tuple(kw["deck"])
    kw["options"] = dict(kw.get("options") or {})
    return Setup(**kw)

def series_info(rec: RoomRecord) -> dict[str, Any]:
    """The room's place in its series of games (play again: ``werewolf.web.lobby``) and its speech time."""
    return {"game": rec.game_no, "series": rec.series_id or rec.id, "prev": rec.prev_id, "next": rec.next_id,
            "speech_time": rec.speech_time or None}


def seat_count(game: Game) -> int:
    for e in game.events:
        if e.type == "game_start" and isinstance(e.data.get("players"), int):
            return int(e.data["players"])
    return len(game.table.roles_by_seat())

@dataclass(eq=False)
class Subscriber:
    """One socket watching a room: a seat, the host, or a spectator."""

    seat: int | None
    host: bool
    lang: str | None
    dirty: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    last: tuple[Any, ...] | None = None  # the room's signature for this socket when its view was last made
    digest: bytes | None = None  # a full-view socket: the hash of the last view sent (none is sent twice)
    # The delta protocol (``?delta=true``): after a full view, each push carries only what changed.
    delta: bool = False
    want_full: bool = False  # the client asked for the full view (it lost track of its version)
    v: int = 0  # the version of the last push (full or delta)
    head: dict[str, Any] | None = None  # the last view sent, without its events
    text_head: dict[str, Any] | None = None  # its words, without the events' narrations
    sent: int = 0  # how many of the seat's visible events it has been sent


@dataclass(eq=False)
class Sight:
    """What one seat (None: the public) may see of the released events, kept up as they come out."""

    scanned: int = 0  # how many released events have been looked at
    index: list[int] = field(default_factory=list)  # the visible ones' places in the game's log
    events: list[Event] = field(default_factory=list)  # and the events themselves
    role: str | None = None  # the seat's role, as it was last told
