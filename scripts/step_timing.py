#!/usr/bin/env python3
"""Does a night step's length tell whether its role is alive? (issue 25, item 3) Not a test: it prints figures.

Measured the way it was found: the seer's step, as every phone sees it (from its release to the next
public event), in classic games paced by the server's pacer (``werewolf.web.pacing``) on a simulated
clock. The seer is a person who answers each night after a time drawn log-uniformly from 0.2 s to
30 s; everyone else is a bot (the wolves kill one seat a night, the rest pass). In half the games the
wolves kill the seer on night 1: from night 2 on, her step is played out dead. Printed: the live and
the dead steps' mean, median and maximum, and a two-sample Kolmogorov-Smirnov test between them
(the statistic D and its asymptotic p-value), for the pacer as it is and for the pacer before issue 25
(``--before``: a step lasts its drawn time, a person's until she answers).

    python scripts/step_timing.py                  # 400 games, pace 4 to 9 s
    python scripts/step_timing.py --games 1000 --pace 4 9 --before
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from werewolf.core.errors import IllegalMove  # noqa: E402
from werewolf.core.game import Game, Setup  # noqa: E402
from werewolf.web import pacing  # noqa: E402
from werewolf.web.pacing import Pace, Pacer  # noqa: E402

SEER = 1
DECK = ("seer", "villager", "villager", "villager", "villager", "werewolf", "werewolf", "werewolf", "werewolf",
        "witch", "hunter", "guard")
WOLVES = {6, 7, 8, 9}


def answer_time(rng: random.Random) -> float:
    return math.exp(rng.uniform(math.log(0.2), math.log(30.0)))


def victim(targets: list[int], night: int, kill_seer: bool) -> int | None:
    if kill_seer and night == 1 and SEER in targets:
        return SEER
    return next((s for s in targets if s not in WOLVES and s != SEER), next(iter(targets), None))


def play(seed: int, kill_seer: bool, pace: Pace, rng: random.Random, forget: bool = False
         ) -> list[tuple[int, bool, float]]:
    """One game: each seer step's (night, alive, seconds) as the phones see it."""
    g = Game(Setup("classic", seats=DECK, seed=seed, options={"sheriff": False}))
    pacer = Pacer(pace, g.events, 0, 0.0, rng)
    pacer.asks_person = lambda: any(d.seat == SEER for d in g.pending())
    now, seen, nights = 0.0, 0, 0
    answers: dict[int, float] = {}
    out: list[tuple[int, bool, float]] = []
    open_seer: tuple[bool, float] | None = None
    for _ in range(100_000):
        if g.over:
            break
        if forget and kill_seer:  # as if no person of the room (nor of the server) had ever answered this step
            pacer.answers.clear()
            pacing.POOL.clear()
        if pacer.advance(g.events, now):
            for e in g.events[seen:pacer.released]:
                if e.to is not None:
                    continue
                if open_seer is not None:
                    out.append((nights, open_seer[0], now - open_seer[1]))
                    open_seer = None
                if e.type == "night":
                    nights += 1
                if e.type == "step" and e.data.get("role") == "seer":
                    open_seer = (pacer.person, now)
            seen = pacer.released
            continue
        acted = False
        if pacer.settled(g.events):
            if pacer.overdue(g.events, now):
                pacer.expire()
                for d in list(g.pending()):
                    if d.seat == SEER:
                        g.decline(d)
                continue
            for d in list(g.pending()):
                if d.seat == SEER:
                    at = answers.setdefault(id(d), now + answer_time(rng))
                    if now >= at:
                        g.decline(d)  # (her answer's content does not matter here, its time does)
                        acted = True
                elif pacer.bots_may_answer(g.events, now):
                    try:
                        if d.act == "kill":
                            g.answer_value(d, victim(list(getattr(d, "targets", ())), nights, kill_seer))
                        else:
                            g.decline(d)
                    except IllegalMove:
                        g.decline(d)
                    acted = True
        if acted:
            continue
        due = pacer.due(g.events)
        later = [t for t in answers.values() if t > now] + ([due] if due is not None and due > now else [])
        now = min(later) if later else now + 0.25
    return out


def ks(a: list[float], b: list[float]) -> tuple[float, float]:
    """Two-sample Kolmogorov-Smirnov: the statistic and its asymptotic p-value."""
    a, b = sorted(a), sorted(b)
    i = j = 0
    d = 0.0
    while i < len(a) and j < len(b):
        x = min(a[i], b[j])
        while i < len(a) and a[i] == x:
            i += 1
        while j < len(b) and b[j] == x:
            j += 1
        d = max(d, abs(i / len(a) - j / len(b)))
    ne = len(a) * len(b) / (len(a) + len(b))
    lam = (math.sqrt(ne) + 0.12 + 0.11 / math.sqrt(ne)) * d
    p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return d, min(1.0, max(0.0, p))


def figures(name: str, xs: list[float]) -> str:
    return (f"{name}: {len(xs)} steps, mean {statistics.mean(xs):.2f} s, median {statistics.median(xs):.2f} s, "
            f"max {max(xs):.2f} s")


def run(games: int, pace: Pace, seed: int, forget: bool = False) -> None:
    rng = random.Random(seed)
    live: list[float] = []
    dead: list[float] = []
    every: dict[bool, list[float]] = {True: [], False: []}
    for k in range(games):
        for night, alive, seconds in play(seed + k, kill_seer=k % 2 == 1, pace=pace, rng=rng, forget=forget):
            every[alive].append(seconds)
            if night == 2:  # one step a game (night 2: dead in half the games), so that samples are independent
                (live if alive else dead).append(seconds)
    d, p = ks(live, dead)
    print("  night 2, one step a game:")
    print("    " + figures("live seer", live))
    print("    " + figures("dead seer", dead))
    print(f"    Kolmogorov-Smirnov: D = {d:.3f}, p = {p:.3g}")
    print("  every night (steps of one game are not independent: no test):")
    print("    " + figures("live seer", every[True]))
    print("    " + figures("dead seer", every[False]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--pace", type=float, nargs=2, default=(4.0, 9.0))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--before", action="store_true", help="also the pacer before issue 25, for comparison")
    args = ap.parse_args()
    pace = Pace(*args.pace)
    print(f"pace {pace.low:g} to {pace.high:g} s (cap {pace.cap:g} s), {args.games} games, the seer answering "
          "in 0.2 to 30 s (log-uniform)")
    print("now:")
    run(args.games, pace, args.seed)
    print("now, a dead role's step drawn from the model alone (a role no person of the room or server answered):")
    run(args.games, pace, args.seed, forget=True)
    if args.before:
        Pacer._length = lambda self, events: self.pace.draw(self.rng)  # type: ignore[method-assign]
        Pacer.overdue = lambda self, events, now: False  # type: ignore[method-assign]
        print("before issue 25 (a step lasts its drawn time; a person's, until she answers):")
        run(args.games, pace, args.seed)


if __name__ == "__main__":
    main()
