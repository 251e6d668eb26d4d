"""The one-night rulesets (onuw, onenight): random games, replays, information, setup.

The scripted games in tests/scripts/onuw and tests/scripts/onenight settle the
rulings; this file checks what a script's expect block cannot: every deck
plays to an end, games replay exactly, and no player is ever shown a card
they did not look at.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from werewolf import script as sg
from werewolf.agents import RandomAgent, play
from werewolf.core.errors import SetupError
from werewolf.core.events import MODERATOR, Event
from werewolf.core.game import Game, Setup
from werewolf.core.views import visible_events
from werewolf.rulesets import get_ruleset
from werewolf.rulesets.onenight_common import Look, OneNightTable, seats_of

DECKS = [(rs, deck) for rs in ("onuw", "onenight") for deck in get_ruleset(rs).decks()]
GAMES_PER_DECK = 150

# Extra decks that exercise every onuw role, the doppelganger above all.
CUSTOM = [
    ("onuw", ("doppelganger", "werewolf", "werewolf", "minion", "mason", "mason", "seer", "robber",
              "troublemaker", "drunk", "insomniac", "villager", "tanner")),
    ("onuw", ("doppelganger", "werewolf", "minion", "seer", "robber", "troublemaker", "drunk", "insomniac",
              "hunter", "tanner")),
    ("onuw", ("doppelganger", "werewolf", "mason", "mason", "hunter", "villager")),
]
ALL = DECKS + CUSTOM


def random_game(ruleset: str, deck: str | tuple[str, ...], seed: int) -> Game:
    game = Game(Setup(ruleset, deck=deck, seed=seed))
    return play(game, {}, RandomAgent(seed * 7919 + 1))


def ids(case: tuple[str, Any]) -> str:
    rs, deck = case
    return deck if isinstance(deck, str) else f"{rs}-custom{len(deck)}"


# -- every deck plays to an end and replays exactly ----------------------------------------
@pytest.mark.parametrize("case", ALL, ids=ids)
def test_random_games_end_and_replay(case: tuple[str, Any]) -> None:
    rs, deck = case
    for seed in range(GAMES_PER_DECK):
        game = random_game(rs, deck, seed)
        assert game.over and game.result is not None
        types = [e.type for e in game.events]
        assert types[-2:] == ["game_over", "roles"]
        assert types.count("night") == 1 and types.count("day") == 1
        teams, seats = game.result
        assert set(teams) <= {"village", "wolves", "tanner"} and seats == sorted(set(seats))
        again = Game.replay(game.setup, game.answers)
        assert again.events == game.events


@pytest.mark.parametrize("rs", ["onuw", "onenight"])
def test_deck_sizes(rs: str) -> None:
    rules = get_ruleset(rs)
    for deck_id, deck in rules.decks().items():
        n = int(deck_id[len(rs):])
        assert len(deck) == (n + 3 if rs == "onuw" else min(n + 2, 8))
        game = Game(Setup(rs, deck=deck_id, seed=n))
        table = game.table
        assert isinstance(table, OneNightTable)
        assert table.n == n and Counter(table.dealt + tuple(table.center)) == Counter(deck)
        assert not table.custom_deck


# -- information ------------------------------------------------------------------------------
CARD_EVENTS = {"role", "copy", "peek", "check", "rob", "own_card"}
# Who may see a card, by the role the seat acts as tonight.
SHOWN_TO = {"copy": "doppelganger", "peek": "werewolf", "check": "seer", "rob": "robber", "own_card": "insomniac"}


def check_information(events: list[Event]) -> None:
    """Replay the card movements from the moderator's log and check each event that a
    player sees: a card is only ever shown to the one player who looked at it, at the
    moment of looking, and it is the card that lay there then."""
    seats: dict[int, str] = {}
    center: list[str] = []
    dealt: dict[int, str] = {}
    acting: dict[int, str] = {}
    deck: set[str] = set()
    for e in events:
        d = e.data
        if e.type == "game_over":
            break
        if e.type == "deal":
            seats = {int(s): r for s, r in d["seats"].items()}
            center = list(d["center"])
            dealt, acting, deck = dict(seats), dict(seats), set(seats.values()) | set(center)
            continue
        if e.type == "exchange":
            assert e.to == MODERATOR
            if "seats" in d:
                a, b = d["seats"]
                seats[a], seats[b] = seats[b], seats[a]
                assert d["now"] == [seats[a], seats[b]]
            else:
                s, c = d["seat"], d["card"]
                seats[s], center[c - 1] = center[c - 1], seats[s]
                assert d["now"] == [seats[s], center[c - 1]]
            continue
        if e.to == MODERATOR:
            continue
        if e.type in CARD_EVENTS:
            seat = d["seat"]
            assert e.to == frozenset({seat}), e  # a card is shown to the one who looks, only
            if e.type == "role":
                assert d["role"] == dealt[seat]
                continue
            assert acting[seat] == SHOWN_TO[e.type], e
            if e.type == "copy":
                assert d["role"] == seats[d["target"]]
                acting[seat] = d["role"]
            elif e.type == "peek":
                assert d["role"] == center[d["card"] - 1]
                assert [s for s, r in acting.items() if r == "werewolf"] == [seat]  # a lone wolf
            elif e.type == "check":
                if "target" in d:
                    assert d["target"] != seat and d["role"] == seats[d["target"]]
                else:
                    assert d["roles"] == [center[c - 1] for c in d["cards"]]
            else:  # rob, own_card: the seat's own card now
                assert d["role"] == seats[seat]
            continue
        # Everything else a player sees names seats, never cards.
        if e.type == "step":
            assert d["role"] in deck  # the step is called by the deck, not by who holds what
        else:
            assert not {"role", "roles", "cards", "now"} & set(d), e
        if e.type in ("wolves", "masons"):
            role = "werewolf" if e.type == "wolves" else "mason"
            assert e.to == frozenset(d["seats"]) == {s for s, r in acting.items() if r == role}
        if e.type == "thumbs":
            assert acting[d["seat"]] == "minion" and e.to == frozenset({d["seat"]})
            assert d["wolves"] == [s for s, r in sorted(acting.items()) if r == "werewolf"]
    # The final reveal is the cards as tracked.
    roles = next(e for e in events if e.type == "roles").data
    assert {int(s): r for s, r in roles["roles"].items()} == seats and roles["center"] == center


@pytest.mark.parametrize("case", ALL, ids=ids)
def test_no_player_sees_a_card_they_never_saw(case: tuple[str, Any]) -> None:
    rs, deck = case
    for seed in range(GAMES_PER_DECK):
        game = random_game(rs, deck, seed)
        check_information(game.events)
        # A player's own view holds only cards shown to that seat.
        assert isinstance(game.table, OneNightTable)
        for seat in game.table.seats:
            for e in visible_events(game.events, seat):
                if e.type == "game_over":
                    break
                if e.type in CARD_EVENTS:
                    assert e.data["seat"] == seat


@pytest.mark.parametrize("case", ALL, ids=ids)
def test_public_night_is_the_same_whoever_holds_what(case: tuple[str, Any]) -> None:
    """Phantom steps: what everyone sees of the night depends on the deck only."""
    rs, deck = case
    seen = set()
    for seed in range(40):
        game = random_game(rs, deck, seed)
        night = tuple((e.type, tuple(sorted(e.data.items()))) for e in game.events
                      if e.phase == "night1" and e.to is None)
        seen.add(night)
    assert len(seen) == 1


# -- scripted nights: the events a script's expect block cannot name ---------------------------
def run(doc: dict[str, Any]) -> list[Event]:
    out = sg.run(sg.parse(doc))
    assert out.error is None, out.error
    return out.events


def private(events: list[Event], type: str) -> list[tuple[list[int], dict[str, Any]]]:
    return [(sorted(e.to), e.data) for e in events if e.type == type and e.to is not None]


def game(seats: list[str], center: list[str], night: list[dict[str, Any]], ruleset: str = "onuw",
         **options: Any) -> list[Event]:
    return run({"ruleset": ruleset, "seats": seats, "center": center, "options": options,
                "moves": {"night1": night}})


def test_doppel_minion_sees_thumbs_at_step_b() -> None:
    ev = game(["doppelganger", "minion", "werewolf", "villager"], ["werewolf", "seer", "robber"],
              [{"seat": 1, "act": "copy", "target": 2}])
    assert private(ev, "thumbs") == [([1], {"seat": 1, "wolves": [3]}), ([2], {"seat": 2, "wolves": [3]})]
    first = next(i for i, e in enumerate(ev) if e.type == "thumbs")
    steps = [e.data["step"] for e in ev[:first] if e.type == "step"]
    assert steps == ["B"]  # before the werewolves wake


def test_minion_sees_doppel_werewolf_thumb() -> None:
    ev = game(["doppelganger", "minion", "werewolf", "villager"], ["werewolf", "seer", "robber"],
              [{"seat": 1, "act": "copy", "target": 3}])
    assert private(ev, "wolves") == [([1, 3], {"seats": [1, 3]})]
    assert private(ev, "thumbs") == [([2], {"seat": 2, "wolves": [1, 3]})]


def test_doppel_mason_joins_masons() -> None:
    ev = game(["doppelganger", "mason", "werewolf", "villager"], ["mason", "seer", "robber"],
              [{"seat": 1, "act": "copy", "target": 2}])
    assert private(ev, "masons") == [([1, 2], {"seats": [1, 2]})]


def test_lone_mason_sees_only_himself() -> None:
    ev = game(["mason", "werewolf", "villager", "seer"], ["mason", "werewolf", "robber"], [])
    assert private(ev, "masons") == [([1], {"seats": [1]})]


def test_doppel_insomniac_looks_after_the_insomniac() -> None:
    ev = game(["doppelganger", "insomniac", "werewolf", "robber", "troublemaker"], ["werewolf", "seer", "villager"],
              [{"seat": 1, "act": "copy", "target": 2}, {"seat": 5, "act": "swap", "targets": [1, 3]}])
    assert private(ev, "own_card") == [([2], {"seat": 2, "role": "insomniac"}),
                                       ([1], {"seat": 1, "role": "werewolf"})]
    steps = [(e.data["step"], e.data["role"]) for e in ev if e.type == "step"]
    assert steps[-2:] == [("J", "insomniac"), ("J", "doppelganger")]


def test_insomniac_sees_the_card_she_ends_with() -> None:
    ev = game(["insomniac", "werewolf", "robber", "troublemaker", "villager"], ["werewolf", "seer", "villager"],
              [{"seat": 4, "act": "swap", "targets": [1, 2]}])
    assert private(ev, "own_card") == [([1], {"seat": 1, "role": "werewolf"})]


def test_swaps_are_told_to_the_actor_without_the_cards() -> None:
    ev = game(["drunk", "werewolf", "robber", "troublemaker", "seer"], ["werewolf", "villager", "villager"],
              [{"seat": 3, "act": "rob", "target": 2}, {"seat": 4, "act": "swap", "targets": [2, 5]},
               {"seat": 1, "act": "take", "card": 2}])
    assert private(ev, "rob") == [([3], {"seat": 3, "target": 2, "role": "werewolf"})]
    assert private(ev, "swap") == [([4], {"seat": 4, "targets": [2, 5]})]
    assert private(ev, "take") == [([1], {"seat": 1, "card": 2})]
    assert [e.data for e in ev if e.type == "exchange"] == [
        {"by": 3, "role": "robber", "seats": [3, 2], "now": ["werewolf", "robber"]},
        {"by": 4, "role": "troublemaker", "seats": [2, 5], "now": ["seer", "robber"]},
        {"by": 1, "role": "drunk", "seat": 1, "card": 2, "now": ["villager", "drunk"]},
    ]


def test_lone_wolf_peek_is_shown_to_the_wolf_only() -> None:
    ev = game(["werewolf", "seer", "robber", "villager"], ["werewolf", "troublemaker", "villager"],
              [{"seat": 1, "act": "peek", "card": 2}])
    assert private(ev, "wolves") == [([1], {"seats": [1]})]
    assert private(ev, "peek") == [([1], {"seat": 1, "card": 2, "role": "troublemaker"})]


def test_robber_sees_doppelganger_card_face_only() -> None:
    """The card's face is what a player sees: robbing a doppel-werewolf shows
    'doppelganger', not the role it copied (which the robber never saw)."""
    ev = game(["doppelganger", "werewolf", "robber", "villager"], ["werewolf", "seer", "troublemaker"],
              [{"seat": 1, "act": "copy", "target": 2}, {"seat": 3, "act": "rob", "target": 1}])
    assert private(ev, "rob") == [([3], {"seat": 3, "target": 1, "role": "doppelganger"})]
    roles = next(e for e in ev if e.type == "roles").data
    assert roles["teams"]["3"] == "wolves" and roles["copied"] == "werewolf"


def test_phantom_steps_for_centre_roles() -> None:
    ev = game(["werewolf", "seer", "villager", "villager"], ["werewolf", "robber", "troublemaker"], [])
    steps = [e.data["role"] for e in ev if e.type == "step"]
    assert steps == ["werewolf", "seer", "robber", "troublemaker"]
    assert all(e.to is None for e in ev if e.type == "step")


def test_onenight_order_and_no_peek() -> None:
    ev = game(["villager", "werewolf", "seer", "robber"], ["werewolf", "villager"],
              [{"seat": 3, "act": "look", "target": 2}, {"seat": 4, "act": "rob", "target": 2}], ruleset="onenight")
    steps = [e.data["role"] for e in ev if e.type == "step"]
    assert steps == ["seer", "werewolf", "robber"]
    assert private(ev, "check") == [([3], {"seat": 3, "target": 2, "role": "werewolf"})]
    assert private(ev, "rob") == [([4], {"seat": 4, "target": 2, "role": "werewolf"})]
    assert not private(ev, "peek")


@pytest.mark.parametrize("seconds", [300, 60, None])
def test_discussion_clock(seconds: int | None) -> None:
    options = {} if seconds == 300 else {"discussion_seconds": seconds}
    ev = game(["villager", "werewolf", "seer", "villager"], ["werewolf", "robber"], [], ruleset="onenight", **options)
    (disc,) = [e for e in ev if e.type == "discussion"]
    assert disc.to is None and disc.phase == "day1" and disc.data == {"seconds": seconds}
    assert [e.type for e in ev].index("discussion") < [e.type for e in ev].index("votes")


# -- setup ---------------------------------------------------------------------------------------
def test_deal_by_players_and_by_deck() -> None:
    for rs, n in (("onuw", 7), ("onenight", 7), ("onenight", 3)):
        t = Game(Setup(rs, players=n, seed=3)).table
        assert isinstance(t, OneNightTable) and t.n == n
    t = Game(Setup("onenight", deck=("werewolf", "werewolf", "seer", "robber", "villager", "villager"))).table
    assert isinstance(t, OneNightTable) and t.n == 4 and len(t.center) == 2
    t = Game(Setup("onuw", deck=("werewolf", "minion", "tanner", "villager", "villager", "hunter"))).table
    assert isinstance(t, OneNightTable) and t.n == 3 and t.custom_deck


def test_a_deck_checked_once_still_deals_anew_and_refuses_every_time() -> None:
    # A deck's checks and night steps are worked out at its first deal only (a simulation deals it millions of times).
    deck = ("werewolf", "seer", "robber", "villager", "villager", "villager")
    tables = [Game(Setup("onenight", deck=deck, seed=seed)).table for seed in range(30)]
    assert all(isinstance(t, OneNightTable) and t.custom_deck and t.in_deck == frozenset(deck) for t in tables)
    assert len({t.dealt for t in tables if isinstance(t, OneNightTable)}) > 5
    steps = [e.data["step"] for e in Game(Setup("onenight", deck=deck, seed=1)).events if e.type == "step"]
    assert steps == ["1", "2", "3"]
    for seed in range(3):  # a refused deck is never remembered as playable
        with pytest.raises(SetupError, match="box holds 2 werewolf"):
            Game(Setup("onenight", deck=("werewolf",) * 3 + ("seer", "robber", "villager"), seed=seed))


def test_seats_of() -> None:
    cards = ("mason", "seer", "werewolf", "mason", "villager", "werewolf", "mason")
    assert seats_of(cards, "mason") == [1, 4, 7]
    assert seats_of(cards, "werewolf") == [3, 6]
    assert seats_of(cards, "seer") == [2]
    assert seats_of(cards, "robber") == []


@pytest.mark.parametrize("setup", [
    Setup("onuw", deck="onuw11"),
    Setup("onuw", deck="onenight5"),
    Setup("onuw", deck="onuw5", players=6),
    Setup("onuw", players=2),
    Setup("onenight", players=8),
    Setup("onuw", deck=("werewolf",) * 4),
    Setup("onuw", deck=(["werewolf"],) * 8),  # type: ignore[arg-type]  # what a JSON client may send
    Setup("onuw", deck=("werewolf", "seer", "villager", "villager", "robber", "mason", "troublemaker")),
    Setup("onuw", deck=("villager", "seer", "robber", "troublemaker", "villager", "villager")),
    Setup("onenight", seats=("werewolf", "seer", "villager"), center=("robber", "villager"),
          options={"discussion_seconds": 0}),
    Setup("onenight", seats=("werewolf", "seer", "villager"), center=("robber", "villager"), options={"sheriff": True}),
], ids=lambda s: f"{s.ruleset}-{s.deck or s.players or s.options}")
def test_setup_errors(setup: Setup) -> None:
    with pytest.raises(SetupError):
        Game(setup)


# -- decisions ---------------------------------------------------------------------------------------
def test_look_decision() -> None:
    d = Look(2, [1, 3, 4], 3, 2)
    assert d.default_value() is None
    opts = d.options()
    assert len(opts) == 3 + 3 + 1 and all(d.check(o) is None for o in opts)
    assert {d.value(o) for o in opts} == {1, 3, 4, (1, 2), (1, 3), (2, 3), None}
    rng = random.Random(1)
    assert {d.random_value(rng) for _ in range(500)} == {d.value(o) for o in opts}
    assert d.check({"act": "look", "cards": [3, 1]}) is None and d.value({"act": "look", "cards": [3, 1]}) == (1, 3)
    for bad in ({"target": 2}, {"target": 5}, {"target": "1"}, {"cards": [1, 1]}, {"cards": [1]}, {"cards": [0, 1]},
                {"cards": 1}, {"target": 1, "cards": [1, 2]}, {"card": 1}):
        assert d.check({"act": "look", **bad}), bad


def test_every_offered_option_is_legal() -> None:
    for rs, deck in ALL:
        for seed in range(20):
            g = Game(Setup(rs, deck=deck, seed=seed))
            rng = random.Random(seed)
            while not g.over:
                for d in list(g.request):
                    opts = d.options()
                    assert opts and all(d.check(o) is None for o in opts), d
                    g.answer(d.seat, opts[rng.randrange(len(opts))])
