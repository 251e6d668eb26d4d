"""consistent_deal: deals that never contradict what a seat knows, and that cover what it does not."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf.core import Game, Setup
from werewolf.core.sampling import Deal, consistent_deal, deck_of, knowledge
from werewolf.core.views import visible_events

SETUPS = [("classic", "classic9"), ("classic", "c12_wolfking_thief_cupid"), ("classic", "c12_bear_hiddenwolf"),
          ("facetoface", "ff12_cupid_thief"), ("wechat", "wechat12"), ("onuw", "onuw7"), ("onuw", "onuw5"),
          ("onenight", "onenight6")]


def _played(ruleset: str, deck: str, seed: int, requests: int) -> Game:
    game = Game(Setup(ruleset, deck=deck, seed=seed))
    rng = random.Random(seed)
    for _ in range(requests):
        if game.over:
            break
        game.answer_all([d.random_value(rng) for d in game.request])
    return game


def _truth(game: Game) -> Deal:
    cards, players = deck_of(game)
    return Deal(tuple(cards[:players]), tuple(cards[players:]))


_TOLD_WITH_THE_CARD = ("pack", "wolves", "thumbs", "masons")
_CHANGERS = ("thief", "wild_child", "doppelganger")


def _first_view(setup: Setup, seat: int, seen: set[str]) -> list[tuple[object, ...]]:
    """What ``seat`` is told with its card: the card, then the first time it is shown its pack, fellow
    wolves or masons (the game played on with every decision's default: when no card in the deck
    changes hands, what these first show does not depend on anyone's answer); of those, only the
    kinds ``seen`` in the game sampled from (what the seat was not told yet, the deal need not match)."""
    game = Game(setup)
    out: list[tuple[object, ...]] = [(e.type, e.data) for e in visible_events(game.events, seat)
                                     if e.to is not None and e.phase == "setup"]
    if any(c in _CHANGERS for c in (*(setup.seats or ()), *setup.center)):
        return out
    while not game.over and game.phase in ("setup", "night1"):
        for d in list(game.pending()):
            game.decline(d)
    firsts = {}
    for e in visible_events(game.events, seat):
        if e.to is not None and e.type in _TOLD_WITH_THE_CARD and e.type in seen and e.type not in firsts:
            firsts[e.type] = e.data
    return out + sorted(firsts.items())


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SETUPS), st.integers(0, 10_000), st.integers(0, 60), st.integers(1, 12), st.integers(0, 99))
def test_a_drawn_deal_never_contradicts_the_seat(setup: tuple[str, str], seed: int, requests: int, seat: int,
                                                 draw: int) -> None:
    ruleset, deck = setup
    game = _played(ruleset, deck, seed, requests)
    seat = (seat - 1) % len(game.dealt) + 1
    cards, players = deck_of(game)
    k = knowledge(game.events, seat, cards, players)
    assert k.admits(_truth(game))  # the truth is always possible
    deal = consistent_deal(game, seat, random.Random(draw))
    assert k.admits(deal)
    assert sorted(deal.seats + deal.center) == sorted(cards)
    assert deal.seats[seat - 1] == game.dealt[seat - 1]
    # Not only by our own reading of the log: dealt this way, the game tells the seat the very same
    # things at the start (its card, its pack or fellow wolves, the masons...).
    other = Setup(ruleset, seats=deal.seats, center=deal.center, options=game.setup.options, seed=game.setup.seed)
    truth = Setup(ruleset, seats=game.dealt, center=_truth(game).center, options=game.setup.options,
                  seed=game.setup.seed)
    seen = {e.type for e in visible_events(game.events, seat) if e.to is not None}
    assert _first_view(other, seat, seen) == _first_view(truth, seat, seen)


def test_draws_cover_every_possibility() -> None:
    """A villager at the start knows only its own card: every other card turns up at every other place."""
    game = Game(Setup("classic", deck="classic9", seed=4))
    seat = game.dealt.index("villager") + 1
    rng = random.Random(0)
    seen: list[set[str]] = [set() for _ in game.dealt]
    for _ in range(400):
        deal = consistent_deal(game, seat, rng)
        for i, r in enumerate(deal.seats):
            seen[i].add(r)
    rest = set(game.dealt)
    for i, roles in enumerate(seen):
        assert roles == ({"villager"} if i == seat - 1 else rest)


def test_a_wolf_knows_its_pack_and_a_seer_its_results() -> None:
    game = _played("classic", "classic12", 11, 30)
    wolves = [i + 1 for i, r in enumerate(game.dealt) if r == "werewolf"]
    rng = random.Random(1)
    seen: set[tuple[str, ...]] = set()
    for _ in range(200):
        deal = consistent_deal(game, wolves[0], rng)
        assert [i + 1 for i, r in enumerate(deal.seats) if r == "werewolf"] == wolves
        seen.add(deal.seats)
    assert len(seen) > 50  # the good cards among the other seats vary
    seer = game.dealt.index("seer") + 1
    checks = [e.data for e in game.events if e.type == "check" and e.to and seer in e.to]
    assert checks
    for _ in range(100):
        deal = consistent_deal(game, seer, rng)
        for c in checks:
            assert (deal.seats[c["target"] - 1] == "werewolf") == (c["result"] == "wolf")


def test_one_night_centre_cards_and_the_end() -> None:
    game = _played("onuw", "onuw7", 2, 100)
    assert game.over
    # At the end every dealt card is public: the only consistent deal is the deal.
    assert consistent_deal(game, 1, random.Random(0)) == _truth(game)


def test_a_view_needs_the_cards() -> None:
    from werewolf.agents import seat_view

    game = _played("onenight", "onenight5", 1, 2)
    view = seat_view(game, 2)
    cards, _ = deck_of(game)
    deal = consistent_deal(view, 2, random.Random(0), cards=cards)
    assert deal.seats[1] == game.dealt[1]
    try:
        consistent_deal(view, 2, random.Random(0))
    except ValueError as e:
        assert "cards" in str(e)
    else:
        raise AssertionError("a view without the deck's cards was accepted")
