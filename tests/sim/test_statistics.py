"""The statistics a designer reads: intervals that count games, not seats (seeded, small simulations)."""

from __future__ import annotations

import random

from werewolf.sim import SimConfig, parse_bots, simulate
from werewolf.sim.stats import Stats, clustered, wilson


def clustered_games(rng: random.Random, games: int, seats: int, p: float, rho: float
                    ) -> tuple[int, int, int, int, int]:
    """Games of ``seats`` seats dealt one card: with probability ``rho`` all of a game's seats share one outcome
    (they are on the same side), else each its own; returns (k, n, Σk², Σn², Σkn)."""
    k = k2 = kn = 0
    for _ in range(games):
        if rng.random() < rho:
            kg = seats if rng.random() < p else 0
        else:
            kg = sum(rng.random() < p for _ in range(seats))
        k += kg
        k2 += kg * kg
        kn += kg * seats
    n = games * seats
    return k, n, k2, games * seats * seats, kn


def test_a_role_interval_counted_by_game_is_wider_and_covers_as_it_says() -> None:
    rng = random.Random(2024)
    p, games, seats, reps = 0.55, 150, 3, 400
    covered = naive_covered = 0
    wider = 0
    for _ in range(reps):
        k, n, k2, n2, kn = clustered_games(rng, games, seats, p, rho=0.8)
        lo, hi, deff = clustered(k, n, k2, n2, kn, games)
        nlo, nhi = wilson(k, n)
        covered += lo <= p <= hi
        naive_covered += nlo <= p <= nhi
        wider += (hi - lo) > (nhi - nlo)
        assert deff > 1.5  # three seats that mostly move together: far fewer than three trials a game
    assert wider == reps
    assert 0.92 <= covered / reps <= 0.98, covered / reps  # near the nominal 95%
    assert naive_covered / reps < 0.88, naive_covered / reps  # counting seats as trials: far too sure


def test_independent_seats_keep_about_the_naive_interval() -> None:
    rng = random.Random(7)
    k, n, k2, n2, kn = clustered_games(rng, 400, 3, 0.4, rho=0.0)
    lo, hi, deff = clustered(k, n, k2, n2, kn, 400)
    nlo, nhi = wilson(k, n)
    assert 0.8 < deff < 1.25
    assert abs((hi - lo) - (nhi - nlo)) < 0.015


def test_one_seat_a_game_is_wilson_and_no_spread_is_one_trial_a_game() -> None:
    # one seat a game: the clustered interval is the plain one (up to the G/(G-1) factor)
    k, n = 37, 90
    lo, hi, deff = clustered(k, n, k, n, k, n)
    assert abs(lo - wilson(k, n)[0]) < 0.003 and abs(hi - wilson(k, n)[1]) < 0.003
    # four seats a game that always won: no spread, so each game counts once
    assert clustered(40, 40, 160, 160, 160, 10)[:2] == wilson(10, 10)
    assert clustered(0, 0, 0, 0, 0, 0) == (0.0, 0.0, 1.0)


def test_the_villagers_interval_is_the_villages_when_they_win_together() -> None:
    stats = simulate(SimConfig(deck="classic9", bots=parse_bots("heuristic"), games=200, seed=11))
    roles = stats.roles()
    village = stats.win_rate("village")
    # classic 9: the three villagers of a game win or lose with their side, so their seats tell no more than
    # the games do: the village's interval (up to the G/(G-1) of the variance), a design effect of 3
    assert all(abs(a - b) < 0.002 for a, b in zip(roles["villager"]["ci95"], village[1:]))
    assert abs(roles["villager"]["design_effect"] - 3) < 0.05
    assert abs(roles["seer"]["design_effect"] - 1) < 0.02
    assert roles["villager"]["games"] == 200


def test_the_sums_merge_in_any_order() -> None:
    a = simulate(SimConfig(deck="classic9", games=30, seed=1))
    b = simulate(SimConfig(deck="classic9", games=30, seed=2))
    ab, ba = Stats().merge(a).merge(b), Stats().merge(b).merge(a)
    assert ab == ba and ab.role_interval("villager") == ba.role_interval("villager")
    assert ab.role_games["werewolf"] == 60


def test_chart_titles_break_between_cards_never_inside_a_number() -> None:
    from werewolf.sim.report import title

    text = title("classic · deck werewolf*3,seer,witch · 1,000 games each, 12,345 seats", 200)
    assert text == "classic · deck werewolf*3, seer, witch · 1,000 games each, 12,345 seats"


def test_null_comparisons_are_wrongly_shown_at_most_about_five_percent_of_the_time() -> None:
    """Variants that do not differ (each game's outcome under a variant agrees with the first's, else is a coin
    flip): with four variants against the first, Holm keeps the chance of any wrong 'shown' near 5%, where
    testing each at 5% alone would say 'shown' for some variant in far more runs."""
    from werewolf.sim.paired import holm, newcombe_p

    rng = random.Random(99)
    runs, variants, games = 300, 4, 400
    any_holm = any_alone = 0
    for _ in range(runs):
        pvalues = []
        for _ in range(variants):
            a = b = c = d = 0
            for _ in range(games):
                first = rng.random() < 0.45
                other = first if rng.random() < 0.7 else rng.random() < 0.45
                if first and other:
                    a += 1
                elif other:
                    b += 1
                elif first:
                    c += 1
                else:
                    d += 1
            pvalues.append(newcombe_p(a, b, c, d))
        any_holm += min(holm(pvalues)) < 0.05
        any_alone += min(pvalues) < 0.05
    assert any_holm / runs <= 0.08, any_holm / runs
    assert any_alone / runs >= 0.12, any_alone / runs
