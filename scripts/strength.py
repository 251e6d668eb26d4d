#!/usr/bin/env python3
"""How strong are the heuristic bots? (issue 7: measured, not asserted)

On classic 12-player games (standard deck) it plays, with the same seeds:

- random against random (the baseline),
- heuristic wolves against a random village,
- a heuristic village against random wolves,
- heuristic against heuristic (for reference),

and prints each side's win rate with its 95% Wilson interval, and each
heuristic side's gain over the baseline with a 95% interval for the difference
(Newcombe's method). The goal: each gain at least 20 percentage points.

    python scripts/strength.py                 # 10,000 games per matchup, 2 jobs
    python scripts/strength.py --games 2000 --jobs 1
"""

from __future__ import annotations

import argparse
import math
import time

from werewolf.sim import SimConfig, Stats, parse_bots, simulate

GOAL = 0.20


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """p1 - p2 with its 95% interval (Newcombe's hybrid score method, from Wilson intervals)."""
    from werewolf.sim import wilson

    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def measure(games: int = 10_000, jobs: int = 2, seed: int = 2024, players: int = 12) -> bool:
    """Play the four matchups and print the table; whether each heuristic side gains its 20 points."""
    runs: dict[str, Stats] = {}
    for bots in ("random", "wolves=heuristic", "village=heuristic", "heuristic"):
        config = SimConfig(ruleset="classic", players=players, bots=parse_bots(bots), games=games,
                           seed=seed, jobs=jobs)
        start = time.perf_counter()
        runs[bots] = s = simulate(config)
        elapsed = time.perf_counter() - start
        print(f"{bots:<18} {s.games:>6} games in {elapsed:6.1f} s ({s.games / elapsed:7,.0f} games/s, "
              f"{jobs} jobs)  errors: {s.errors}")

    print(f"\nclassic {players} players, standard deck, {games:,} games per matchup, seed {seed}")
    print(f"{'matchup':<34} {'wolves win':>10} {'95% interval':>17} {'village wins':>13} {'95% interval':>17}")
    for bots, label in (("random", "random vs random"), ("wolves=heuristic", "heuristic wolves vs random village"),
                        ("village=heuristic", "heuristic village vs random wolves"),
                        ("heuristic", "heuristic vs heuristic")):
        s = runs[bots]
        w, wl, wh = s.win_rate("wolves")
        v, vl, vh = s.win_rate("village")
        print(f"{label:<34} {pct(w):>10} {pct(wl) + ' – ' + pct(wh):>17} {pct(v):>13} {pct(vl) + ' – ' + pct(vh):>17}")

    base = runs["random"]
    ok = True
    print("\ngain of each heuristic side over random vs random (goal: at least +20 points)")
    for bots, team in (("wolves=heuristic", "wolves"), ("village=heuristic", "village")):
        s = runs[bots]
        d, lo, hi = newcombe(s.wins[team], s.games, base.wins[team], base.games)
        met = lo >= GOAL
        ok &= d >= GOAL
        print(f"  {team:<8} {100 * d:+6.1f} points  (95% interval {100 * lo:+.1f} to {100 * hi:+.1f})  "
              f"{'MET' if met else ('met on the estimate' if d >= GOAL else 'NOT MET')}")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--players", type=int, default=12)
    args = ap.parse_args()
    return 0 if measure(args.games, args.jobs, args.seed, args.players) else 1


if __name__ == "__main__":
    raise SystemExit(main())
