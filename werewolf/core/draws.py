"""Seeded draws that give exactly what ``random.Random``'s own methods give.

``randrange(n)``, ``choice`` and ``shuffle`` are Python code in the standard
library, each a call or three per draw; the engine draws on the hot path of
simulations, so it makes the same draws here: the same calls of ``getrandbits``
(C), the same results, and the generator left in the same state. A seed deals
and plays what it always did, and replays stay exact.

Only for ``random.Random`` itself (and subclasses that keep its ``getrandbits``
and ``random``): a generator that overrides ``random`` alone draws otherwise.
"""

from __future__ import annotations

import random
from collections.abc import MutableSequence, Sequence
from functools import cache
from typing import TypeVar

T = TypeVar("T")


def randbelow(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)``: a random int in [0, n), n > 0."""
    if n <= 0:
        raise ValueError(f"empty range for randbelow ({n})")
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:  # drawn again until below n, as ``Random._randbelow`` does
        r = rng.getrandbits(k)
    return r


def choice(rng: random.Random, seq: Sequence[T]) -> T:
    """``rng.choice(seq)`` of a non-empty sequence."""
    if not seq:
        raise IndexError("cannot choose from an empty sequence")
    return seq[randbelow(rng, len(seq))]


@cache
def _shuffle_draws(size: int) -> tuple[tuple[int, int], ...]:
    """For each position ``i`` that ``random.shuffle`` fills, from the last down to 1: (i, the bits it draws)."""
    return tuple((i, (i + 1).bit_length()) for i in range(size - 1, 0, -1))


def shuffle(rng: random.Random, items: MutableSequence[T]) -> None:
    """``rng.shuffle(items)``: the same order of the items, in place."""
    getrandbits = rng.getrandbits
    for i, bits in _shuffle_draws(len(items)):
        j = getrandbits(bits)
        while j > i:  # drawn again until below i + 1
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]
