"""werewolf.core.draws makes exactly the draws of random.Random's own methods.

A seed must deal and play what it always did (replays, recorded games, the
simulations' numbers), so each helper is checked against the standard library:
the same results and the generator left in the same state.
"""

from __future__ import annotations

import random

import pytest

from werewolf.core.draws import choice, randbelow, shuffle


def test_randbelow_is_randrange() -> None:
    for n in (1, 2, 3, 5, 7, 8, 12, 13, 18, 64, 100, 1000):
        for seed in range(200):
            mine, theirs = random.Random(seed), random.Random(seed)
            got = [randbelow(mine, n) for _ in range(5)]
            assert got == [theirs.randrange(n) for _ in range(5)], (n, seed)
            assert mine.getstate() == theirs.getstate(), (n, seed)


def test_choice_is_random_choice() -> None:
    for size in range(1, 20):
        seq = [f"seat{i}" for i in range(size)]
        for seed in range(100):
            mine, theirs = random.Random(seed), random.Random(seed)
            assert [choice(mine, seq) for _ in range(3)] == [theirs.choice(seq) for _ in range(3)]
            assert mine.getstate() == theirs.getstate()


def test_shuffle_is_random_shuffle() -> None:
    # Every deck size a ruleset deals (and a few more), many seeds.
    for size in range(0, 20):
        for seed in range(300):
            mine, theirs = random.Random(seed), random.Random(seed)
            cards, expected = list(map(str, range(size))), list(map(str, range(size)))
            shuffle(mine, cards)
            theirs.shuffle(expected)
            assert cards == expected and mine.getstate() == theirs.getstate(), (size, seed)


def test_empty_ranges_are_refused_not_looped_on() -> None:
    rng = random.Random(1)
    with pytest.raises(ValueError, match="empty range"):
        randbelow(rng, 0)
    with pytest.raises(ValueError, match="empty range"):
        randbelow(rng, -3)
    with pytest.raises(IndexError, match="empty sequence"):
        choice(rng, [])
    assert rng.getstate() == random.Random(1).getstate()  # nothing drawn
