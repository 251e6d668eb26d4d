"""A day-and-night ruleset: its roles, decks, night order, and the deal."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from werewolf.core.draws import shuffle
from werewolf.core.errors import SetupError
from werewolf.core.game import Flow, Setup
from werewolf.core.table import Checkpoint
from werewolf.roles import ROLES
from werewolf.rulesets.daynight.moderator import Moderator
from werewolf.rulesets.daynight.night import Step
from werewolf.rulesets.daynight.state import DayNightTable
from werewolf.rulesets.options import TIE_CONDITIONS, DayNightOptions, make_options

# A deck ready to deal: its cards, whether it is custom (not the book's), the options it is played with.
Prepared = tuple[tuple[str, ...], bool, DayNightOptions]

# Roles the box holds more than one of; every other role is unique.
MULTI = frozenset({"werewolf", "villager"})

# The thief's bottom cards (option ``thief_bottom_rule``, RULES.md §2.1 thief): the pairs each rule forbids.
# 000 狼王盜丘: 「狼人,狼人」「狼王,狼人」「盜賊,狼王」「盜賊,狼人」; 001: not 「一盜賊一狼」, never 「兩狼」 (checked
# by faction in ``check_bottom``); 002 「不為盜賊的卡牌」: the thief is never buried (also in ``check_bottom``).
FORBIDDEN_BOTTOMS: dict[str, frozenset[frozenset[str]]] = {
    "classic_pairs": frozenset(frozenset(p) for p in (
        ("werewolf",), ("wolf_king", "werewolf"), ("thief", "wolf_king"), ("thief", "werewolf"))),
    "ff_pairs": frozenset(frozenset(p) for p in (("werewolf",), ("thief", "werewolf"))),
    "no_thief_in_bottom": frozenset(),
}


@dataclass
class DayNightRuleset:
    name: str
    roles: frozenset[str]
    night_order: Sequence[Step]
    deck_table: Mapping[str, tuple[str, ...]]
    standard_deck: Callable[[int], tuple[str, ...]]
    min_players: int
    max_players: int
    moderator: type[Moderator] = Moderator
    table: type[DayNightTable] = DayNightTable
    seat_limit: int = 18  # custom decks: the most players the box has number cards for
    # The most cards of a repeated role the box holds (classic: 6 werewolves, 6 villagers); None: no box.
    box: Mapping[str, int] | None = None
    # Fixed data of the ruleset, worked out at first use. Plain fields set in __post_init__, not
    # cached_property: a compiled build (mypyc) gives the class no __dict__.
    _deck_ids: dict[str, tuple[str, ...]] | None = field(init=False, repr=False, compare=False)
    _book: set[tuple[str, ...]] | None = field(init=False, repr=False, compare=False)
    # ``prepared`` decks by (deck, id of the options they were prepared with).
    _prepared: dict[tuple[tuple[str, ...], int], tuple[DayNightOptions, Prepared]] = field(
        init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._deck_ids = None
        self._book = None
        self._prepared = {}

    def decks(self) -> dict[str, tuple[str, ...]]:
        out = {f"{self.name}{n}": self.standard_deck(n) for n in range(self.min_players, self.max_players + 1)}
        out.update(self.deck_table)
        return out

    def deck_ids(self) -> dict[str, tuple[str, ...]]:
        """``decks()`` built once: the deck ids are fixed data of the ruleset."""
        if self._deck_ids is None:
            self._deck_ids = self.decks()
        return self._deck_ids

    def new_table(self, setup: Setup) -> DayNightTable:
        opts: DayNightOptions = make_options(self.name, setup.options)
        rng = random.Random(setup.seed)
        if setup.seats is not None:
            seats, center = list(setup.seats), list(setup.center)
            self.check_deck(seats + center, opts, dealt=(seats, center))
            custom = not self.is_book_deck(seats + center)
            opts = self.adjust_options(opts, seats + center, setup.options)
        else:
            deck, custom, played_as = self.prepared(self.resolve_deck(setup), opts, setup.options)
            seats, center = self.deal(list(deck), opts, rng)
            opts = played_as
        t = self.table(self.name, opts, seats, center, setup.seed, rng)  # the deal drew first
        t.custom_deck = custom
        t.stop_after_day = setup.stop_after_day
        t.live_speech = setup.live_speech
        return t

    def prepared(self, deck: tuple[str, ...], opts: DayNightOptions, overrides: Mapping[str, Any] | None
                 ) -> Prepared:
        """A deck to deal: checked, known as the book's or custom, and the options it is played with.

        None of it depends on the deal (only on which cards the deck holds), so each
        deck and option set is prepared once: simulations deal the same deck millions of times.
        """
        cache = self._prepared
        key = (deck, id(opts))  # the entry holds ``opts``: its id cannot be reused while cached
        hit = cache.get(key)
        if hit is not None and hit[0] is opts:
            return hit[1]
        self.check_deck(list(deck), opts)
        ready = (deck, not self.is_book_deck(list(deck)), self.adjust_options(opts, list(deck), overrides))
        if len(cache) >= 256:
            cache.clear()
        cache[key] = (opts, ready)
        return ready

    def adjust_options(self, opts: DayNightOptions, deck: list[str],
                       overrides: Mapping[str, Any] | None) -> DayNightOptions:
        """Hook: a ruleset derives options from the deck (facetoface presets)."""
        self.check_tie_priority(opts, deck)
        return opts

    def check_tie_priority(self, opts: DayNightOptions, deck: list[str]) -> None:
        """Every win the deck can bring about has its place in ``tie_priority`` (RULES.md §0.6), or it would be lost.

        (Unknown or repeated conditions are refused with the option itself, ``options.TIE_CONDITIONS``.)
        """
        order = opts.tie_priority
        needed = ["wolf", "good"] + [c for c, role in (("lovers", "cupid"), ("bomber", "bomber")) if role in deck]
        if any(c not in order for c in needed):
            raise SetupError(f"tie_priority {list(order)} must order the wins {', '.join(needed)} of this deck, "
                             f"each once (known: {', '.join(TIE_CONDITIONS)})")

    def play(self, table: Any) -> Flow:
        return self.moderator(table, self.night_order, table.stop_after_day).play()

    def resume(self, checkpoint: Checkpoint) -> tuple[DayNightTable, Flow]:
        """A new table and flow that take up the game at ``checkpoint`` (``Moderator.boundary``)."""
        t = checkpoint.table.copy(checkpoint.rng())
        assert isinstance(t, DayNightTable)
        return t, self.moderator(t, self.night_order, t.stop_after_day).resume(checkpoint.at, checkpoint.state)

    # -- decks ------------------------------------------------------------------
    def resolve_deck(self, setup: Setup) -> tuple[str, ...]:
        deck = setup.deck
        if deck is None:
            n = setup.players or 12
            if not self.min_players <= n <= self.max_players:
                raise SetupError(f"{self.name} has standard decks for {self.min_players}–{self.max_players} players")
            return self.standard_deck(n)
        if isinstance(deck, str):
            decks = self.deck_ids()
            if deck not in decks:
                raise SetupError(f"unknown deck {deck!r} for {self.name} (see `werewolf decks`)")
            return decks[deck]
        return tuple(deck)

    def is_book_deck(self, cards: list[str]) -> bool:
        if self._book is None:
            self._book = {tuple(sorted(d)) for d in self.decks().values()}
        return tuple(sorted(cards)) in self._book

    def check_deck(self, cards: list[str], opts: DayNightOptions,
                   dealt: tuple[list[str], list[str]] | None = None) -> None:
        for r in cards:
            if not isinstance(r, str) or r not in ROLES:
                raise SetupError(f"unknown role {r!r}")
            if r not in self.roles:
                raise SetupError(f"role {r!r} is not part of the {self.name} ruleset")
        counts = Counter(cards)
        for r, c in counts.items():
            if c > 1 and not self.may_repeat(r):
                raise SetupError(f"the deck holds {c} {r} cards; there is only one")
        if self.box is not None:
            # The thief's two bottom cards come out of the same box (「從此14張卡牌中抽出2張」).
            for r, most in self.box.items():
                if counts[r] > most:
                    raise SetupError(f"the {self.name} box holds at most {most} {r} cards; the deck has "
                                     f"{counts[r]}" + (" (centre cards included)" if "thief" in counts else ""))
        has_thief = "thief" in counts
        n_center = 2 if has_thief else 0
        players = len(cards) - n_center
        if dealt is not None:
            seats, center = dealt
            if len(center) != n_center:
                raise SetupError("a deck with the thief needs exactly two center cards" if has_thief
                                 else "this deck has no center cards (only the thief's two bottom cards go there)")
            self.check_bottom(center, opts)
        if players < 2:
            raise SetupError("a game needs at least two players")
        if players > self.seat_limit:
            raise SetupError(f"{self.name} seats at most {self.seat_limit} players")
        wolves = [r for r in cards if ROLES[r].faction == "wolf"]
        if not wolves:
            raise SetupError("the deck has no wolf")
        if len(wolves) >= len(cards):
            raise SetupError("the deck has only wolves")

    def may_repeat(self, role: str) -> bool:
        """Whether a deck may hold several cards of ``role``: werewolves and villagers."""
        return role in MULTI

    def check_bottom(self, center: list[str], opts: DayNightOptions) -> None:
        """The thief's bottom cards obey ``thief_bottom_rule`` (every ruleset with a thief)."""
        rule = opts.thief_bottom_rule
        if not center:
            return
        if frozenset(center) in FORBIDDEN_BOTTOMS[rule] or (
                rule == "ff_pairs" and sum(ROLES[c].faction == "wolf" for c in center) == 2):
            raise SetupError(f"the thief's bottom cards may not be {' + '.join(center)} "
                             f"(thief_bottom_rule={rule})")
        if rule == "no_thief_in_bottom" and "thief" in center:
            raise SetupError(f"the thief is never buried (thief_bottom_rule={rule})")

    def deal(self, deck: list[str], opts: DayNightOptions, rng: random.Random) -> tuple[list[str], list[str]]:
        if "thief" not in deck:
            shuffle(rng, deck)
            return deck, []
        if opts.thief_bottom_rule == "no_thief_in_bottom":
            # 「應從牌堆中隨機抽取兩張不為盜賊的卡牌」: two bottom cards from the rest, then deal with the thief.
            rest = list(deck)
            rest.remove("thief")
            shuffle(rng, rest)
            bottom, dealt = rest[:2], rest[2:] + ["thief"]
            shuffle(rng, dealt)
            return dealt, bottom
        # The pair rules: shuffle until the bottom pair is allowed (RULES.md §2.1 thief).
        while True:
            shuffle(rng, deck)
            bottom, rest = deck[:2], deck[2:]
            try:
                self.check_bottom(bottom, opts)
            except SetupError:
                continue
            return rest, bottom
