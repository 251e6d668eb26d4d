"""Deals consistent with what one seat knows: search over hidden information.

``consistent_deal(game_or_view, seat, rng)`` draws a deal (each seat's dealt card, and the centre
cards) that agrees with everything ``seat`` was told and everything public: its own card, its
pack or fellow wolves, the masons, a seer's results, a robber's or a one-night seer's look, the
thief's bottom cards, the roles shown in public (a self-destruct, a reveal, a shot, the end). A
search (determinized rollouts, information-set MCTS) plays each drawn deal with
``Setup(seats=deal.seats, center=deal.center)``.

The draw is uniform over the consistent deals when a few hundred random tries find one
(rejection); otherwise a randomized search finds one (every consistent deal can come out, not
all equally often). Roles that change after the deal (the thief's new card, the wild child, the
one-night swaps and the doppelganger's copy) are allowed for: a fact about a card now admits the
dealt cards that could have become it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from werewolf.core.errors import SetupError
from werewolf.core.events import Event
from werewolf.core.game import Game, Setup
from werewolf.roles import ROLES

# Cards that may become another role after the deal: the thief (a bottom card), the wild child
# (a wolf when his model dies), the doppelganger (the card it copies).
_CHANGERS: Final = ("thief", "wild_child", "doppelganger")


class Deal:
    """A deal: ``seats[i]`` is seat i+1's dealt card; ``center`` the centre (bottom) cards."""

    __slots__ = ("seats", "center")

    def __init__(self, seats: tuple[str, ...], center: tuple[str, ...]) -> None:
        self.seats = seats
        self.center = center

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deal) and self.seats == other.seats and self.center == other.center

    def __hash__(self) -> int:
        return hash((self.seats, self.center))

    def __repr__(self) -> str:
        return f"Deal(seats={self.seats!r}, center={self.center!r})"


class Knowledge:
    """What one seat knows of the deal: the cards each position may hold (position i < players is
    seat i+1, the others the centre cards)."""

    def __init__(self, cards: Sequence[str], players: int) -> None:
        self.cards = tuple(cards)
        self.players = players
        self.deck = frozenset(cards)
        self.allowed: list[frozenset[str] | None] = [None] * len(cards)  # None: anything

    def limit(self, position: int, roles: Iterable[str]) -> None:
        if not 0 <= position < len(self.cards):
            return
        allowed = frozenset(roles)
        # A card that may have changed since the deal admits the cards it may have been dealt as.
        changers = frozenset(c for c in _CHANGERS if c in self.deck)
        allowed = allowed | changers
        old = self.allowed[position]
        self.allowed[position] = allowed if old is None else old & allowed

    def exact(self, position: int, role: str) -> None:
        if 0 <= position < len(self.cards):
            old = self.allowed[position]
            self.allowed[position] = frozenset({role}) if old is None else old & {role}

    def admits(self, deal: Deal) -> bool:
        """Whether ``deal`` agrees with this knowledge (and holds exactly the deck's cards)."""
        cards = deal.seats + deal.center
        if sorted(cards) != sorted(self.cards):
            return False
        return all(a is None or c in a for c, a in zip(cards, self.allowed))


def _wolves(deck: frozenset[str]) -> frozenset[str]:
    return frozenset(r for r in deck if ROLES[r].faction in ("wolf", "white_wolf") and r != "minion")


def _seat(v: Any) -> int:
    return int(v)


def knowledge(events: Iterable[Event], seat: int, cards: Sequence[str], players: int) -> Knowledge:
    """The knowledge of ``seat`` from the events it saw (``cards``: every card of the deck)."""
    k = Knowledge(cards, players)
    wolves = _wolves(k.deck)
    pack = frozenset(r for r in k.deck if ROLES[r].pack)
    werewolves = frozenset({"werewolf"})
    village = frozenset(r for r in k.deck if ROLES[r].faction == "good")
    reads_wolf = wolves - {"hidden_wolf"}  # the seer's "wolf" (the hidden wolf reads good)
    own_dealt = False
    dead: set[int] = set()
    for e in events:
        if e.to is not None and seat not in e.to:
            continue
        t, d = e.type, e.data
        if t == "role" and d.get("seat") == seat and not own_dealt:
            k.exact(seat - 1, str(d["role"]))  # the first card it was told of is the one it was dealt
            own_dealt = True
        elif t == "role" and d.get("seat") != seat and d.get("seat") is not None:
            k.limit(_seat(d["seat"]) - 1, (str(d["role"]),))
        elif t in ("death", "exile", "explode") and e.to is None and d.get("seat") is not None:
            dead.add(_seat(d["seat"]))
        elif t == "announce" and e.to is None:  # the night's dead, named at dawn
            dead.update(_seat(s) for s in d.get("seats") or ())
        elif t == "pack":  # every living member: the other living seats hold no pack card
            _complete(k, [_seat(s) for s in d.get("seats") or ()], pack, dead)
        elif t in ("wolves", "thumbs"):  # the one-night werewolves, as they wake and the minion sees them
            _complete(k, [_seat(s) for s in d.get("seats") or d.get("wolves") or ()], werewolves, dead)
        elif t == "masons":
            _complete(k, [_seat(s) for s in d.get("seats") or ()], frozenset({"mason"}), dead)
        elif t == "check":
            target, result = d.get("target"), d.get("result")
            if target is not None and result is not None:
                at = _seat(target) - 1
                if result == "wolf":
                    k.limit(at, reads_wolf)
                elif result == "good":
                    k.limit(at, k.deck - reads_wolf)
                elif result == "village":
                    k.limit(at, village)
                elif result == "not_village":
                    k.limit(at, k.deck - village)
            elif target is not None and d.get("role") is not None:
                k.limit(_seat(target) - 1, (str(d["role"]),))
            for c, r in zip(d.get("cards") or (), d.get("roles") or ()):
                k.limit(players + int(c) - 1, (str(r),))
        elif t == "rob" and d.get("target") is not None and d.get("role") is not None:
            k.limit(_seat(d["target"]) - 1, (str(d["role"]),))
        elif t == "peek" and d.get("card") is not None and d.get("role") is not None:
            k.limit(players + int(d["card"]) - 1, (str(d["role"]),))
        elif t == "bottom_cards":
            for i, r in enumerate(d.get("cards") or ()):
                k.exact(players + i, str(r))
        elif t in ("explode", "reveal", "shoot") and e.to is None:
            if d.get("seat") is not None and d.get("role") is not None:
                k.limit(_seat(d["seat"]) - 1, (str(d["role"]),))
        elif t == "roles" and e.to is None:
            dealt = d.get("dealt")
            if isinstance(dealt, dict):
                for s, r in dealt.items():
                    k.exact(_seat(s) - 1, str(r))
            else:
                for s, r in (d.get("roles") or {}).items():
                    k.limit(_seat(s) - 1, (str(r),))
    return k


def _complete(k: Knowledge, seats: list[int], roles: frozenset[str], dead: set[int]) -> None:
    """``seats`` are all the living seats holding one of ``roles``."""
    listed = set(seats)
    for s in range(1, k.players + 1):
        if s in listed:
            k.limit(s - 1, roles)
        elif s not in dead:
            k.limit(s - 1, k.deck - roles)


class DealRules:
    """Whether a deal may be dealt at all (the thief's bottom cards may be limited): the ruleset's
    own check of an explicit deal (``Setup(seats=..., center=...)``)."""

    def __init__(self, ruleset: str, options: Any) -> None:
        self.ruleset = ruleset
        self.options = options
        self.known: dict[Deal, bool] = {}

    def allows(self, deal: Deal) -> bool:
        ok = self.known.get(deal)
        if ok is None:
            try:
                Game(Setup(self.ruleset, seats=deal.seats, center=deal.center, options=self.options))
                ok = True
            except SetupError:
                ok = False
            self.known[deal] = ok
        return ok


def _draw_uniform(k: Knowledge, rng: random.Random, tries: int, rules: DealRules) -> Deal | None:
    pool = list(k.cards)
    fixed: dict[int, str] = {}
    for i, a in enumerate(k.allowed):
        if a is not None and len(a) == 1:
            (r,) = tuple(a)
            if r in pool:
                pool.remove(r)
                fixed[i] = r
            else:
                return None
    free = [i for i in range(len(k.cards)) if i not in fixed]
    for _ in range(tries):
        rng.shuffle(pool)
        out = dict(fixed)
        ok = True
        for i, r in zip(free, pool):
            a = k.allowed[i]
            if a is not None and r not in a:
                ok = False
                break
            out[i] = r
        if ok:
            cards = tuple(out[i] for i in range(len(k.cards)))
            deal = Deal(cards[:k.players], cards[k.players:])
            if rules.allows(deal):
                return deal
    return None


def _draw_search(k: Knowledge, rng: random.Random, rules: DealRules) -> Deal | None:
    """A randomized depth-first search, most constrained position first."""
    n = len(k.cards)
    order = sorted(range(n), key=lambda i: (len(k.allowed[i] or k.deck), rng.random()))
    counts: dict[str, int] = {}
    for c in k.cards:
        counts[c] = counts.get(c, 0) + 1
    out: list[str] = [""] * n

    def place(j: int) -> bool:
        if j == n:
            return rules.allows(Deal(tuple(out[:k.players]), tuple(out[k.players:])))
        i = order[j]
        a = k.allowed[i]
        choices = [c for c in counts if counts[c] > 0 and (a is None or c in a)]
        rng.shuffle(choices)
        for c in choices:
            counts[c] -= 1
            out[i] = c
            if place(j + 1):
                return True
            counts[c] += 1
        return False

    if not place(0):
        return None
    return Deal(tuple(out[:k.players]), tuple(out[k.players:]))


def deck_of(game: Game) -> tuple[tuple[str, ...], int]:
    """Every card of ``game``'s deck (the seats' then the centre's, as dealt) and its number of seats.

    Which cards are in the box is public; where they went is not: only the multiset is used.
    """
    fresh = game.rules.new_table(game.setup)  # the deal, before any move changed a card
    center: Any = getattr(fresh, "center", ())
    seats = game.dealt
    return tuple(seats) + tuple(str(c) for c in center), len(seats)


def consistent_deal(source: Any, seat: int, rng: random.Random, cards: Sequence[str] | None = None,
                    tries: int = 300, options: Mapping[str, Any] | None = None) -> Deal:
    """A deal consistent with all ``seat`` knows (see the module's docstring).

    ``source`` is a ``Game`` (engine side: its deck's cards are read from it, and the seat's view
    from its log) or a ``SeatView`` of that seat (then ``cards``: every card of the deck, seats
    and centre, as the box is public, and the game's ``options``, which may limit the deal).
    Raises ValueError when nothing is consistent (a view given with the wrong deck).
    """
    if isinstance(source, Game):
        deck, players = deck_of(source)
        events: Iterable[Event] = source.events
        rules = DealRules(source.setup.ruleset, source.setup.options)
    else:
        if cards is None:
            raise ValueError("a seat view needs the deck's cards (cards=...): the view does not hold them")
        deck, players = tuple(cards), int(source.players)
        events = source.events()
        rules = DealRules(str(source.ruleset), options or {})
    k = knowledge(events, seat, deck, players)
    deal = _draw_uniform(k, rng, tries, rules) or _draw_search(k, rng, rules)
    if deal is None:
        raise ValueError(f"no deal of these cards agrees with what seat {seat} knows")
    return deal
