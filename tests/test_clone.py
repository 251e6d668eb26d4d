"""Game.clone(): a copy that plays on exactly as the original, and is independent of it."""

from __future__ import annotations

import random

import pytest

from werewolf.core import Game, Setup

SETUPS = [("classic", "classic12"), ("classic", "c12_wolfking_thief_cupid"), ("classic", "c12_wild_child"),
          ("facetoface", "ff9_standard"), ("facetoface", "ff12_cupid_thief"), ("wechat", "wechat12"),
          ("onuw", "onuw5"), ("onenight", "onenight5")]


def _log(game: Game) -> list[tuple[object, ...]]:
    return [(e.type, e.phase, e.data, e.to) for e in game.events]


def _state(game: Game) -> tuple[object, ...]:
    return (_log(game), [d.describe() for d in game.pending()], list(game.answers), game.over, game.result, game.phase)


def _advance(game: Game, rng: random.Random, requests: int) -> None:
    """Random play for ``requests`` requests, then half of the next one answered (a request left open)."""
    for _ in range(requests):
        if game.over:
            return
        game.answer_all([d.random_value(rng) for d in game.request])
    if not game.over and len(game.request) > 1:
        d = game.request[0]
        game.answer_value(d, d.random_value(rng))


def _finish(game: Game, rng: random.Random) -> None:
    while not game.over:
        for d in game.pending():
            game.answer_value(d, d.random_value(rng))


@pytest.mark.parametrize("ruleset,deck", SETUPS)
def test_a_clone_plays_on_exactly_as_the_original(ruleset: str, deck: str) -> None:
    for seed in range(8):
        rng = random.Random(seed)
        game = Game(Setup(ruleset, deck=deck, seed=seed))
        _advance(game, rng, rng.randrange(30))
        copy = game.clone()
        assert _state(copy) == _state(game)
        _finish(game, random.Random(seed + 100))
        _finish(copy, random.Random(seed + 100))
        assert _state(copy) == _state(game)
        assert copy.result == game.result


@pytest.mark.parametrize("ruleset,deck", SETUPS)
def test_clone_and_original_are_independent(ruleset: str, deck: str) -> None:
    rng = random.Random(3)
    game = Game(Setup(ruleset, deck=deck, seed=3))
    _advance(game, rng, 3)
    before = _state(game)
    copy = game.clone()
    _finish(copy, random.Random(1))
    assert copy.over
    assert _state(game) == before  # the copy's moves changed nothing of the original
    again = game.clone()
    _finish(game, random.Random(2))
    assert _state(again) == before  # nor do the original's change the copy
    # A clone of a clone is a clone.
    assert _state(again.clone()) == _state(again)


def test_clone_of_a_finished_game_and_of_a_new_one() -> None:
    game = Game(Setup("classic", deck="classic9", seed=5))
    fresh = game.clone()
    assert _state(fresh) == _state(game)
    game.play_out(random.Random(5))
    done = game.clone()
    assert done.over and _state(done) == _state(game)
