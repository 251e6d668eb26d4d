"""Games paired by seed: every variant of a comparison plays game ``i`` from the same seed.

A worker plays game ``i`` under each variant in turn and keeps counts only: each
variant's ``Stats``, and, against the first variant, how often each team won in
both, in one only, or in neither (the 2x2 table a paired interval needs), and how
often the two games were identical event for event (then the variant's change
never came into play in that game). ``Paired`` merges by adding, like ``Stats``.
"""

from __future__ import annotations

import math
from collections import Counter
from statistics import NormalDist
from typing import Any

from werewolf.sim.config import BotSpec, SimConfig, game_seed
from werewolf.sim.runner import base_setup, play_game, powers_used, seat_outcomes, summarize
from werewolf.sim.stats import Z95, Stats, wilson
from werewolf.sim.variants import with_bots


class Paired:
    """Counts of the games of several variants on the same seeds (see the module docstring)."""

    __slots__ = ("stats", "pairs", "paired", "same")

    def __init__(self, variants: int) -> None:
        self.stats = [Stats() for _ in range(variants)]
        # per variant: (team, won here, won in the first variant) -> games; (team, 0, 0) is not kept
        self.pairs: list[Counter[tuple[str, int, int]]] = [Counter() for _ in range(variants)]
        self.paired = [0] * variants  # games finished both here and in the first variant
        self.same = [0] * variants  # of those, games identical event for event to the first variant's

    def merge(self, other: Paired) -> Paired:
        for k in range(len(self.stats)):
            self.stats[k].merge(other.stats[k])
            self.pairs[k].update(other.pairs[k])
            self.paired[k] += other.paired[k]
            self.same[k] += other.same[k]
        return self

    @property
    def games(self) -> int:
        """Games played by each variant (finished or failed)."""
        return self.stats[0].games + self.stats[0].errors

    def table(self, k: int, team: str) -> tuple[int, int, int, int]:
        """The 2x2 table of ``team`` winning in variant ``k`` against the first: (both, k only, first only, neither)."""
        c = self.pairs[k]
        both, only_k, only_first = c[team, 1, 1], c[team, 1, 0], c[team, 0, 1]
        return both, only_k, only_first, self.paired[k] - both - only_k - only_first

    def difference(self, k: int, team: str, z: float = Z95) -> tuple[float, float, float]:
        """Variant ``k``'s win rate for ``team`` minus the first's, on the paired games, with Newcombe's interval."""
        return newcombe_paired(*self.table(k, team), z=z)

    def __getstate__(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)


def newcombe_paired(a: int, b: int, c: int, d: int, z: float = Z95) -> tuple[float, float, float]:
    """The difference of two paired proportions and its interval (Newcombe 1998, method 10).

    ``a``: pairs where both succeed, ``b``: the first of the pair only, ``c``: the second only,
    ``d``: neither. Returns ``(p1 - p2, low, high)`` with p1 = (a+b)/n, p2 = (a+c)/n. The
    interval combines the two Wilson score intervals with the pairs' correlation, so it stays
    inside [-1, 1], is not degenerate at 0 or n, and narrows as the pairs agree more.
    """
    n = a + b + c + d
    if n == 0:
        return 0.0, -1.0, 1.0
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(a + b, n, z)
    l2, u2 = wilson(a + c, n, z)
    cross = float(a * d - b * c)
    if cross > 0:  # Newcombe's continuity correction of the correlation, for a positive one only
        cross = max(cross - n / 2, 0.0)
    denom = math.sqrt((a + b) * (c + d) * (a + c) * (b + d))
    phi = cross / denom if denom > 0 else 0.0
    dl = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    du = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    diff = p1 - p2
    return diff, max(-1.0, diff - dl), min(1.0, diff + du)


def newcombe_p(a: int, b: int, c: int, d: int) -> float:
    """The two-sided p-value that inverts ``newcombe_paired``: the level at which its interval just reaches 0.

    So a difference's test and its interval never disagree: the interval at level 1 - x excludes 0 exactly
    when this p-value is below x."""
    if b == c:  # no difference at all: no level excludes 0
        return 1.0
    dist = NormalDist()

    def excludes(z: float) -> bool:
        _, low, high = newcombe_paired(a, b, c, d, z)
        return low > 0 or high < 0

    low, high = 0.0, 1.0
    while excludes(high):
        high *= 2
        if high > 40:
            return 0.0
    for _ in range(60):
        mid = (low + high) / 2
        if excludes(mid):
            low = mid
        else:
            high = mid
    return 2 * (1 - dist.cdf((low + high) / 2))


def holm(pvalues: list[float]) -> list[float]:
    """Holm's step-down adjustment of several p-values (in the order given): a difference is shown at level
    ``a`` when its adjusted p-value is below ``a``, and all of them together at most ``a`` wrongly."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def mixed_chunk(configs: tuple[SimConfig, ...], mix: tuple[BotSpec, ...], start: int, stop: int
                ) -> dict[str, Paired]:
    """``paired_chunk`` with game ``i`` played by the bots ``mix[i % len(mix)]`` in every variant (so the games
    stay paired), counted apart for each kind of bots (by its label)."""
    out: dict[str, Paired] = {}
    for i in range(start, stop):
        bots = mix[i % len(mix)]
        part = paired_chunk(tuple(with_bots(c, bots) for c in configs), i, i + 1)
        out.setdefault(bots.label(), Paired(len(configs))).merge(part)
    return out


def paired_chunk(configs: tuple[SimConfig, ...], start: int, stop: int) -> Paired:
    """Games ``start`` to ``stop - 1`` under every variant, counted (run in the workers)."""
    out = Paired(len(configs))
    setups = [base_setup(c) for c in configs]
    for i in range(start, stop):
        first_events = None
        first_teams: set[str] = set()
        for k, (config, setup) in enumerate(zip(configs, setups)):
            try:
                game = play_game(config, i, setup)
            except Exception as e:  # an engine or bot bug: counted and shown, as in `simulate`
                out.stats[k].add_error(i, game_seed(config.seed, i), f"{type(e).__name__}: {e}")
                continue
            events = game.events
            teams, days, causes, fired, ending = summarize(events)
            out.stats[k].add(teams, days, causes, fired, ending, game.answered, seat_outcomes(events),
                             powers_used(events))
            won = set(teams)
            if k == 0:
                first_events, first_teams = events, won
                continue
            if first_events is None:  # the first variant's game failed: nothing to pair with
                continue
            out.paired[k] += 1
            for team in won | first_teams:
                out.pairs[k][team, int(team in won), int(team in first_teams)] += 1
            # Event for event, but for the first, game_start: it records the options, which differ by design.
            if len(events) == len(first_events) and events[1:] == first_events[1:]:
                out.same[k] += 1
        # the first variant is paired with itself: its own table makes its row read like the others'
        if first_events is not None:
            out.paired[0] += 1
            out.same[0] += 1
            for team in first_teams:
                out.pairs[0][team, 1, 1] += 1
    return out


def outcome_chunk(configs: tuple[SimConfig, ...], mix: tuple[BotSpec, ...], start: int, stop: int
                  ) -> list[tuple[Stats, bytes]]:
    """Games ``start`` to ``stop - 1`` under every config (game ``i`` by the bots ``mix[i % len(mix)]``, or each
    config's own when ``mix`` is empty): each config's ``Stats``, and one byte a game, 1 when the village won, 0
    when it did not, 2 when the game failed (what ``balance`` pairs any two candidates with, game by game)."""
    out = [(Stats(), bytearray()) for _ in configs]
    setups = [base_setup(c) for c in configs]
    for i in range(start, stop):
        for (stats, bits), config, setup in zip(out, configs, setups):
            if mix:
                config = with_bots(config, mix[i % len(mix)])
            try:
                game = play_game(config, i, setup)
            except Exception as e:  # an engine or bot bug: counted and shown, as in `simulate`
                stats.add_error(i, game_seed(config.seed, i), f"{type(e).__name__}: {e}")
                bits.append(2)
                continue
            events = game.events
            teams, days, causes, fired, ending = summarize(events)
            stats.add(teams, days, causes, fired, ending, game.answered, seat_outcomes(events), powers_used(events))
            bits.append(1 if "village" in teams else 0)
    return [(stats, bytes(bits)) for stats, bits in out]


def pair_table(first: bytes, second: bytes) -> tuple[int, int, int, int]:
    """The 2x2 table of two candidates' games played on the same seeds, over the games both finished:
    (both won, the first only, the second only, neither)."""
    both = only_first = only_second = neither = 0
    for x, y in zip(first, second):
        if x == 2 or y == 2:
            continue
        if x:
            if y:
                both += 1
            else:
                only_first += 1
        elif y:
            only_second += 1
        else:
            neither += 1
    return both, only_first, only_second, neither

