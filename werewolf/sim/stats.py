"""Streaming statistics of many games: counts only, mergeable in any order.

A ``Stats`` holds integers (wins per team, a histogram of game lengths, deaths
per cause, how often each special rule fired), so merging the partial
statistics of workers gives the same numbers whatever the order or the number
of workers, and memory does not grow with the number of games. Rates, means and
intervals are derived from the counts at the end.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

Z95 = 1.959963984540054  # the two-sided 95% normal quantile
MAX_ERROR_SAMPLES = 5


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``k / n`` (``(0, 1)`` when ``n`` is 0).

    ``k`` and ``n`` may be effective counts (``clustered``), not whole numbers."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if k <= 0 else max(0.0, centre - half)
    hi = 1.0 if k >= n else min(1.0, centre + half)
    return lo, hi


def clustered(k: int, n: int, k2: int, n2: int, kn: int, clusters: int, z: float = Z95
              ) -> tuple[float, float, float]:
    """A proportion of trials that come in clusters (seats in games), its interval, and the design effect.

    ``k`` successes of ``n`` trials in ``clusters`` clusters; ``k2``, ``n2``, ``kn``: the sums over the
    clusters of k_g², n_g² and k_g·n_g. The seats of one game are no independent trials (the three villagers
    of a game all win or all lose), so the variance of the ratio k/n is the ratio estimator's with the games as
    the units: G/(G-1) · Σ(k_g - p·n_g)² / n². The interval is Wilson's at the effective number of trials
    p(1-p)/variance (never more than ``n``); the design effect is n over that. With no spread to measure
    (p is 0 or 1, or one cluster), one trial per cluster: the most a game can be worth.
    """
    if n <= 0:
        return 0.0, 0.0, 1.0
    p = k / n
    resid = k2 - 2 * p * kn + p * p * n2
    var = clusters / (clusters - 1) * resid / (n * n) if clusters > 1 else 0.0
    if var > 0 and 0 < p < 1:
        n_eff = min(float(n), p * (1 - p) / var)
    else:
        n_eff = float(min(n, max(1, clusters)))
    lo, hi = wilson(p * n_eff, n_eff, z)
    return lo, hi, n / n_eff


def team_order(team: str) -> tuple[int, str]:
    """The rows' order for teams: village, wolves, then the others by name."""
    return ({"village": 0, "wolves": 1}.get(team, 2), team)


class Stats:
    """The statistics of a set of games (see the module docstring)."""

    __slots__ = ("games", "wins", "draws", "days", "deaths", "fired", "fired_games", "endings", "decisions",
                 "errors", "error_samples", "role_seats", "role_wins", "role_deaths", "powers", "power_games",
                 "role_games", "role_n2", "role_k2", "role_kn")

    def __init__(self) -> None:
        self.games = 0
        self.wins: Counter[str] = Counter()  # team -> games it won (a shared win counts for each team)
        self.draws = 0  # games nobody won
        self.days: Counter[int] = Counter()  # game length in days -> games
        self.deaths: Counter[str] = Counter()  # cause -> deaths
        self.fired: Counter[str] = Counter()  # special rule or event -> times
        self.fired_games: Counter[str] = Counter()  # special rule or event -> games where it fired
        self.endings: Counter[str] = Counter()  # the rule that ended the game -> games
        self.decisions = 0  # decisions answered, all games together
        self.errors = 0  # games the engine failed to finish (a bug: see error_samples)
        self.error_samples: list[tuple[int, int, str]] = []  # (game index, seed, error), lowest indexes
        self.role_seats: Counter[str] = Counter()  # dealt card -> seats dealt it, all games together
        self.role_wins: Counter[str] = Counter()  # dealt card -> of those seats, the ones on a winning side
        self.role_deaths: Counter[tuple[str, int]] = Counter()  # (dealt card, day of death) -> seats
        self.powers: Counter[str] = Counter()  # power or rule choice -> times used
        self.power_games: Counter[str] = Counter()  # power or rule choice -> games where it was used
        # per dealt card, over the games: how many dealt it, and the sums of n_g², k_g², k_g·n_g (n_g: seats of
        # game g dealt it, k_g: those of them that won), for an interval that counts games, not seats (clustered)
        self.role_games: Counter[str] = Counter()
        self.role_n2: Counter[str] = Counter()
        self.role_k2: Counter[str] = Counter()
        self.role_kn: Counter[str] = Counter()

    # -- adding ------------------------------------------------------------------
    def add(self, teams: Iterable[str], days: int, causes: Iterable[str], fired: Iterable[str],
            ending: str | None, decisions: int, seats: Iterable[tuple[str, bool, int]] = (),
            powers: Iterable[str] = ()) -> None:
        """One finished game; ``seats`` holds each seat's (dealt card, won, day it died or 0)."""
        self.games += 1
        won = False
        for team in teams:
            self.wins[team] += 1
            won = True
        if not won:
            self.draws += 1
        self.days[days] += 1
        self.deaths.update(causes)
        fired = list(fired)
        if fired:
            self.fired.update(fired)
            self.fired_games.update(set(fired))
        if ending:
            self.endings[ending] += 1
        self.decisions += decisions
        dealt: Counter[str] = Counter()
        winners: Counter[str] = Counter()
        for role, won, died in seats:
            dealt[role] += 1
            if won:
                winners[role] += 1
            if died:
                self.role_deaths[role, died] += 1
        for role, n in dealt.items():
            k = winners[role]
            self.role_seats[role] += n
            self.role_wins[role] += k
            self.role_games[role] += 1
            self.role_n2[role] += n * n
            self.role_k2[role] += k * k
            self.role_kn[role] += k * n
        powers = list(powers)
        if powers:
            self.powers.update(powers)
            self.power_games.update(set(powers))

    def add_error(self, index: int, seed: int, error: str) -> None:
        self.errors += 1
        self.error_samples = sorted([*self.error_samples, (index, seed, error)])[:MAX_ERROR_SAMPLES]

    def merge(self, other: Stats) -> Stats:
        """Add ``other`` into this one (in place); returns self."""
        self.games += other.games
        self.wins.update(other.wins)
        self.draws += other.draws
        self.days.update(other.days)
        self.deaths.update(other.deaths)
        self.fired.update(other.fired)
        self.fired_games.update(other.fired_games)
        self.endings.update(other.endings)
        self.decisions += other.decisions
        self.errors += other.errors
        self.error_samples = sorted(self.error_samples + other.error_samples)[:MAX_ERROR_SAMPLES]
        self.role_seats.update(other.role_seats)
        self.role_wins.update(other.role_wins)
        self.role_deaths.update(other.role_deaths)
        self.powers.update(other.powers)
        self.power_games.update(other.power_games)
        self.role_games.update(other.role_games)
        self.role_n2.update(other.role_n2)
        self.role_k2.update(other.role_k2)
        self.role_kn.update(other.role_kn)
        return self

    # -- reading -----------------------------------------------------------------
    def win_rate(self, team: str) -> tuple[float, float, float]:
        """(rate, low, high) of ``team`` winning, with the 95% Wilson interval."""
        k, n = self.wins.get(team, 0), self.games
        lo, hi = wilson(k, n)
        return (k / n if n else 0.0), lo, hi

    def length(self) -> dict[str, float]:
        """Mean, standard deviation, and quantiles of the game length in days."""
        n = sum(self.days.values())
        if not n:
            return {"mean": 0.0, "sd": 0.0, "min": 0, "p5": 0, "median": 0, "p95": 0, "max": 0}
        days = sorted(self.days.items())  # a fixed order: the same floats whatever the merge order
        mean = sum(d * c for d, c in days) / n
        var = sum(c * (d - mean) ** 2 for d, c in days) / (n - 1) if n > 1 else 0.0
        return {"mean": mean, "sd": math.sqrt(var), "min": min(self.days), "p5": self._quantile(0.05),
                "median": self._quantile(0.5), "p95": self._quantile(0.95), "max": max(self.days)}

    def _quantile(self, q: float) -> int:
        n = sum(self.days.values())
        rank = max(1, math.ceil(q * n))
        seen = 0
        for d in sorted(self.days):
            seen += self.days[d]
            if seen >= rank:
                return d
        return max(self.days)

    def roles(self) -> dict[str, dict[str, Any]]:
        """Per dealt card: seats, win rate with its 95% interval counted by game (``role_interval``), and the share
        of its seats alive at the end of each day.

        A seat of a game that ended before day ``d`` counts as alive at the end of day ``d`` (it never died).
        Rows in the deck's order is the caller's business: here, by name.
        """
        last = max((d for _, d in self.role_deaths), default=0)
        out: dict[str, dict[str, Any]] = {}
        for role in sorted(self.role_seats):
            n = self.role_seats[role]
            k = self.role_wins[role]
            lo, hi, deff = self.role_interval(role)
            dead = 0
            alive: list[float] = []
            for day in range(1, last + 1):
                dead += self.role_deaths[role, day]
                alive.append((n - dead) / n if n else 0.0)
            out[role] = {"seats": n, "wins": k, "win_rate": k / n if n else 0.0, "ci95": [lo, hi],
                         "games": self.role_games[role], "design_effect": deff,
                         "alive_after_day": alive, "alive_at_end": (n - dead) / n if n else 0.0}
        return out

    def role_interval(self, role: str, z: float = Z95) -> tuple[float, float, float]:
        """The 95% interval of the win rate of the seats dealt ``role``, with the games as the units (``clustered``),
        and its design effect (how many seats a game's worth of information is spread over)."""
        return clustered(self.role_wins[role], self.role_seats[role], self.role_k2[role], self.role_n2[role],
                         self.role_kn[role], self.role_games[role], z)

    def power_table(self) -> dict[str, dict[str, Any]]:
        """Per power or rule choice: times used, per game, and the share of games it was used in."""
        n = self.games
        return {name: {"times": c, "per_game": c / n if n else 0.0, "games": self.power_games[name],
                       "rate": self.power_games[name] / n if n else 0.0}
                for name, c in sorted(self.powers.items())}

    def teams(self) -> list[str]:
        """Every team that won at least once, in a fixed order (the village, the wolves, then by name).

        Never by wins: a table or a chart keeps its rows whichever side won more.
        """
        return sorted(self.wins, key=team_order)

    def as_dict(self) -> dict[str, Any]:
        """Everything, JSON-able; a pure function of the games (no timings)."""
        n = self.games
        teams = {}
        for team in self.teams():
            rate, lo, hi = self.win_rate(team)
            teams[team] = {"wins": self.wins[team], "rate": rate, "ci95": [lo, hi]}
        dlo, dhi = wilson(self.draws, n)
        return {
            "games": n,
            "teams": teams,
            "draws": {"games": self.draws, "rate": self.draws / n if n else 0.0, "ci95": [dlo, dhi]},
            "length_days": {**self.length(), "histogram": {str(d): c for d, c in sorted(self.days.items())}},
            "deaths": {cause: {"deaths": c, "per_game": c / n if n else 0.0}
                       for cause, c in sorted(self.deaths.items(), key=lambda kv: (-kv[1], kv[0]))},
            "special": {name: {"times": c, "games": self.fired_games[name],
                               "rate": self.fired_games[name] / n if n else 0.0}
                        for name, c in sorted(self.fired.items(), key=lambda kv: (-kv[1], kv[0]))},
            "endings": dict(sorted(self.endings.items(), key=lambda kv: (-kv[1], kv[0]))),
            "decisions": self.decisions,
            "decisions_per_game": self.decisions / n if n else 0.0,
            "roles": self.roles(),
            "powers": self.power_table(),
            "errors": self.errors,
            "error_samples": [{"game": i, "seed": s, "error": e} for i, s, e in self.error_samples],
        }

    def __eq__(self, other: object) -> bool:
        """The same counts (what any two runs of the same games must share)."""
        return isinstance(other, Stats) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)
