"""The pack decides together, and interrupts are buttons: the live room's side of the wolves' knife and of
the any-moment interrupts (issue 15, points 1 and 2). The engine's rulings are untouched.

The knife. The engine asks each voice of the pack (every living pack wolf, and a wolf who self-destructed
today where option ``self_destructed_wolf_votes_knife`` lets him) a ``kill`` at once, and names the victim
only if the named seats agree (``werewolf.rulesets.daynight.night.pack``). A room does not hand a person's
``kill`` to the engine as it comes: it is the person's *pick*, which the pack sees at once (each voice's
view, field ``pack``: seat -> target or null) and which may change until every person of the pack has
confirmed the same pick (``/act`` with ``kill``, or ``/pick`` with ``confirm``), or until the decision's time
is up (each person's current pick is then the answer; no pick, the decision's default). People who confirmed
different picks are warned (view field ``pack_split``, as soon as a pick differs from a confirmed one) and,
in a room with a decision time, may still agree until it is up: a split confirmed at once does not end the
knife empty (with no time limit, the last confirmation gives the picks as they are). Then the people's picks go to
the engine, and the bots follow them: a bot voice names the pick most of the people chose ("nobody" is a
pick too; a tie: the pick of the lowest seat among them), or, while no person has picked yet, its own choice. An all-bot
pack answers as it always did. Online, the voices may talk in a pack chat (``/pack_chat``).

Interrupts. A self-destruct or a knight's duel is offered by the engine before every speech and at the
election: a question that a person would have to decline dozens of times a day, and whose wait would tell
the table who holds it. A room answers a person's interrupt offer at once (``drive``): declined, unless
the seat pressed the button (``/intent``), in which case that move is given at this offer and the intent
is spent. The button is on a seat's phone (view field ``interrupts``) from the game's start where the
seat's first offer can be foreseen (``foresee``), else from its first offer, while the seat lives;
nothing waits for it, so the public stream is the same whoever holds one.

Secrecy. Picks, chat lines and intents are the room's state, not engine events: they are stored with the
room (``rooms.pack``, JSON; a restart mid-step keeps them) and shown only to their audience: the voices
of the open knife (chat lines: the voices of the knife they were said at), and a seat's own buttons. A
seat outside every audience sees the same ``null`` fields, and its view's signature never moves with
them, so no push reaches it. The timing stays the pacer's: the wolves' step lasts its drawn duration
whether the pack agreed at once or not (the engine's answers change nothing the table sees before it).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from werewolf.agents import Agent, Host, RandomAgent
from werewolf.core.decisions import Decision, Move
from werewolf.core.errors import IllegalMove
from werewolf.printable import scrub_json
from werewolf.web.jsontext import dumps

if TYPE_CHECKING:
    from collections.abc import Callable

    from werewolf.core.game import Game, Setup
    from werewolf.web.state import Sight
    from werewolf.web.store import RoomRecord

KNIFE = "kill"  # the pack's act (SCRIPTED_GAMES.md)
VOICE_RULE = "self_destructed_wolf_votes_knife"  # why a wolf who self-destructed still names the victim
CHAT_MAX = 300  # characters in a pack chat line
CHAT_KEEP = 400  # lines a room keeps (the oldest go first)


class Gate(Protocol):
    """The moderator voice, as the pack asks it (``werewolf.web.voice.Voice``): whether the table waits for it."""

    def waits(self, now: float) -> bool: ...


class Shared(Protocol):
    """What every seat's view shares in one state of the room (``werewolf.web.room.Frame``), as the pack
    reads it: the open knife the table sees, once ``sync`` has made the pack's state follow it."""

    @property
    def knife(self) -> list[Decision]: ...
    @property
    def voices(self) -> frozenset[int]: ...  # its seats
    @property
    def memo(self) -> dict[str, Any]: ...


class Room(Protocol):
    """A room as the pack reads and changes it (``werewolf.web.room.Room``): its game, its bots and their
    agents, the pack's state it holds, and what a seat sees."""

    _host: Host | None  # hands the bots their seat views (made with the agents)

    @property
    def game(self) -> Game: ...
    @property
    def setup(self) -> Setup: ...
    @property
    def rec(self) -> RoomRecord: ...
    @property
    def status(self) -> str: ...
    @property
    def bots(self) -> set[int]: ...
    @property
    def pack(self) -> PackState: ...
    @property
    def voice(self) -> Gate: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    @property
    def timeout(self) -> float: ...  # seconds a decision has (0: no limit)
    def settled(self) -> bool: ...
    def phase(self) -> str: ...
    def sight(self, seat: int | None) -> Sight: ...
    def frame(self) -> Shared: ...
    def agents(self) -> dict[int, Agent]: ...


class Refused(Exception):
    """A pack move refused before anything changed: the HTTP status and the message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class PackState:
    """The room's pack state; ``as_json`` is what the store keeps (``own`` and ``seen`` are memory only)."""

    key: int | None = None  # the open knife: how many events the game had when it asked it (None: none)
    picks: dict[int, int | None] = field(default_factory=dict)  # the people's current picks
    ready: set[int] = field(default_factory=set)  # the people who confirmed theirs
    own: dict[int, int | None] = field(default_factory=dict)  # the bots' own choices (asked again on a reload)
    chat: list[dict[str, Any]] = field(default_factory=list)  # {"seat", "text", "phase", "to": [seats]}
    intents: dict[int, Move] = field(default_factory=dict)  # seat -> the interrupt move it pressed
    offers: dict[int, dict[str, dict[str, Any]]] = field(default_factory=dict)  # seat -> act -> {"yes", "no"}
    previewed: bool = False  # the buttons the seats will be offered were foreseen (``foresee``)
    seen: dict[int, int] = field(default_factory=dict)  # seat -> how often its part of all this moved
    version: int = 0  # changes so far; the store holds ``stored``
    stored: int = 0

    def bump(self, seats: Sequence[int]) -> None:
        """Something ``seats`` may see changed (their sockets get a push; nobody else's does)."""
        for s in seats:
            self.seen[s] = self.seen.get(s, 0) + 1
        self.version += 1

    def as_json(self) -> dict[str, Any]:
        return {"key": self.key, "picks": {str(s): t for s, t in self.picks.items()}, "ready": sorted(self.ready),
                "chat": self.chat, "intents": {str(s): m for s, m in self.intents.items()},
                "offers": {str(s): o for s, o in self.offers.items()}, "previewed": self.previewed}

    @classmethod
    def from_json(cls, text: str | None) -> PackState:
        """The stored state (None or unreadable: a new one; a room stored before the pack was has none)."""
        try:
            d = json.loads(text) if text else {}
        except ValueError:
            d = {}
        if not isinstance(d, dict):
            d = {}
        key = d.get("key")
        try:
            return cls(key=key if isinstance(key, int) else None,
                       picks={int(s): t for s, t in (d.get("picks") or {}).items()},
                       ready={int(s) for s in d.get("ready") or []},
                       chat=scrub_json(list(d.get("chat") or [])),
                       intents={int(s): m for s, m in (d.get("intents") or {}).items()},
                       offers={int(s): o for s, o in (d.get("offers") or {}).items()},
                       previewed=d.get("previewed") is True)
        except (AttributeError, TypeError, ValueError):  # not what this version writes: start afresh
            return cls()

    def copy(self) -> PackState:
        """A copy to put back if a change fails: every container new (the changes replace the values in them,
        the chat's lines and each seat's offers, and never change one in place)."""
        return PackState(self.key, dict(self.picks), set(self.ready), dict(self.own), list(self.chat),
                         dict(self.intents), dict(self.offers), self.previewed, dict(self.seen), self.version,
                         self.stored)

    def dirty(self) -> str | None:
        """The state as the store should now hold it, if it changed since it was stored."""
        return dumps(self.as_json()) if self.version != self.stored else None


# -- the knife ------------------------------------------------------------------------------------
def _open(room: Room) -> list[Decision]:
    """The engine's open knife (shown or not): a request of ``kill`` decisions only."""
    request = room.game.request
    if room.status != "playing" or room.game.over or not request or any(d.act != KNIFE for d in request):
        return []
    return list(request)


def knife(room: Room) -> list[Decision]:
    """The open knife as the table sees it (once everything before it is out, and, face to face, once the
    voice has called the wolves), else []."""
    return _open(room) if room.settled() and not room.voice.waits(room.clock()) else []


def align(room: Room, st: PackState) -> list[int]:
    """``st`` follows the game: a new knife starts with no picks (a stored one is kept: same key). The
    seats that see it move (the voices of the knife that ended, and those of the new one); none if it was
    the game's knife already. Only the game decides this, so every server's copy agrees on it without
    storing it."""
    request = _open(room)
    key = len(room.game.events) if request else None
    if key == st.key:
        return []
    seats = sorted({*st.picks, *st.own, *st.ready, *(d.seat for d in request)})
    st.key, st.picks, st.ready, st.own = key, {}, set(), {}
    return seats


def sync(room: Room) -> list[Decision]:
    """The room's state follows the game (``align``), and the open knife as the table sees it."""
    st = room.pack
    moved = align(room, st)
    if moved:
        st.bump(moved)
    return knife(room)


def _answered(room: Room, d: Decision) -> bool:
    return not any(o is d for o in room.game.pending(d.seat))


def people(room: Room, request: Sequence[Decision]) -> list[Decision]:
    return [d for d in request if d.seat not in room.bots]


def follow(room: Room) -> tuple[bool, int | None]:
    """The people's pick, as the bots follow it: ``(True, target)``, the pick most of them made ("nobody"
    is a pick too); a tie, the pick of the lowest seat among the tied; ``(False, None)`` while nobody has
    picked."""
    picks = room.pack.picks
    if not picks:
        return False, None
    counts = Counter(picks.values())
    most = max(counts.values())
    return True, next(picks[s] for s in sorted(picks) if counts[picks[s]] == most)


def _bot_pick(room: Room, d: Decision) -> tuple[bool, int | None]:
    """A bot voice's pick: the people's (when they have picked and it is legal for it), else its own."""
    picked, chosen = follow(room)
    if picked and (chosen is None or chosen in getattr(d, "targets", ())):
        return True, chosen
    if d.seat in room.pack.own:
        return True, room.pack.own[d.seat]
    return False, None


def pick_of(room: Room, d: Decision) -> int | None:
    """What a voice has picked, as the pack sees it."""
    if d.seat in room.bots:
        return _bot_pick(room, d)[1]
    return room.pack.picks.get(d.seat)


def pick(room: Room, seat: int, target: Any, confirm: bool) -> None:
    """A person's pick (``confirm``: final unless changed again); once every person of the pack has
    confirmed, their picks are their answers. Raises ``Refused`` (409) off the step, ``IllegalMove`` for
    a target the rules forbid."""
    request = sync(room)
    mine = next((d for d in request if d.seat == seat and d.seat not in room.bots), None)
    if mine is None or _answered(room, mine):
        raise Refused(409, f"not your turn: seat {seat} names no victim now ({room.phase()})")
    why = mine.check({"act": KNIFE, "target": target})
    if why:
        raise IllegalMove(room.game.phase, seat, KNIFE, why)
    st = room.pack
    st.picks[seat] = target
    if confirm:
        st.ready.add(seat)
    else:
        st.ready.discard(seat)
    st.bump([d.seat for d in request])
    humans = people(room, request)
    # Split, the knife waits for the pack to agree until the decision's time is up; a room with no time
    # limit has no such end (a stubborn pack would hold the table for ever): there it falls as confirmed.
    if all(d.seat in st.ready for d in humans) and (room.timeout <= 0 or not split(room, humans)):
        for d in humans:
            if not _answered(room, d):
                room.game.answer_value(d, st.picks.get(d.seat))


def split(room: Room, humans: Sequence[Decision]) -> bool:
    """Whether the people of the pack who confirmed a pick confirmed different ones (the engine would name no
    victim): they are told, and the knife waits for them to agree or for its time to be up."""
    st = room.pack
    confirmed = {st.picks.get(d.seat) for d in humans if d.seat in st.ready}
    return len(confirmed) > 1 or (len(confirmed) == 1 and any(
        d.seat in st.picks and st.picks[d.seat] not in confirmed for d in humans if d.seat not in st.ready))


def take_act(room: Room, seat: int, move: Move) -> bool:
    """``/act`` with ``kill`` at the pack's step: the seat's pick, confirmed. False: not the knife."""
    if move.get("act") != KNIFE or not any(d.seat == seat for d in sync(room)):
        return False
    extra = set(move) - {"act", "target"}
    if extra:
        raise IllegalMove(room.game.phase, seat, KNIFE, f"unexpected field(s) {', '.join(sorted(extra))}")
    pick(room, seat, move.get("target"), True)
    return True


def time_up(room: Room, d: Decision) -> bool:
    """A person's knife whose time is up: its current pick is its answer (True); False: not the knife."""
    if d.act != KNIFE or d.seat in room.bots or not any(o is d for o in _open(room)):
        return False
    room.game.answer_value(d, room.pack.picks.get(d.seat))
    return True


def holds(room: Room, d: Decision) -> bool:
    """Whether a bot voice waits: a person of the pack has not answered yet."""
    if d.act != KNIFE or d.seat not in room.bots:
        return False
    return any(not _answered(room, o) for o in people(room, _open(room)))


def follows(room: Room, d: Decision) -> tuple[bool, int | None]:
    """A bot voice's answer when people are in its pack: ``(True, value)``, the people's pick, else the own
    choice it showed; ``(False, None)``: the bot is asked as always (an all-bot pack)."""
    if d.act != KNIFE or d.seat not in room.bots or not people(room, _open(room)):
        return False, None
    return _bot_pick(room, d)


def _bots_choose(room: Room, request: Sequence[Decision]) -> None:
    """Each bot voice's own choice, shown to the pack until a person picks (asked once a knife)."""
    st = room.pack
    todo = [d for d in request if d.seat in room.bots and d.seat not in st.own]
    if not todo or not people(room, request):
        return
    agents = room.agents()
    for d in todo:
        agent = agents[d.seat]
        if isinstance(agent, RandomAgent):
            value = d.random_value(agent.rng)
        else:
            if room._host is None or room._host.game is not room.game:
                room._host = Host(room.game, agents)
            move = room._host.ask(d)
            value = d.value(move) if move is not None and d.check(move) is None else None
        st.own[d.seat] = value if isinstance(value, int) else None
    st.bump([d.seat for d in request])


# -- interrupts -----------------------------------------------------------------------------------
def _plain(move: Move) -> Move:
    """A move without its offer's context (``when``): an intent is used at whichever offer comes next."""
    return {k: v for k, v in move.items() if k != "when"}


def _declinable(d: Decision) -> bool:
    return d.interrupt and d.default_value() in (None, False)


def _offer(d: Decision) -> dict[str, Any]:
    yes, no = [], None
    for o in d.options():
        if d.value(o) in (None, False):
            no = no or _plain(o)
        else:
            yes.append(_plain(o))
    return {"yes": yes, "no": no or {"act": d.act, "value": False}}


def foresee(room: Room) -> None:
    """The buttons each person will have, from the game's start: the same deal played on with every
    decision's default up to the first interrupt offer (the day's first speech, or the election), so that
    the first real offer need not come and go before its button is there. Each is kept with the role the
    seat held then, and shown only while the seat holds that role (a thief's card, say, may differ)."""
    from werewolf.core.game import Game

    st = room.pack
    st.previewed = True
    st.version += 1
    g = Game(room.setup)
    for _ in range(5000):
        if g.over:
            return
        offered = [d for d in g.pending() if _declinable(d)]
        if offered:
            break
        for d in list(g.pending()):
            if not g.over and any(o is d for o in g.pending()):
                g.decline(d)
    else:
        return
    roles: dict[int, str] = {}
    for e in g.events:
        if e.type in ("role", "took") and e.to is not None and e.data.get("seat") in e.to:
            roles[int(e.data["seat"])] = str(e.data.get("role"))
    for d in offered:
        if d.seat in room.bots or d.seat not in roles:
            continue
        mine = st.offers.get(d.seat, {})
        if d.act not in mine:
            st.offers[d.seat] = {**mine, d.act: {**_offer(d), "role": roles[d.seat]}}
        st.bump([d.seat])


def drive(room: Room) -> bool:
    """The room's part of a drive (the worker thread): the pack's state follows the game, the bots of a
    mixed pack show their own choice, and every person's interrupt offer is answered at once. True if an
    answer was given (the caller drives on)."""
    st = room.pack
    if not st.previewed and room.status == "playing":
        foresee(room)
    request = sync(room)
    if request:
        _bots_choose(room, request)
    g = room.game
    moved = False
    while not g.over:
        d = next((d for d in g.pending() if d.seat not in room.bots and _declinable(d)), None)
        if d is None:
            break
        offer = _offer(d)
        offers = st.offers.get(d.seat, {})
        if offers.get(d.act) != offer:  # new, changed, or foreseen until now
            st.offers[d.seat] = offers = {**offers, d.act: offer}
            st.bump([d.seat])
        intent = st.intents.get(d.seat)
        move = None
        if intent is not None and intent.get("act") == d.act:
            del st.intents[d.seat]
            move = {**intent, **dict(getattr(d, "context", {}))}
            if d.check(move) is not None:  # no longer legal (its target died): the intent is dropped
                move = None
            else:
                st.offers[d.seat] = {act: o for act, o in offers.items() if act != d.act}
            st.bump([d.seat])
        if move is not None:
            g.answer(d.seat, move)
        else:
            g.decline(d)
        moved = True
    return moved


def intend(room: Room, seat: int, move: Move) -> None:
    """The seat pressed (or took back: the offer's "no" move) an interrupt button."""
    act = move.get("act")
    offer = room.pack.offers.get(seat, {}).get(act) if isinstance(act, str) else None
    if offer is not None and offer.get("role", room.sight(seat).role) != room.sight(seat).role:
        offer = None  # foreseen for a role the seat does not hold
    if offer is None or seat in dead(room) or room.game.over:
        raise Refused(409, f"seat {seat} has no {act!r} to use now")
    st = room.pack
    plain = _plain(move)
    if plain == offer["no"]:
        if st.intents.pop(seat, None) is not None:
            st.bump([seat])
        return
    if plain not in offer["yes"]:
        legal = "; ".join(json.dumps(m) for m in offer["yes"] + [offer["no"]])
        raise IllegalMove(room.game.phase, seat, str(act), f"not one of the moves offered: {legal}")
    st.intents[seat] = plain
    st.bump([seat])


# -- the pack chat (its lines are checked by werewolf.web.requests.PackChat) ---------------------------
def say(room: Room, seat: int, text: str) -> None:
    """A line to the pack (online rooms, at the knife, by one of its voices)."""
    if room.rec.mode != "online":
        raise Refused(409, "face to face, the pack talks with gestures: there is no pack chat")
    request = sync(room)
    voices = [d.seat for d in request]
    if seat not in voices or seat in room.bots:
        raise Refused(409, f"not your turn: seat {seat} is not with the pack now ({room.phase()})")
    st = room.pack
    st.chat.append({"seat": seat, "text": text, "phase": room.game.phase, "to": voices})
    del st.chat[:-CHAT_KEEP]
    st.bump(voices)


# -- what a seat sees -----------------------------------------------------------------------------
def dead(room: Room) -> set[int]:
    """The seats the table knows are dead (public deaths and dawn announcements released so far), found
    once a state of the room."""
    memo = room.frame().memo
    if "dead" not in memo:
        memo["dead"] = _dead(room)
    return memo["dead"]  # type: ignore[no-any-return]


def _dead(room: Room) -> set[int]:
    out: set[int] = set()
    for e in room.sight(None).events:
        if e.type == "death" and isinstance(e.data.get("seat"), int):
            out.add(e.data["seat"])
        elif e.type == "announce":
            out.update(s for s in e.data.get("seats") or [] if isinstance(s, int))
    return out


_OUTSIDE: dict[str, Any] = {"pack": None, "pack_ready": None, "pack_chat": None, "pack_why": None,
                            "pack_split": None, "interrupts": None}


def view(room: Room, seat: int | None) -> dict[str, Any]:
    """The pack's fields of a view: null for every seat outside their audience (the public too). (The
    caller copies them into its view: the same object serves every seat outside.)"""
    if seat is None or room.status == "lobby":
        return _OUTSIDE
    st = room.pack
    f = room.frame()
    if not st.chat and not st.offers.get(seat) and seat not in f.voices:  # (most seats, most of the game)
        return _OUTSIDE
    out = dict(_OUTSIDE)
    request = f.knife  # (``sync``ed once for every seat's view)
    voices = [d.seat for d in request]
    if seat in voices:
        out["pack"] = {str(d.seat): pick_of(room, d) for d in request}
        out["pack_ready"] = sorted({d.seat for d in request if d.seat in st.ready or _answered(room, d)})
        out["pack_split"] = split(room, people(room, request))
        if any(e.type == "explode" and e.data.get("seat") == seat for e in room.sight(None).events):
            out["pack_why"] = VOICE_RULE
    lines = [{"seat": x["seat"], "text": x["text"], "phase": x["phase"]} for x in st.chat if seat in x["to"]]
    if lines or (seat in voices and room.rec.mode == "online"):
        out["pack_chat"] = lines
    role = room.sight(seat).role
    offers = {act: o for act, o in (st.offers.get(seat) or {}).items() if o.get("role", role) == role}
    gone = dead(room) if offers else set()
    if offers and not room.game.over and seat not in gone:
        armed = st.intents.get(seat)
        out["interrupts"] = [{"act": act, "options": [m for m in o["yes"] if m.get("target") not in gone],
                              "no": o["no"],
                              "armed": armed if armed is not None and armed.get("act") == act else None}
                             for act, o in sorted(offers.items())]
    return out


def signature(room: Room, seat: int | None) -> int:
    """Moves whenever the pack's part of ``seat``'s view may have (never for a seat outside it)."""
    return 0 if seat is None else room.pack.seen.get(seat, 0)
