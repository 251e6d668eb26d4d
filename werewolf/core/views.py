"""A player's view: the one place that decides what a seat may see.

Every front end (terminal, phone, bot, RL policy) gets its player's
information from here and only from here.

``SeatView`` is what an agent is handed: one seat's role, what it was told,
the public log (the events and the table's statements), the open decision with
its legal moves under stable ids, and whether the game is over. It is an
immutable value built in constant time: its logs are ``Log`` prefixes of lists
that only grow, so an agent reads the new items since its previous view
(``new_public``, ``new_private``) instead of rescanning the game.
"""

from __future__ import annotations

from typing import Any

from werewolf.core.decisions import Decision, Move
from werewolf.core.events import Event
from werewolf.core.game import Game


def visible_events(events: list[Event], seat: int | None) -> list[Event]:
    """The events ``seat`` may see (``None``: a spectator, public events only)."""
    if seat is None:
        return [e for e in events if e.to is None]
    return [e for e in events if e.to is None or seat in e.to]


def view(game: Game, seat: int | None) -> dict[str, Any]:
    """The JSON view of one seat: its role, what it was told, what it owes now."""
    events = visible_events(game.events, seat)
    role = None
    for e in events:
        if e.type in ("role", "took") and e.data.get("seat") == seat:
            role = e.data.get("role")
    pending = [d.describe() for d in game.pending(seat)] if seat is not None else []
    result = game.result
    return {
        "seat": seat,
        "role": role,
        "phase": game.phase,
        "events": [e.as_json(with_audience=False) for e in events],
        "pending": pending or None,
        "game_over": {"teams": result[0], "seats": result[1]} if result else None,
    }


# -- stable option ids ------------------------------------------------------------------------

def _id_part(v: Any) -> str:
    if v is None:
        return "none"
    if v is True:
        return "yes"
    if v is False:
        return "no"
    if isinstance(v, (list, tuple)):
        return ",".join(_id_part(x) for x in v) or "none"
    return str(v)


def option_id(move: Move) -> str:
    """A legal move's id, stable across decisions of the same kind: the act, then the value of each
    other field of the move in the alphabetical order of the field names, joined by ``:`` (null is
    ``none``, false ``no``, a list its items joined by commas). ``vote:4``, ``vote:none``, ``save``,
    ``save:no``, ``poison:5``, ``link:3,7``, ``take:2``, ``side:wolves``, ``explode:day``,
    ``explode:4:day``, ``explode:no:day``."""
    parts = [str(move.get("act"))]
    for k in sorted(move):
        if k != "act" and k != "seat":
            parts.append(_id_part(move[k]))
    return ":".join(parts)


def options_by_id(decision: Decision) -> dict[str, Move]:
    """Every legal move of ``decision`` by its ``option_id`` (in the order of ``Decision.options``)."""
    return {option_id(m): m for m in decision.options()}


# -- the seat view ----------------------------------------------------------------------------

class Log:
    """An immutable prefix of a list that only grows: ``items[:stop]``, read without copying."""

    __slots__ = ("_items", "_at", "stop")

    def __init__(self, items: list[Event], at: list[int], stop: int) -> None:
        self._items = items
        self._at = at  # each item's position in the merged order of the seat's log
        self.stop = stop

    def __len__(self) -> int:
        return self.stop

    def __getitem__(self, i: int) -> Event:
        if i < 0:
            i += self.stop
        if not 0 <= i < self.stop:
            raise IndexError("log index out of range")
        return self._items[i]

    def __iter__(self) -> Any:
        return iter(self._items[:self.stop])

    def since(self, start: int) -> list[Event]:
        """The items from ``start`` to the end of this prefix."""
        return self._items[start:self.stop]

    def position(self, i: int) -> int:
        return self._at[i]


class SeatView:
    """One seat's view of the game at one moment: everything an agent may know, nothing else.

    - ``public``: every public event of the log and every statement said at the table (events of
      type ``statement``: ``seat``, ``kind`` and ``target``/``role``/``result``), in order;
    - ``private``: the events told to this seat (alone, or with its pack, its lover...), in order;
    - ``public_since``/``private_since``: how much of each this seat had seen at its previous view
      (``new_public()``/``new_private()`` are the items since, ``new_events()`` both merged);
    - ``decision``: the open decision this view asks for (None at a speaking turn of a game without
      live speech: ``part`` names it), with ``options()``, its legal moves by stable id;
    - ``role`` (as the seat was last told), ``phase``, ``players``, ``ruleset``, ``over``/``result``,
      and ``live_speech``: whether speaking turns are ``speak`` decisions (text) or calls of
      ``Agent.speak`` at the log's ``speech`` events.

    An immutable value: made once, never changed (a class with slots, as the core's ``Event``: one
    is made for every decision of every simulated game, where a frozen dataclass costs a call per field).
    """

    __slots__ = ("seat", "ruleset", "players", "role", "phase", "public", "private", "public_since",
                 "private_since", "decision", "over", "result", "part", "live_speech")

    def __init__(self, seat: int, ruleset: str, players: int, role: str | None, phase: str, public: Log,
                 private: Log, public_since: int, private_since: int, decision: Decision | None, over: bool,
                 result: tuple[list[str], list[int]] | None, part: str | None = None,
                 live_speech: bool = False) -> None:
        self.seat = seat
        self.ruleset = ruleset
        self.players = players
        self.role = role
        self.phase = phase
        self.public = public
        self.private = private
        self.public_since = public_since
        self.private_since = private_since
        self.decision = decision
        self.over = over
        self.result = result
        self.part = part
        self.live_speech = live_speech  # speaking turns are ``speak`` decisions (text), not ``speak()`` calls

    def __repr__(self) -> str:
        return (f"SeatView(seat={self.seat}, role={self.role!r}, phase={self.phase!r}, public={len(self.public)}, "
                f"private={len(self.private)}, decision={self.decision!r})")

    def new_public(self) -> list[Event]:
        return self.public.since(self.public_since)

    def new_private(self) -> list[Event]:
        return self.private.since(self.private_since)

    def events(self) -> list[Event]:
        """The seat's whole log, public and private merged in the order they happened."""
        return _merge(self.public, 0, self.private, 0)

    def new_events(self) -> list[Event]:
        """What happened since this seat's previous view, in order."""
        return _merge(self.public, self.public_since, self.private, self.private_since)

    def events_since(self, public: int, private: int) -> list[Event]:
        """The items after the first ``public`` public and ``private`` private ones, in order (for an
        agent that keeps its own count of what it has read)."""
        return _merge(self.public, public, self.private, private)

    def options(self) -> dict[str, Move]:
        """The open decision's legal moves by their stable ids (``option_id``); empty when none."""
        return options_by_id(self.decision) if self.decision is not None else {}

    def as_json(self) -> dict[str, Any]:
        """The view as JSON (the shape of ``view``, plus the decision's options by id and the statements)."""
        d = self.decision
        pending = None
        if d is not None:
            pending = d.describe()
            pending["options"] = [{"id": k, "move": m} for k, m in self.options().items()]
        result = self.result
        return {"seat": self.seat, "role": self.role, "phase": self.phase, "ruleset": self.ruleset,
                "players": self.players, "events": [e.as_json(with_audience=False) for e in self.events()],
                "pending": pending, "part": self.part,
                "game_over": {"teams": result[0], "seats": result[1]} if result else None}

    def move(self, option: str) -> Move:
        """The legal move of id ``option``; KeyError naming the legal ids otherwise."""
        opts = self.options()
        if option not in opts:
            raise KeyError(f"no legal move {option!r} here (legal: {', '.join(opts) or 'none'})")
        return opts[option]


def _merge(a: Log, i: int, b: Log, j: int) -> list[Event]:
    out: list[Event] = []
    na, nb = len(a), len(b)
    while i < na and j < nb:
        if a.position(i) < b.position(j):
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    out.extend(a.since(i))
    out.extend(b.since(j))
    return out
