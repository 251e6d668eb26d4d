"""The observation encoding of a seat's view: fixed-size arrays, built incrementally.

Version ``ENCODING_VERSION`` (bump it whenever a field changes shape, order or meaning). With
``N`` = the ruleset's most seats (``actions.max_seats``), ``R`` = its roles (``actions.ruleset_roles``,
sorted), ``C`` = 3 centre cards, ``K`` = 3 vote rounds and ``A`` = the acts of its action space,
one flat float32 vector holds, in this order (``layout(ruleset)`` gives each field's slice and shape;
seat ``s`` is row ``s - 1``):

public (the same for every seat; read from public events and statements)
    present N      1 for the seats of this game
    alive N        1 for a living seat (0 once its death is announced)
    sheriff N      the sheriff's seat
    exiled N       seats exiled by vote
    phase 3        one-hot: setup, night, day
    day 1          the number of the current night or day
    over 1         1 once the game is over
    revealed N×R   roles shown publicly (a self-destruct, an idiot's or a hunter's reveal, the end)
    votes K×N×(N+1)  the last K vote rounds, newest first: voter row, target column (last: no vote)
    votes_total N×N  how many times each voter voted for each target
    claims N×R     roles claimed in statements
    reports N×N×2  check reports in statements: [speaker, target, good | wolf]
    accuse N×N     "target is a wolf" in statements
    vouch N×N      "target is good"
    intent N×N     "I will vote target" (the latest per speaker)
    defend N       "I am good"
private (what this seat was told)
    seat N         one-hot: this seat
    role R         one-hot: its role as it was last told (a thief's or robber's new card)
    known_role N×R roles it was shown (a one-night seer's look, a robbed card)
    known_team N×2 good | wolf as it was told (a seer's result, the pack, the wolves, the masons)
    center C×R     centre (bottom) cards it saw
    lovers N       the lovers it was told of
    victim N       the pack's victim it was told of (the witch; the pack's choice)
decision
    act A          one-hot: the act of the decision this seat owes now (none: all 0; ``say``: its speaking turn)
    interrupt 1    1 when that decision is an interrupt (a self-destruct, a duel)

The encoders only ever read the events they have not read (``SeatEncoder.update(view.new_events())``):
nothing rescans the log. Statements reach the public part where a ``Host`` puts them in the views
(agents that speak) and, in the environments, where seats speak (``speech=True``: the ``say:...``
actions of ``werewolf.env.speech``) or opponents do (``werewolf.env.single``).

The state (``state()`` of every environment; ``state_layout(ruleset)``): the whole hidden game, for
centralised critics at training time ONLY (it holds every seat's role: a policy that acts must never
be given it):

    public …       the public fields above, as they are
    private N×P    every seat's private part (row s - 1; P = the private part's size; absent seats 0)
    roles N×R      each seat's card now (after a thief's, a robber's or a troublemaker's change)
    sides N×3      the side each seat plays for now: wolves | village | others
    center_cards C×R  the centre (bottom) cards now

Versions: 1, the first. 2: the action spaces gained the speech actions (``say:...``, appended), so
``A`` counts the act ``say`` too: the ``act`` field has one more entry (in its sorted place) and
``interrupt`` moves by one; every other field is unchanged. The state (``state()``) is new in 2.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

import numpy as np

from werewolf.core.decisions import Decision
from werewolf.core.events import Event
from werewolf.env.actions import action_space, max_seats, ruleset_roles

ENCODING_VERSION = 2
CENTER = 3
ROUNDS = 3

_WOLF_RESULTS = frozenset({"wolf", "not_village", "werewolf", "bad"})
PUBLIC_TYPES = frozenset({"statement", "votes", "death", "night", "day", "exile", "explode", "reveal", "shoot",
                           "sheriff", "game_start", "game_over", "roles"})
PRIVATE_TYPES = frozenset({"role", "took", "own_card", "check", "pack", "wolves", "thumbs", "masons", "rob", "peek",
                            "bottom_cards", "linked", "lovers", "victim", "pack_choice"})


@cache
def layout(ruleset: str) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    """Each field of ``ruleset``'s observation vector: (start, stop, shape), in order."""
    n, r = max_seats(ruleset), len(ruleset_roles(ruleset))
    a = len(action_space(ruleset).acts)
    shapes: list[tuple[str, tuple[int, ...]]] = [
        ("present", (n,)), ("alive", (n,)), ("sheriff", (n,)), ("exiled", (n,)), ("phase", (3,)), ("day", (1,)),
        ("over", (1,)), ("revealed", (n, r)), ("votes", (ROUNDS, n, n + 1)), ("votes_total", (n, n)),
        ("claims", (n, r)), ("reports", (n, n, 2)), ("accuse", (n, n)), ("vouch", (n, n)), ("intent", (n, n)),
        ("defend", (n,)),
        ("seat", (n,)), ("role", (r,)), ("known_role", (n, r)), ("known_team", (n, 2)), ("center", (CENTER, r)),
        ("lovers", (n,)), ("victim", (n,)),
        ("act", (a,)), ("interrupt", (1,)),
    ]
    out: dict[str, tuple[int, int, tuple[int, ...]]] = {}
    at = 0
    for name, shape in shapes:
        size = int(np.prod(shape))
        out[name] = (at, at + size, shape)
        at += size
    return out


def _split(ruleset: str, part: str) -> tuple[int, int]:
    lay = layout(ruleset)
    names = {"public": ("present", "defend"), "private": ("seat", "victim"), "decision": ("act", "interrupt")}[part]
    return lay[names[0]][0], lay[names[1]][1]


def unflatten(ruleset: str, vector: np.ndarray) -> dict[str, np.ndarray]:
    """The fields of an observation vector, by name, in their shapes (views, not copies)."""
    return {name: vector[a:b].reshape(shape) for name, (a, b, shape) in layout(ruleset).items()}


def _fields(ruleset: str, part: str, buf: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    start, stop = _split(ruleset, part)
    if buf is None:
        buf = np.zeros(stop - start, dtype=np.float32)
    assert buf.shape == (stop - start,) and buf.dtype == np.float32
    views = {name: buf[a - start:b - start].reshape(shape) for name, (a, b, shape) in layout(ruleset).items()
             if start <= a < stop}
    return buf, views


class PublicEncoder:
    """The public part, fed the public events (and statements) once, whoever reads them."""

    def __init__(self, ruleset: str) -> None:
        self.ruleset = ruleset
        self.roles = {r: i for i, r in enumerate(ruleset_roles(ruleset))}
        self.n = max_seats(ruleset)
        self.buf, f = _fields(ruleset, "public")
        self.present, self.alive, self.sheriff, self.exiled = f["present"], f["alive"], f["sheriff"], f["exiled"]
        self.phase, self.day, self.over, self.revealed = f["phase"], f["day"], f["over"], f["revealed"]
        self.votes, self.votes_total, self.claims = f["votes"], f["votes_total"], f["claims"]
        self.reports, self.accuse, self.vouch, self.intent = f["reports"], f["accuse"], f["vouch"], f["intent"]
        self.defend = f["defend"]

    def reset(self) -> None:
        self.buf[:] = 0.0

    # The fields are views of ``buf``: pickled apart they would be copies. Made again, then filled.
    def __getstate__(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "buf": self.buf}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["ruleset"])  # type: ignore[misc]
        self.buf[:] = state["buf"]

    def _reveal(self, seat: Any, role: Any) -> None:
        i = self.roles.get(role) if isinstance(role, str) else None
        if i is not None and seat is not None and 1 <= int(seat) <= self.n:
            self.revealed[int(seat) - 1, i] = 1.0

    def update(self, e: Event) -> None:
        if e.type in PUBLIC_TYPES:  # most of the log (speaking turns, night steps) changes nothing here
            self.apply(e.type, e.data)

    def apply(self, t: str, d: dict[str, Any]) -> None:
        """Read a public event of a type in ``PUBLIC_TYPES`` (``update`` without the check)."""
        if t == "statement":
            self._statement(d)
        elif t == "votes" and "ballots" in d:  # a secret ballot tells only the tally
            votes = self.votes
            votes[1:] = votes[:-1]
            votes[0] = 0.0
            n = self.n
            for voter, target in d["ballots"].items():
                v = int(voter) - 1
                if target is None:
                    votes[0, v, n] = 1.0
                else:
                    votes[0, v, int(target) - 1] = 1.0
                    self.votes_total[v, int(target) - 1] += 1.0
        elif t == "death":
            self.alive[int(d["seat"]) - 1] = 0.0
        elif t == "night" or t == "day":
            self.phase[:] = 0.0
            self.phase[1 if t == "night" else 2] = 1.0
            self.day[0] = float(d["number"])
        elif t == "exile":
            if d.get("seat") is not None:
                self.exiled[int(d["seat"]) - 1] = 1.0
        elif t == "explode" or t == "reveal" or t == "shoot":
            self._reveal(d.get("seat"), d.get("role"))
        elif t == "sheriff":
            self.sheriff[:] = 0.0
            if d.get("seat") is not None:
                self.sheriff[int(d["seat"]) - 1] = 1.0
        elif t == "game_start":
            players = int(d["players"])
            self.present[:players] = 1.0
            self.alive[:players] = 1.0
            self.phase[0] = 1.0
        elif t == "game_over":
            self.over[0] = 1.0
        elif t == "roles":  # every card, at the end: written here (a call per seat costs more than the writes)
            roles, revealed, n = self.roles, self.revealed, self.n
            for seat, role in d["roles"].items():
                i = roles.get(role)
                s = int(seat)
                if i is not None and 1 <= s <= n:
                    revealed[s - 1, i] = 1.0

    def _statement(self, d: dict[str, Any]) -> None:
        s = int(d["seat"]) - 1
        kind, target = d["kind"], d.get("target")
        tgt = int(target) - 1 if isinstance(target, int) and 1 <= target <= self.n else None
        if kind == "claim":
            i = self.roles.get(d.get("role") or "")
            if i is not None:
                self.claims[s, i] = 1.0
        elif kind == "check" and tgt is not None:
            result = d.get("result")
            if result is None:  # a one-night report names the card seen
                role = d.get("role")
                result = "wolf" if role == "werewolf" else "good"
            self.reports[s, tgt, 1 if result in _WOLF_RESULTS else 0] = 1.0
        elif kind == "accuse" and tgt is not None:
            self.accuse[s, tgt] = 1.0
        elif kind == "vouch" and tgt is not None:
            self.vouch[s, tgt] = 1.0
        elif kind == "vote" and tgt is not None:
            self.intent[s] = 0.0
            self.intent[s, tgt] = 1.0
        elif kind == "defend":
            self.defend[s] = 1.0


class PrivateEncoder:
    """One seat's private part, fed the events told to that seat."""

    def __init__(self, ruleset: str, seat: int, buf: np.ndarray | None = None) -> None:
        """``buf``: where to keep the part (a row of a table's block of every seat's, reset at once)."""
        self.ruleset = ruleset
        self.roles = {r: i for i, r in enumerate(ruleset_roles(ruleset))}
        self.n = max_seats(ruleset)
        self.me = seat
        self.buf, f = _fields(ruleset, "private", buf)
        f["seat"][seat - 1] = 1.0
        self.role, self.known_role, self.known_team = f["role"], f["known_role"], f["known_team"]
        self.center, self.lovers, self.victim = f["center"], f["lovers"], f["victim"]
        self.current: str | None = None  # its role, as last told
        self.current_i: int | None = None
        self._seat = f["seat"]

    def reset(self) -> None:
        self.buf[:] = 0.0
        self._seat[self.me - 1] = 1.0
        self.current = None
        self.current_i = None

    def __getstate__(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "seat": self.me, "buf": self.buf, "current": self.current,
                "current_i": self.current_i}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["ruleset"], state["seat"])  # type: ignore[misc]
        self.buf[:] = state["buf"]
        self.current, self.current_i = state["current"], state["current_i"]

    def _know(self, seat: Any, role: Any) -> None:
        i = self.roles.get(role) if isinstance(role, str) else None
        if i is not None and seat is not None:
            self.known_role[int(seat) - 1, i] = 1.0

    def _own(self, role: Any) -> None:
        i = self.roles.get(role) if isinstance(role, str) else None
        if i is not None:
            me = self.me - 1
            old = self.current_i
            if old is not None:  # scalar writes: a slice assignment costs several times more
                self.role[old] = 0.0
                self.known_role[me, old] = 0.0
            self.current, self.current_i = str(role), i
            self.role[i] = 1.0
            self.known_role[me, i] = 1.0

    def _card(self, card: Any, role: Any) -> None:
        i = self.roles.get(role) if isinstance(role, str) else None
        if i is not None and isinstance(card, int) and 1 <= card <= CENTER:
            self.center[card - 1, i] = 1.0

    def update(self, e: Event) -> None:
        if e.type in PRIVATE_TYPES:
            self.apply(e.type, e.data)

    def apply(self, t: str, d: dict[str, Any]) -> None:
        """Read an event of a type in ``PRIVATE_TYPES`` told to this seat (``update`` without the check)."""
        if t == "role" or t == "took" or t == "own_card":
            role = d.get("role")
            if d.get("seat") != self.me:
                self._know(d.get("seat"), role)
            elif self.current_i is None and role in self.roles:  # the deal (``_own``, inlined: every seat's)
                i = self.roles[role]
                self.current, self.current_i = role, i
                self.role[i] = 1.0
                self.known_role[self.me - 1, i] = 1.0
            else:
                self._own(role)
        elif t == "check":
            target = d.get("target")
            if target is not None:
                result = d.get("result")
                if result is not None:
                    self.known_team[int(target) - 1, 1 if result in _WOLF_RESULTS else 0] = 1.0
                else:
                    self._know(target, d.get("role"))
            cards, roles = d.get("cards"), d.get("roles")
            if cards and roles:
                for c, r in zip(cards, roles):
                    self._card(c, r)
        elif t == "pack" or t == "wolves":
            for s in d.get("seats") or ():
                self.known_team[int(s) - 1, 1] = 1.0
        elif t == "thumbs":
            for s in d.get("wolves") or ():
                self.known_team[int(s) - 1, 1] = 1.0
        elif t == "masons":
            for s in d.get("seats") or ():
                self.known_team[int(s) - 1, 0] = 1.0
        elif t == "rob":  # the robber's old card is the robbed seat's now
            old = self.current
            self._own(d.get("role"))
            self._know(d.get("target"), old)
        elif t == "peek":
            self._card(d.get("card"), d.get("role"))
        elif t == "bottom_cards":
            for i, r in enumerate(d.get("cards") or ()):
                self._card(i + 1, r)
        elif t == "linked" or t == "lovers":
            for s in d.get("lovers") or d.get("seats") or ():
                self.lovers[int(s) - 1] = 1.0
        elif t == "victim" or t == "pack_choice":
            self.victim[:] = 0.0
            target = d.get("target")
            if target is not None:
                self.victim[int(target) - 1] = 1.0


class DecisionEncoder:
    """The decision part: the act of the decision a seat owes now."""

    def __init__(self, ruleset: str) -> None:
        acts = action_space(ruleset).acts
        self.acts = {a: i for i, a in enumerate(acts)}
        self.size = len(acts) + 1
        self._made: dict[tuple[str, bool], np.ndarray] = {}

    def encode(self, d: Decision | None) -> np.ndarray:
        if d is None:
            key = ("", False)
        else:
            key = (d.act, d.interrupt)
        out = self._made.get(key)
        if out is None:
            out = np.zeros(self.size, dtype=np.float32)
            for act in key[0].split("|") if key[0] else ():
                if act in self.acts:
                    out[self.acts[act]] = 1.0
            out[-1] = 1.0 if key[1] else 0.0
            self._made[key] = out
        return out


class SeatEncoder:
    """The whole observation of one seat, fed that seat's events as they come.

    An agent feeds it what it has not read: ``update(view.new_events())`` when it sees every view
    of its seat, or ``update(view.events_since(public, private))`` with its own count of what it
    read (a ``Host`` also makes views of the seat at its speaking turns); ``vector(view.decision)``
    is the observation, as the environments give it.
    """

    def __init__(self, ruleset: str, seat: int) -> None:
        self.public = PublicEncoder(ruleset)
        self.private = PrivateEncoder(ruleset, seat)
        self.decision = DecisionEncoder(ruleset)
        self.seat = seat

    def update(self, events: Iterable[Event]) -> None:
        for e in events:
            to = e.to
            if to is None:
                self.public.update(e)
            elif self.seat in to:
                self.private.update(e)

    def vector(self, decision: Decision | None = None) -> np.ndarray:
        return np.concatenate((self.public.buf, self.private.buf, self.decision.encode(decision)))


# -- the whole hidden state (centralised critics) ----------------------------------------------

SIDES = ("wolves", "village", "others")


@cache
def state_layout(ruleset: str) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    """Each field of ``ruleset``'s state vector (``state()`` of the environments): (start, stop, shape)."""
    n, r = max_seats(ruleset), len(ruleset_roles(ruleset))
    lay = layout(ruleset)
    public = _split(ruleset, "public")
    private = _split(ruleset, "private")
    out = {name: v for name, v in lay.items() if v[1] <= public[1]}
    at = public[1]
    shapes = [("private", (n, private[1] - private[0])), ("roles", (n, r)), ("sides", (n, len(SIDES))),
              ("center_cards", (CENTER, r))]
    for name, shape in shapes:
        size = int(np.prod(shape))
        out[name] = (at, at + size, shape)
        at += size
    return out


def side_of(role: str) -> str:
    """``wolves``, ``village`` or ``others``: the side a card plays for (as ``--bots`` has it)."""
    from werewolf.sim.config import team_key

    try:
        return team_key(role)
    except KeyError:
        return "others"


def state_size(ruleset: str) -> int:
    return max(b for _, b, _ in state_layout(ruleset).values())


def true_state(game: Any, ruleset: str, out: np.ndarray) -> None:
    """Write the engine's hidden truth into ``out`` (the ``roles``, ``sides`` and ``center_cards`` fields,
    in that order): each seat's card as it is now (after a robber's or a thief's change), the side it
    plays for now (a transformed wild child, a one-night card's team), the centre cards now."""
    n, roles = max_seats(ruleset), {x: i for i, x in enumerate(ruleset_roles(ruleset))}
    r = len(roles)
    role_of = out[:n * r].reshape(n, r)
    side = out[n * r:n * r + n * len(SIDES)].reshape(n, len(SIDES))
    center = out[n * r + n * len(SIDES):].reshape(CENTER, r)
    table = game.table
    cards = getattr(table, "cards", None)
    if cards is not None:  # one-night: the cards as they lie now
        seats = [(card, side_of(card)) for card in cards]
    else:
        factions = {"wolf": "wolves", "good": "village"}
        seats = [(p.role, factions.get(p.faction, "others")) for p in table.players]
    for i, (card, team) in enumerate(seats):
        if card in roles:
            role_of[i, roles[card]] = 1.0
        side[i, SIDES.index(team)] = 1.0
    for i, card in enumerate(list(getattr(table, "center", ()) or ())[:CENTER]):
        if card in roles:
            center[i, roles[card]] = 1.0


def size(ruleset: str) -> int:
    """The length of ``ruleset``'s observation vector."""
    return max(b for _, b, _ in layout(ruleset).values())
