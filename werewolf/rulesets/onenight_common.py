"""What the two one-night rulesets share (`onuw` = 003, `onenight` = 004; RULES.md §1.4, §1.5, §2.4).

The cards are physical objects: ``cards[seat - 1]`` is the card in front of a
player, ``center[i - 1]`` is centre card *i*. A night power moves or shows cards;
nothing else changes. Players act by the card they were *dealt* (the
doppelganger by the role it copied), and play the team of the card they hold
at dawn. Then one simultaneous vote, the deaths, the win table, the reveal.

Information: every event that shows a card goes to exactly the player who
looked; every card movement is logged for the moderator only; each step the
deck holds is announced publicly whether or not anyone acts in it, so that the
timing of the night gives nothing away.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from werewolf.core.decisions import OPEN, Choice, Decision, Move, Pair, Speak, Target, wrong_act
from werewolf.core.draws import randbelow, shuffle
from werewolf.core.errors import SetupError
from werewolf.core.events import MODERATOR, PUBLIC, Event
from werewolf.core.game import Flow, Setup
from werewolf.core.table import Checkpoint, Table
from werewolf.roles import ROLES
from werewolf.rulesets.options import OneNightOptions, make_options, played_with

Gen = Generator[list[Decision], list[Any], None]
Result = tuple[list[str], list[int]]


# -- the table ------------------------------------------------------------------------
class SeatInfo(NamedTuple):
    """One seat as the scripted runner's error messages read it (script.py)."""

    seat: int
    role: str  # the role the seat acts as tonight (dealt, or the doppelganger's copy)
    dealt: str
    alive: bool
    cause: str


class Seating(NamedTuple):
    """What depends only on the number of players, made once per count (games are made by the million)."""

    keys: tuple[str, ...]  # the seats as the log's JSON keys, "1" to "n"
    alone: tuple[frozenset[int], ...]  # alone[seat - 1]: the audience of what one player is told
    others: tuple[tuple[int, ...], ...]  # others[seat - 1]: every seat but that one
    # The day's forced votes: the same question in every game of this size,
    # and a decision is never changed by its answer (the game keeps the answers).
    votes: tuple[Target, ...]  # at another player (the rule book)
    votes_any: tuple[Target, ...]  # at any player (allow_self_vote)


@cache
def seating(n: int) -> Seating:
    seats = range(1, n + 1)
    others = tuple(tuple(s for s in seats if s != seat) for seat in seats)
    why = "point at the player to execute"
    # The default is the lowest seat one may point at.
    votes = tuple(Target(seat, "vote", others[seat - 1], optional=False, why=why, forbidden=MappingProxyType(
        {seat: "every player points at another player (allow_self_vote=false)"})) for seat in seats)
    votes_any = tuple(Target(seat, "vote", tuple(seats), optional=False, why=why) for seat in seats)
    return Seating(tuple(map(str, seats)), tuple(frozenset((s,)) for s in seats), others, votes, votes_any)


def seats_of(cards: Sequence[str], role: str) -> list[int]:
    """The seats of ``cards`` (in seat order) that hold ``role``: found by the sequence's own search
    (a box holds at most a few cards of a role, some of which may lie in the centre)."""
    held = cards.count(role)
    if not held:
        return []
    i = cards.index(role)
    if held == 1:
        return [i + 1]
    seats = [i + 1]
    for _ in range(held - 1):
        i = cards.index(role, i + 1)
        seats.append(i + 1)
    return seats


# Where a one-night game takes up again from a checkpoint (``Checkpoint.at``): its day, or step ``at - NIGHT``
# of its night (a checkpoint before each step: a night is most of a one-night game).
DAY: Final = 0
NIGHT: Final = 1


class OneNightTable(Table):
    def __init__(self, ruleset: str, opts: OneNightOptions, seats: Sequence[str], center: Sequence[str],
                 seed: int, rng: random.Random | None = None, in_deck: frozenset[str] | None = None) -> None:
        super().__init__(seed, rng)
        self.ruleset = ruleset
        self.opts = opts
        self.n = len(seats)
        self.seats = range(1, self.n + 1)
        self.seating = seating(self.n)
        self.dealt = tuple(seats)
        self.cards = list(seats)
        self.center = list(center)
        # Every card of the box that is in the game (``in_deck``: the caller knows it already).
        self.in_deck = in_deck if in_deck is not None else frozenset(self.dealt) | frozenset(center)
        # The role each seat acts as at night: its dealt card, or for the
        # doppelganger the role it copied at step B.
        self.acting = list(seats)
        self.copied: str | None = None
        self.dead: list[int] = []  # in order of death
        self.causes: dict[int, str] = {}
        self.stop_after_day: int | None = None
        self.steps: tuple[Step, ...] = ()  # tonight's steps: set by ``OneNightRuleset.new_table``
        self.live_speech = False  # Setup.live_speech: the discussion waits for its speakers

    def copy(self, rng: random.Random) -> OneNightTable:
        other = OneNightTable(self.ruleset, self.opts, self.dealt, self.center, self.seed, rng, self.in_deck)
        self.copy_into(other)
        return other

    def copy_into(self, other: Table) -> None:
        super().copy_into(other)
        assert isinstance(other, OneNightTable)
        other.cards, other.acting, other.copied = list(self.cards), list(self.acting), self.copied
        other.dead, other.causes = list(self.dead), dict(self.causes)
        other.stop_after_day, other.steps, other.live_speech = self.stop_after_day, self.steps, self.live_speech

    # -- seats and cards ---------------------------------------------------------------
    def others(self, seat: int) -> tuple[int, ...]:
        return self.seating.others[seat - 1]

    def acting_as(self, role: str) -> list[int]:
        return seats_of(self.acting, role)

    def dealt_as(self, role: str) -> list[int]:
        return seats_of(self.dealt, role)

    def dawn_role(self, seat: int) -> str:
        """The role a seat plays by: its card at dawn. The doppelganger card is
        the role it copied, whoever holds it now (A-62); never copied, it stays
        a doppelganger (on the village team)."""
        card = self.cards[seat - 1]
        if card == "doppelganger" and self.copied is not None:
            return self.copied
        return card

    def dawn_roles(self) -> list[str]:
        """Every seat's ``dawn_role``, in seat order."""
        copied = self.copied
        if copied is None:
            return self.cards[:]
        return [copied if card == "doppelganger" else card for card in self.cards]

    def roles_by_seat(self) -> dict[int, str]:
        return dict(zip(self.seats, self.dawn_roles()))

    def by_seat(self, values: Iterable[Any]) -> dict[str, Any]:
        """A log field keyed by seat ("1" to "n") from the values in seat order."""
        return dict(zip(self.seating.keys, values))

    def p(self, seat: int) -> SeatInfo:
        return SeatInfo(seat, self.acting[seat - 1], self.dealt[seat - 1], seat not in self.causes,
                        self.causes.get(seat, ""))

    # A swap's cards are for the moderator's log only; the actor is told
    # separately, with exactly what the power lets him see.
    def swap_seats(self, by: int, a: int, b: int) -> None:
        cards = self.cards
        cards[a - 1], cards[b - 1] = cards[b - 1], cards[a - 1]
        self.log("exchange", by=by, role=self.acting[by - 1], seats=[a, b], now=[cards[a - 1], cards[b - 1]])

    def swap_center(self, by: int, seat: int, card: int) -> None:
        cards, center = self.cards, self.center
        cards[seat - 1], center[card - 1] = center[card - 1], cards[seat - 1]
        self.log("exchange", by=by, role=self.acting[by - 1], seat=seat, card=card,
                 now=[cards[seat - 1], center[card - 1]])

    def why_not_asked(self, seat: int, act: str, phase: str) -> str | None:
        """The rule that kept the game from asking ``seat`` for ``act`` (scripted-game errors)."""
        acts_by = {"copy": "doppelganger", "peek": "werewolf", "look": "seer", "rob": "robber",
                   "swap": "troublemaker", "take": "drunk"}
        role = self.acting[seat - 1]
        need = acts_by.get(act)
        if need is not None and phase == "night1":
            if role != need:
                return f"seat {seat} acts as a {role} tonight; only a {need} can {act}"
            if act == "peek":
                if self.ruleset == "onenight":
                    return "in onenight a lone werewolf does not look at the centre cards"
                return "only a lone werewolf may peek at a centre card"
        if act == "vote" and phase != "day1":
            return "the only vote is on day1"
        return None

    # -- events ------------------------------------------------------------------------
    # Straight onto the log, like ``emit`` (a few dozen events a game, on the hot path of simulations).
    # The positional parameters are not named ``seat``/``seats``: the events' own fields are, and a
    # compiled build (mypyc) confuses a positional-only name with a keyword of ``**data``.
    def tell(self, whom: int, type: str, /, **data: Any) -> None:
        """An event for one player's eyes."""
        self.events.append(Event(type, self.phase, data, self.seating.alone[whom - 1]))

    def tell_group(self, group: Iterable[int], type: str, /, **data: Any) -> None:
        """An event for a group that opens its eyes together (the werewolves, the masons)."""
        self.events.append(Event(type, self.phase, data, frozenset(group)))

    def log(self, type: str, /, **data: Any) -> None:
        self.events.append(Event(type, self.phase, data, MODERATOR))

    def say(self, type: str, /, **data: Any) -> None:
        self.events.append(Event(type, self.phase, data, PUBLIC))


# -- decisions ------------------------------------------------------------------------
@cache
def _card_sets(n_center: int, k: int) -> tuple[tuple[int, ...], ...]:
    return tuple(combinations(range(1, n_center + 1), k))


class Look(Decision):
    """The seer: one other player's card (``target``) or ``k`` centre cards (``cards``).

    The value is the seat (an int), the cards (a sorted tuple), or None.
    """

    __slots__ = ("targets", "n_center", "k")

    def __init__(self, seat: int, targets: Sequence[int], n_center: int, k: int) -> None:
        super().__init__(seat, "look", why=_look_why(k))
        self.targets = tuple(targets)
        self.n_center = n_center
        self.k = k

    def check(self, move: Move) -> str | None:
        wrong = wrong_act(self, move)
        if wrong:
            return wrong
        extra = set(move) - {"act", "seat", "target", "cards"}
        if extra:
            return f"unexpected field(s) {', '.join(sorted(extra))}"
        target, cards = move.get("target"), move.get("cards")
        if target is not None and cards is not None:
            return "the seer looks at a player's card or at centre cards, not both"
        if target is not None:
            if isinstance(target, bool) or not isinstance(target, int):
                return f"target must be a seat number, not {target!r}"
            if target == self.seat:
                return "the seer looks at another player's card, not her own"
            if target not in self.targets:
                return f"there is no seat {target}"
            return None
        if cards is None:
            return None
        if not isinstance(cards, (list, tuple)) or not all(
                isinstance(c, int) and not isinstance(c, bool) for c in cards):
            return f"cards must be a list of centre card numbers, not {cards!r}"
        for c in cards:
            if not 1 <= c <= self.n_center:
                return f"there is no centre card {c} ({_centre(self.n_center)})"
        if len(set(cards)) != len(cards):
            return "the seer looks at different centre cards"
        if len(cards) != self.k:
            return f"the seer looks at {_cards(self.k)} in the centre, not {len(cards)}"
        return None

    def value(self, move: Move) -> int | tuple[int, ...] | None:
        target, cards = move.get("target"), move.get("cards")
        if target is not None:
            return int(target)
        if cards is not None:
            return tuple(sorted(cards))
        return None

    def options(self) -> list[Move]:
        out: list[Move] = [{"act": "look", "target": t} for t in self.targets]
        out += [{"act": "look", "cards": list(c)} for c in _card_sets(self.n_center, self.k)]
        out.append({"act": "look", "target": None})
        return out

    def random_value(self, rng: random.Random) -> int | tuple[int, ...] | None:
        sets = _card_sets(self.n_center, self.k)
        i = randbelow(rng, len(self.targets) + len(sets) + 1)
        if i < len(self.targets):
            return self.targets[i]
        i -= len(self.targets)
        return sets[i] if i < len(sets) else None


def _cards(k: int) -> str:
    return "1 card" if k == 1 else f"{k} cards"


@cache
def _look_why(k: int) -> str:
    return f"look at another player's card or at {_cards(k)} in the centre"


def _centre(n: int) -> str:
    return "the only centre card is card 1" if n == 1 else f"the centre cards are 1–{n}"


class OthersPair(Pair):
    """The troublemaker's two seats: two players other than himself."""

    __slots__ = ()

    def check(self, move: Move) -> str | None:
        v = move.get(self.arg)
        if isinstance(v, (list, tuple)) and self.seat in v:
            return "the troublemaker swaps two other players' cards, never his own"
        return super().check(move)


def vote_decisions(t: OneNightTable) -> list[Decision]:
    """Every player's forced vote (A-61): at another player, unless allow_self_vote."""
    return list(t.seating.votes_any if t.opts.allow_self_vote else t.seating.votes)


# -- the roles' powers ------------------------------------------------------------------
# Each takes the seat that acts (whatever card it holds by now) and runs the power.

# A power's question depends only on the seat, the number of players (or centre cards) and the
# options, never on the deal: each is made once and asked again in every game (decisions are immutable).
@cache
def _copy_ask(seat: int, n: int) -> Target:
    return Target(seat, "copy", seating(n).others[seat - 1], optional=False, why="copy another player's role",
                  forbidden={seat: "the doppelganger copies another player's card"})


def copy(t: OneNightTable, seat: int) -> Gen:
    """Doppelganger, step B: look at another player's card and become that role.

    Nobody's card has moved yet, so the card seen is the one dealt.
    """
    (target,) = yield [_copy_ask(seat, t.n)]
    role = t.cards[target - 1]
    t.copied = role
    t.acting[seat - 1] = role
    t.tell(seat, "copy", seat=seat, target=target, role=role)


def werewolves_meet(t: OneNightTable) -> list[int]:
    """Werewolves open their eyes and see each other (a lone wolf sees only itself)."""
    wolves = t.acting_as("werewolf")
    if wolves:
        t.tell_group(wolves, "wolves", seats=wolves)
    return wolves


@cache
def _peek_ask(seat: int, n_center: int) -> Choice:
    return Choice(seat, "peek", "card", range(1, n_center + 1), optional=True,
                  why="you are the only werewolf: you may view one centre card")


def peek(t: OneNightTable, seat: int) -> Gen:
    """ONUW lone werewolf: may view one centre card."""
    (card,) = yield [_peek_ask(seat, len(t.center))]
    if card is not None:
        t.tell(seat, "peek", seat=seat, card=card, role=t.center[card - 1])


def thumbs(t: OneNightTable, seat: int) -> None:
    """Minion: the werewolves raise their thumbs (those who woke as werewolves,
    a doppel-werewolf included); the wolves do not learn who the minion is."""
    t.tell(seat, "thumbs", seat=seat, wolves=t.acting_as("werewolf"))


def masons_meet(t: OneNightTable) -> None:
    masons = t.acting_as("mason")
    if masons:
        t.tell_group(masons, "masons", seats=masons)


@cache
def _look_ask(seat: int, n: int, n_center: int, k: int) -> Look:
    return Look(seat, seating(n).others[seat - 1], n_center, k)


def look(t: OneNightTable, seat: int, k: int) -> Gen:
    """Seer: one other player's card, or ``k`` centre cards; sees the cards' faces."""
    (v,) = yield [_look_ask(seat, t.n, len(t.center), k)]
    if isinstance(v, int):
        t.tell(seat, "check", seat=seat, target=v, role=t.cards[v - 1])
    elif v is not None:
        t.tell(seat, "check", seat=seat, cards=list(v), roles=[t.center[i - 1] for i in v])


@cache
def _rob_ask(seat: int, n: int, optional: bool) -> Target:
    return Target(seat, "rob", seating(n).others[seat - 1], optional=optional,
                  why="swap your card with another player's and view your new card",
                  forbidden={seat: "the robber swaps with another player"})


def rob(t: OneNightTable, seat: int) -> Gen:
    """Robber: swap own card with another player's (never the centre), then view the new card."""
    (target,) = yield [_rob_ask(seat, t.n, t.opts.robber_optional)]
    if target is None:
        return
    t.swap_seats(seat, seat, target)
    t.tell(seat, "rob", seat=seat, target=target, role=t.cards[seat - 1])


@cache
def _swap_ask(seat: int, n: int, optional: bool) -> OthersPair:
    return OthersPair(seat, "swap", seating(n).others[seat - 1], optional=optional,
                      why="swap two other players' cards (you do not see them)")


def trouble(t: OneNightTable, seat: int) -> Gen:
    """Troublemaker: swap two other players' cards without looking at them."""
    (pair,) = yield [_swap_ask(seat, t.n, t.opts.troublemaker_optional)]
    if pair is None:
        return
    a, b = pair
    t.swap_seats(seat, a, b)
    t.tell(seat, "swap", seat=seat, targets=[a, b])


@cache
def _take_ask(seat: int, n_center: int, optional: bool) -> Choice:
    return Choice(seat, "take", "card", range(1, n_center + 1), optional=optional,
                  why="swap your card with a centre card (you do not see it)")


def drink(t: OneNightTable, seat: int) -> Gen:
    """Drunk: swap own card with a centre card without looking (mandatory by default, P A-60)."""
    (card,) = yield [_take_ask(seat, len(t.center), not t.opts.drunk_must_swap)]
    if card is None:
        return
    t.swap_center(seat, seat, card)
    t.tell(seat, "take", seat=seat, card=card)


def wake_up(t: OneNightTable, seat: int) -> None:
    """Insomniac: view own card at the end of the night."""
    t.tell(seat, "own_card", seat=seat, role=t.cards[seat - 1])


# -- the ruleset ----------------------------------------------------------------------
class Plan(NamedTuple):
    """What a deck means for a game, whatever the deal: checked once per deck."""

    custom: bool  # not the rule book's deck for this many players
    in_deck: frozenset[str]
    steps: tuple[Step, ...]  # the night order's steps this deck holds


class Dealt(NamedTuple):
    """A deck to deal: its cards, the number of players and its plan."""

    cards: tuple[str, ...]
    players: int
    plan: Plan


class Step(NamedTuple):
    """One line of a night-order table: announced when the deck holds ``role`` (and ``needs``).

    Most steps are a ``power`` that each seat dealt ``role`` uses; the others ``run`` the whole
    step. Either returns the generator of what it asks, or None when it asks nobody (no generator
    to step through: games are played by the million).
    """

    code: str
    role: str
    run: Callable[[OneNightTable], Gen | None] | None = None
    power: Callable[[OneNightTable, int], Gen | None] | None = None
    needs: tuple[str, ...] = ()
    # A doppelganger's later step: it acts only if it copied this role, but the
    # step is called whatever it copied, so that nobody learns the copy.
    copied: str = ""


@dataclass(frozen=True)
class OneNightRuleset:
    name: str
    box: Mapping[str, int]  # every card of the box: how many of each
    min_players: int
    max_players: int
    center_size: Callable[[int], int]
    standard_deck: Callable[[int], tuple[str, ...]]
    night_order: tuple[Step, ...]
    deck_rules: Callable[[Counter[str]], None]  # raises SetupError for a deck the rules cannot play
    spared: Callable[[dict[int, int], int], bool]  # the tally executes nobody
    winners: Callable[[OneNightTable], Result]
    default_players: int
    # Fixed data of the ruleset, filled at first use. Plain fields set in __post_init__, not
    # cached_property: a compiled build (mypyc) gives the class no __dict__.
    _deck_ids: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    _book_counts: dict[int, Counter[str]] = field(init=False, repr=False, compare=False)
    # Each deck already dealt and found playable, by the setup's (deck, players): a deal only
    # orders the cards, so a deck's checks and night steps are the same for every deal.
    _dealt_decks: dict[tuple[Any, ...], Dealt] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("_deck_ids", "_book_counts", "_dealt_decks"):
            object.__setattr__(self, name, {})  # frozen: the caches are set once, then filled in place

    def decks(self) -> dict[str, tuple[str, ...]]:
        return dict(self.deck_ids())

    def deck_ids(self) -> dict[str, tuple[str, ...]]:
        if not self._deck_ids:
            self._deck_ids.update({f"{self.name}{n}": self.standard_deck(n)
                                   for n in range(self.min_players, self.max_players + 1)})
        return self._deck_ids

    def book_counts(self, n: int) -> Counter[str]:
        if not self._book_counts:
            self._book_counts.update({k: Counter(self.standard_deck(k))
                                      for k in range(self.min_players, self.max_players + 1)})
        return self._book_counts[n]

    def dealt_deck(self, deck: str | Sequence[str] | None, players: int | None) -> Dealt:
        """The cards to deal and their plan, checked at the deck's first deal (the checks read only
        which cards there are, which a deal does not change)."""
        # By the players' type too: 5.0 players is no count of players, though it hashes as 5.
        key: tuple[Any, ...] | None = (deck, players, type(players))
        try:
            dealt = self._dealt_decks.get(key)  # type: ignore[arg-type]
        except TypeError:  # something unhashable in the deck: check_deck says what
            dealt, key = None, None
        if dealt is None:
            cards, n = self.resolve_deck(deck, players)
            custom = self.check_deck(list(cards[:n]), list(cards[n:]))  # first: it refuses what is no card
            dealt = Dealt(cards, n, self.plan(frozenset(cards), custom))
            if key is not None:
                if len(self._dealt_decks) >= 1024:  # custom decks of a long-running server: keep it small
                    self._dealt_decks.clear()
                self._dealt_decks[key] = dealt
        return dealt

    def plan(self, in_deck: frozenset[str], custom: bool) -> Plan:
        return Plan(custom, in_deck, tuple(
            step for step in self.night_order
            # A step the deck holds is always called, held by a player or not (a phantom step).
            if step.role in in_deck and all(r in in_deck for r in step.needs)))

    # -- setup -------------------------------------------------------------------------
    def new_table(self, setup: Setup) -> OneNightTable:
        opts: OneNightOptions = make_options(self.name, setup.options)
        if opts.discussion_seconds is not None and opts.discussion_seconds <= 0:
            raise SetupError("discussion_seconds must be a positive number of seconds, or null for no limit")
        rng = random.Random(setup.seed)
        if setup.seats is not None:
            seats, center = list(setup.seats), list(setup.center)
            custom = self.check_deck(seats, center)
            plan = self.plan(frozenset(seats) | frozenset(center), custom)
        else:
            deck, n, plan = self.dealt_deck(setup.deck, setup.players)
            cards = list(deck)
            shuffle(rng, cards)
            seats, center = cards[:n], cards[n:]
        # One stream: the deal drew first.
        t = OneNightTable(self.name, opts, seats, center, setup.seed, rng, in_deck=plan.in_deck)
        t.custom_deck = plan.custom
        t.steps = plan.steps
        t.stop_after_day = setup.stop_after_day
        t.live_speech = setup.live_speech
        return t

    def resolve_deck(self, deck: str | Sequence[str] | None, n: int | None) -> tuple[tuple[str, ...], int]:
        if deck is None:
            n = self.default_players if n is None else n
            self.check_players(n)
            return self.standard_deck(n), n
        if isinstance(deck, str):
            m = deck[len(self.name):] if deck.startswith(self.name) else ""
            if not m.isdigit() or deck not in self.deck_ids():
                raise SetupError(f"unknown deck {deck!r} for {self.name} (see `werewolf decks`)")
            if n is not None and n != int(m):
                raise SetupError(f"deck {deck!r} is for {m} players, not {n}")
            return self.deck_ids()[deck], int(m)
        deck = tuple(deck)
        if n is None:  # the fewest players this many cards can serve
            n = next((k for k in range(self.min_players, self.max_players + 1)
                      if k + self.center_size(k) == len(deck)), 0)
            if n == 0:
                raise SetupError(f"a {self.name} deck of {len(deck)} cards fits no player count")
        return deck, n

    def check_players(self, n: int) -> None:
        if not self.min_players <= n <= self.max_players:
            raise SetupError(f"{self.name} is played by {self.min_players}–{self.max_players} players, not {n}")

    def check_cards(self, cards: Sequence[Any]) -> None:  # a deck as given: not yet known to hold names
        for r in cards:
            if not isinstance(r, str) or r not in ROLES:
                raise SetupError(f"unknown role {r!r}")
            if r not in self.box:
                raise SetupError(f"role {r!r} is not part of the {self.name} ruleset "
                                 f"(its cards: {', '.join(self.box)})")

    def check_deck(self, seats: list[str], center: list[str]) -> bool:
        """RULES.md §5.0: refuse what the rules cannot play; return whether the deck is custom."""
        self.check_cards(seats + center)
        n = len(seats)
        self.check_players(n)
        want = self.center_size(n)
        if len(center) != want:
            raise SetupError(f"{self.name}: {n} players play with {n + want} cards, {_cards(want)} in the centre "
                             f"(this deck has {len(center)} centre cards)")
        counts = Counter(seats + center)
        for r, c in counts.items():
            if c > self.box[r]:
                raise SetupError(f"the {self.name} box holds {self.box[r]} {r} card{'s' if self.box[r] > 1 else ''}, "
                                 f"this deck has {c}")
        if not counts["werewolf"] + counts["minion"]:
            raise SetupError("the deck has no werewolf-team card")
        self.deck_rules(counts)
        return counts != self.book_counts(n)

    # -- the game ----------------------------------------------------------------------
    def play(self, table: Any) -> Flow:
        t: OneNightTable = table
        t.say("game_start", ruleset=t.ruleset, players=t.n, center=len(t.center), custom_deck=t.custom_deck,
              options=dict(played_with(t.ruleset, t.opts)))  # the table's options (other than the ruleset's)
        t.log("deal", seats=t.by_seat(t.dealt), center=list(t.center))
        for s, role in zip(t.seats, t.dealt):
            t.tell(s, "role", seat=s, role=role)
        t.phase = "night1"
        t.say("night", number=1)
        t.boundary(NIGHT)
        return self.night_and_day(t, NIGHT)

    def resume(self, checkpoint: Checkpoint) -> tuple[OneNightTable, Flow]:
        """A new table and flow that take up the game at ``checkpoint`` (the night, or the day)."""
        t = checkpoint.table.copy(checkpoint.rng())
        assert isinstance(t, OneNightTable)
        return t, self.night_and_day(t, checkpoint.at)

    def night_and_day(self, t: OneNightTable, at: int) -> Gen:
        """The night from its step ``at - NIGHT``, then the day; or (``at`` DAY) the day only."""
        if at != DAY:
            first = at - NIGHT
            for i in range(first, len(t.steps)):  # the steps the deck holds (``plan``)
                step = t.steps[i]
                if t.keep_checkpoints and i != first:  # (checked here: simulations pay no call a step)
                    t.boundary(NIGHT + i)
                if step.copied:
                    t.say("step", step=step.code, role=step.role, copied=step.copied)
                else:
                    t.say("step", step=step.code, role=step.role)
                if step.power is not None:
                    for s in t.dealt_as(step.role):
                        act = step.power(t, s)
                        if act is not None:
                            yield from act
                elif step.run is not None:
                    act = step.run(t)
                    if act is not None:
                        yield from act
            t.log("dawn", seats=t.by_seat(t.cards), center=list(t.center), copied=t.copied)
            if t.stop_after_day is not None and t.stop_after_day < 1:
                t.stopped = True
                t.say("stopped")
                return
            t.boundary(DAY)
        yield from self.day(t)

    def day(self, t: OneNightTable) -> Gen:
        t.phase = "day1"
        t.say("day", number=1)
        # The timed discussion: the clock is the front end's; nobody may show or view a card.
        t.say("discussion", seconds=t.opts.discussion_seconds)
        # Live play: everyone talks freely within the clock, as at a real table. Every seat has a turn open
        # at once; a statement is said when it is sent (``Speak.heard_at_once``) and its seat is asked again
        # at once (to reply, or to say it is ready), while the others' turns stay open (the same decisions).
        # A turn without text (ready to vote, a pass, or declined: the front end does so when the time is
        # up) ends that seat's talk; the vote comes once every seat's talk has ended. (Any order of answers
        # the earlier rounds allowed, each speaker waiting for the round's end, is played the same way.)
        turns: list[Decision] = [Speak(s, "discussion") for s in t.seats] if t.live_speech else []
        while turns:
            texts = yield turns
            again: list[Decision] = []
            for d, text in zip(turns, texts):
                if text is not OPEN and text:
                    t.say("speech", seat=d.seat, part="discussion", text=text)
                    again.append(Speak(d.seat, "discussion"))
            turns = sorted([d for d, text in zip(turns, texts) if text is OPEN] + again, key=lambda d: d.seat)
        ballots = yield vote_decisions(t)
        tally: dict[int, int] = {}  # in seat order
        for b in sorted(ballots):
            tally[b] = tally.get(b, 0) + 1
        t.say("votes", ballots=t.by_seat(ballots), tally=dict(zip(map(str, tally), tally.values())))
        top = max(tally.values())
        spared = self.spared(tally, t.n)
        executed = [] if spared else [s for s, c in tally.items() if c == top]
        rules = EXILE_RULES[t.ruleset]
        if not executed:
            t.say("exile", seat=None, rule=rules[0])
        for s in executed:  # one line per executed player (all tied players die)
            t.say("exile", seat=s, rule=rules[1] if len(executed) > 1 else rules[2])
        for s in executed:
            self.die(t, s, "exile")
        if "hunter" in t.in_deck:  # a doppel-hunter too copied the deck's hunter card
            self.hunters_shoot(t, ballots)
        teams, seats = self.winners(t)
        t.result = (teams, seats)
        t.say("game_over", teams=teams, seats=seats, rule=WIN_RULES[t.ruleset])
        t.say("roles", roles=t.by_seat(t.cards), center=list(t.center), dealt=t.by_seat(t.dealt), copied=t.copied,
              teams=t.by_seat(map(TEAM.__getitem__, t.dawn_roles())))

    def hunters_shoot(self, t: OneNightTable, ballots: Sequence[int]) -> None:
        """A dead hunter (by his dawn card) takes the player he voted for; this
        chains through a second hunter (a doppel-hunter)."""
        i = 0
        while i < len(t.dead):
            s = t.dead[i]
            if t.dawn_role(s) == "hunter":
                target = ballots[s - 1]
                if target not in t.causes:
                    self.die(t, target, "shot", by=s)
            i += 1

    @staticmethod
    def die(t: OneNightTable, seat: int, cause: str, by: int | None = None) -> None:
        t.dead.append(seat)
        t.causes[seat] = cause
        if by is None:
            t.say("death", seat=seat, cause=cause, rule=EXILE_RULES[t.ruleset][3])
        else:
            t.say("death", seat=seat, cause=cause, by=by, rule="onenight_hunter_takes_vote")


# Per ruleset, the rules of the day's vote: (nobody dies, the tied all die, the most votes dies, an exile's death).
EXILE_RULES: Final = {
    "onuw": ("onuw_no_one_dies", "onuw_tied_all_die", "onuw_most_votes_dies", "onuw_exile_death"),
    "onenight": ("onenight_no_one_dies", "onenight_tied_all_die", "onenight_most_votes_dies", "onenight_exile_death"),
}
# Per ruleset, the win conditions that decided the game (the ``rule`` of ``game_over``).
WIN_RULES: Final = {"onuw": "onuw_win_conditions", "onenight": "onenight_win_conditions"}

# The log's team of a dawn role: the minion is on the wolves' team; every role not named is "village".
TEAMS = {"werewolf": "wolves", "minion": "wolves", "tanner": "tanner"}
TEAM = {role: TEAMS.get(role, "village") for role in ROLES}  # every role's, looked up without a default


def top_one_spares(tally: dict[int, int], n: int) -> bool:
    """ONUW: when the most votes anyone has is 1, nobody is executed."""
    return max(tally.values()) == 1


def one_each_spares(tally: dict[int, int], n: int) -> bool:
    """Onenight: when every player got exactly one vote, nobody is executed."""
    return len(tally) == n and all(c == 1 for c in tally.values())
