"""A seat's moves in the game: one body and one handler each, reached two ways.

``POST /api/rooms/{id}/<name>`` with the seat's token (scripts, bots, anything that speaks HTTP), or, on the
seat's own WebSocket, the message ``{"id": n, "post": "<name>", "body": {…}}``: the same body, checked by
the same model, applied by the same handler, refused with the same status and message. A phone holds its
socket open all game; answering on it saves a request (headers, a body limit, a route, a response) per answer,
which at hundreds of rooms is most of the server's work for an answer (issue 29). The socket's reply is
``{"reply": n, "ok": true}`` or ``{"reply": n, "status": 4xx, "error": "…"}``; the view that shows the answer
comes as every push does (``?replies=inline``, the phones' way: the reply of a move taken rides on that push,
one message instead of two; ``werewolf.web.app.push_views``).

The socket's seat is its token's, checked again at each move (a seat freed by the host stops there too).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from werewolf.core.errors import quoted
from werewolf.web import pack
from werewolf.web.errors import ApiError
from werewolf.web.hub import Hub
from werewolf.web.requests import Move, PackChat, Pick, error_text
from werewolf.web.room import Room


async def act(hub: Hub, room: Room, seat: int, move: dict[str, Any]) -> None:
    """Answer a pending decision with one of the moves of the view's ``pending``."""
    if "seat" in move:
        if move["seat"] != seat:
            raise ApiError(403, f"you hold seat {seat}: you cannot act for seat {quoted(move['seat'])}")
        move = {k: v for k, v in move.items() if k != "seat"}
    await hub.act(room, seat, move)


async def pick(hub: Hub, room: Room, seat: int, body: Pick) -> None:
    await hub.pack_move(room, lambda: pack.pick(room, seat, body.target, body.confirm))


async def pack_chat(hub: Hub, room: Room, seat: int, body: PackChat) -> None:
    await hub.pack_move(room, lambda: pack.say(room, seat, body.text))


async def intent(hub: Hub, room: Room, seat: int, move: dict[str, Any]) -> None:
    await hub.pack_move(room, lambda: pack.intend(room, seat, move))


@dataclass(frozen=True)
class SeatMove:
    """One kind of move: its body's model, its handler, and the rate it counts against (None: none)."""

    body: TypeAdapter[Any]
    run: Callable[[Hub, Room, int, Any], Awaitable[None]]
    rate: str | None


SEAT_MOVES: dict[str, SeatMove] = {
    "act": SeatMove(TypeAdapter(Move), act, None),
    "pick": SeatMove(TypeAdapter(Pick), pick, "pack"),
    "pack_chat": SeatMove(TypeAdapter(PackChat), pack_chat, "pack"),
    "intent": SeatMove(TypeAdapter(Move), intent, "pack"),
}


@dataclass(frozen=True)
class SocketMove:
    """A move read from a socket's message: which one, its reply's id, and its raw body."""

    id: int
    name: str
    body: Any


def read_socket_message(text: str) -> SocketMove | None:
    """What a socket's message asks: a move, or None for ``{"full": true}`` (the client lost track of its
    view). Anything else raises ``ApiError(422)``, with ``.reply`` the move's id when it had a good one."""
    try:
        msg = json.loads(text)
    except ValueError:
        raise ApiError(422, "malformed message: it is not valid JSON") from None
    if not isinstance(msg, Mapping) or ("post" not in msg and "full" not in msg):
        raise ApiError(422, "malformed message: a move {'id', 'post', 'body'} or {'full': true}")
    if "post" not in msg:
        return None
    ident = msg.get("id")
    if not isinstance(ident, int) or isinstance(ident, bool) or not 0 <= ident < 2**53:
        raise ApiError(422, "malformed move: 'id' must be a whole number from 0 to 2^53 - 1, "
                            "echoed in the reply")
    name = msg.get("post")
    if name not in SEAT_MOVES:
        raise SocketError(ident, 422, f"malformed move: 'post' must be one of {', '.join(SEAT_MOVES)} "
                                      f"(got {quoted(name)})")
    extra = set(msg) - {"id", "post", "body"}
    if extra:
        raise SocketError(ident, 422, f"malformed move: unexpected field(s) {', '.join(sorted(map(str, extra)))}")
    if "body" not in msg:
        raise SocketError(ident, 422, "malformed move: it needs a 'body', the JSON object its POST route takes")
    return SocketMove(ident, name, msg["body"])


class SocketError(ApiError):
    """A socket's move refused before it ran, with the id of its reply."""

    def __init__(self, reply: int, status: int, message: str) -> None:
        super().__init__(status, message)
        self.reply = reply


def parse_body(kind: SeatMove, raw: Any) -> Any:
    """The move's body as its POST route would take it (the same model, the same one-line message)."""
    try:
        return kind.body.validate_python(raw)
    except ValidationError as err:
        raise ApiError(422, "malformed request: " + (error_text(list(err.errors())) or "invalid body")) from None
