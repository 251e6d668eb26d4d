"""`werewolf balance`: which of several decks brings the village's win rate closest to 50%.

The procedure is successive elimination (Even-Dar, Mannor and Mansour, 2006) with
confidence intervals: every candidate still in contention plays the next batch of
games (the same seeds for all), then a candidate is eliminated once even the
nearest end of its interval for |village win rate - 50%| lies farther from 50% than
the farthest end of the leader's. The intervals are Wilson score intervals at a
Bonferroni-corrected level, over every candidate and every look the run may take,
so that all of them hold at once with at least 95% probability: an elimination is
then a real difference, and the candidates left are those the games could not tell
apart. Games go only to the candidates still in contention.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Any

from werewolf.core.errors import SetupError
from werewolf.roles import ROLES
from werewolf.sim import check
from werewolf.sim.backends import Session
from werewolf.sim.config import SimConfig
from werewolf.sim.paired import paired_chunk
from werewolf.sim.report import TableData, deck_label, deck_roles, rate_bars, title
from werewolf.sim.stats import Stats, wilson
from werewolf.sim.variants import Variant, batches

TEAM = "village"
ALPHA = 0.05


def swap(roles: tuple[str, ...], spec: str) -> tuple[str, ...]:
    """``A:B``: one ``A`` card out, one ``B`` in (``A:`` only takes out, ``:B`` only adds)."""
    out_role, colon, in_role = (s.strip() for s in spec.partition(":"))
    if not colon or not (out_role or in_role):
        raise SetupError(f"bad --swap {spec!r}: write OUT:IN, e.g. hunter:idiot (OUT: or :IN to only remove or add)")
    for r in (out_role, in_role):
        if r and r not in ROLES:
            raise SetupError(f"unknown role {r!r} in --swap {spec!r}")
    cards = list(roles)
    if out_role and out_role not in cards:
        raise SetupError(f"--swap {spec!r}: the deck has no {out_role!r} card to take out")
    if out_role and in_role:
        cards[cards.index(out_role)] = in_role  # in the card's place: the deck reads as before
    elif out_role:
        cards.remove(out_role)
    else:
        cards.append(in_role)
    return tuple(cards)


def candidates(base: SimConfig, swaps: Sequence[str], decks: Sequence[str]) -> list[Variant]:
    """The base deck (when there are swaps), one candidate per swap of it, and each deck given."""
    from werewolf.play import parse_deck

    out: list[Variant] = []
    if swaps:
        roles = deck_roles(base)
        if roles is None:
            raise SetupError("--swap needs a deck whose cards are known: give --deck")
        out.append(Variant(base.deck if isinstance(base.deck, str) else "the deck", base))
        for spec in swaps:
            out.append(Variant(f"swap {spec.strip().replace(':', ' → ')}", replace(base, deck=swap(roles, spec))))
    elif base.deck is not None:
        out.append(Variant(base.deck if isinstance(base.deck, str) else deck_label(base), base))
    for d in decks:
        config = replace(base, deck=parse_deck(d))
        out.append(Variant(d if "," not in d else deck_label(config), config))
    if len(out) < 2:
        raise SetupError("balance needs at least two candidates: --deck D with --swap A:B, or --candidate DECK twice")
    names = [v.name for v in out]
    if len(set(names)) != len(names):
        raise SetupError(f"a candidate is given twice ({', '.join(names)})")
    for v in out:
        check(replace(v.config, games=1))
    return out


@dataclass
class Candidate:
    variant: Variant
    stats: Stats = field(default_factory=Stats)
    eliminated_at: int | None = None  # games played when it was eliminated
    eliminated_by: str | None = None

    def interval(self, z: float) -> tuple[float, float, float]:
        s = self.stats
        lo, hi = wilson(s.wins[TEAM], s.games, z)
        return (s.wins[TEAM] / s.games if s.games else 0.5), lo, hi

    def distance(self, z: float) -> tuple[float, float, float]:
        """|rate - 50%|, and its interval from the rate's."""
        p, lo, hi = self.interval(z)
        near = 0.0 if lo <= 0.5 <= hi else min(abs(lo - 0.5), abs(hi - 0.5))
        return abs(p - 0.5), near, max(abs(lo - 0.5), abs(hi - 0.5))


@dataclass
class Result:
    candidates: list[Candidate]
    z: float
    looks: int
    stopped: str
    precision: float

    def ranked(self) -> list[Candidate]:
        """In contention first (closest to 50% first), then the eliminated, the last eliminated first."""
        return sorted(self.candidates, key=lambda c: (c.eliminated_at is not None, -(c.eliminated_at or 0),
                                                      c.distance(self.z)[0]))


def run(cands: list[Variant], *, precision: float, max_games: int, batch: int, session: Session,
        progress: Callable[[int], None] | None = None) -> Result:
    looks = max(1, math.ceil(max_games / batch))
    z = NormalDist().inv_cdf(1 - ALPHA / (2 * len(cands) * looks))  # every candidate, every look: Bonferroni
    state = [Candidate(v) for v in cands]
    jobs = max(1, cands[0].config.jobs)
    stopped = f"--max-games {max_games:,} reached with more than one candidate in contention"
    played = 0
    for a, b in batches(max_games, batch):
        alive = [c for c in state if c.eliminated_at is None]
        configs = tuple(c.variant.config for c in alive)
        chunk = max(1, min(200, -(-(b - a) // (jobs * 4))))
        for _, part in session.map(paired_chunk, ((configs, a + x, a + y) for x, y in batches(b - a, chunk))):
            for c, s in zip(alive, part.stats):
                c.stats.merge(s)
            if progress is not None:
                progress(part.games * len(alive))
        played = b
        dist = {c.variant.name: c.distance(z) for c in alive}
        leader = min(alive, key=lambda c: dist[c.variant.name][2])
        bound = dist[leader.variant.name][2]
        for c in alive:
            if c is not leader and dist[c.variant.name][1] > bound:
                c.eliminated_at, c.eliminated_by = played, leader.variant.name
        alive = [c for c in state if c.eliminated_at is None]
        if len(alive) == 1:
            stopped = f"one candidate left after {played:,} games"
            break
        widths = [c.interval(z)[2] - c.interval(z)[1] for c in alive]
        if max(widths) < precision:
            stopped = (f"the {len(alive)} candidates left are each known within {100 * precision:.1f} points "
                       f"after {played:,} games, and cannot be told apart")
            break
    return Result(state, z, looks, stopped, precision)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def table(result: Result) -> TableData:
    z = result.z
    level = 1 - ALPHA / (len(result.candidates) * result.looks)
    t = TableData("candidates ranked by how close the village's win rate is to 50%",
                  ["rank", "candidate", "games", "village win rate", "interval", "from 50%", "verdict"], left=2,
                  note=f"successive elimination; intervals: Wilson at {100 * level:.3f}% (Bonferroni over "
                       f"{len(result.candidates)} candidates × {result.looks} looks), so all hold together at 95%")
    for rank, c in enumerate(result.ranked(), start=1):
        p, lo, hi = c.interval(z)
        t.rows.append([str(rank), c.variant.name, f"{c.stats.games:,}", _pct(p), f"{_pct(lo)} – {_pct(hi)}",
                       f"{100 * abs(p - 0.5):.1f} pts", verdict(result, c)])
    return t


def verdict(result: Result, c: Candidate) -> str:
    leader = result.ranked()[0]
    if c.eliminated_at is not None:
        return f"out after {c.eliminated_at:,} games"
    if c is leader:
        return "closest" if len(contenders(result)) == 1 else "closest so far"
    return "in contention"


def contenders(result: Result) -> list[Candidate]:
    return [c for c in result.candidates if c.eliminated_at is None]


def findings(result: Result) -> list[str]:
    """The verdicts in words: which differences are real, which are not."""
    out = []
    alive = contenders(result)
    names = ", ".join(c.variant.name for c in alive)
    if len(alive) == 1:
        out.append(f"{names} comes closest to 50%: every other candidate is farther, a real difference.")
    else:
        out.append(f"in contention: {names}; the games cannot tell which of them is closest to 50% "
                   "(no real difference between them).")
    for c in result.candidates:
        if c.eliminated_at is not None:
            out.append(f"{c.variant.name} is farther from 50% than {c.eliminated_by} (a real difference, seen after "
                       f"{c.eliminated_at:,} games).")
    for c in result.candidates:
        out.append(f"{c.variant.name}: {deck_label(c.variant.config)}")
    return out


def document(result: Result) -> dict[str, Any]:
    z = result.z
    return {"team": TEAM, "stopped": result.stopped, "precision": result.precision, "z": z, "looks": result.looks,
            "method": "successive elimination with Wilson intervals, Bonferroni-corrected over candidates and looks "
                      "(simultaneous 95%)",
            "ranking": [{"rank": k, "name": c.variant.name, "config": c.variant.config.describe(),
                         "games": c.stats.games, "rate": c.interval(z)[0], "ci": list(c.interval(z)[1:]),
                         "distance": c.distance(z)[0], "eliminated_after": c.eliminated_at,
                         "eliminated_by": c.eliminated_by, "stats": c.stats.as_dict()}
                        for k, c in enumerate(result.ranked(), start=1)]}


def csv_rows(doc: dict[str, Any]) -> list[list[Any]]:
    rows: list[list[Any]] = [["rank", "candidate", "games", "village_rate", "ci_low", "ci_high", "distance",
                              "eliminated_after", "eliminated_by"]]
    for r in doc["ranking"]:
        rows.append([r["rank"], r["name"], r["games"], r["rate"], r["ci"][0], r["ci"][1], r["distance"],
                     r["eliminated_after"] or "", r["eliminated_by"] or ""])
    return rows


def figure(result: Result, heading: str) -> Any:
    """The candidates in the order given (not by rank: the rows stay put), 50% line, eliminated ones in grey."""
    import textwrap

    from werewolf.sim.report import breakable, pyplot

    plt = pyplot()
    cands = result.candidates
    labels = []
    for c in cands:  # the candidate's name over its cards, each wrapped, never cut
        cards = deck_label(c.variant.config)
        lines = textwrap.wrap(c.variant.name, 34)
        if cards != c.variant.name:
            lines += textwrap.wrap(breakable(cards), 40)
        labels.append("\n".join(lines))
    height = 1.4 + 0.45 * len(cands) + 0.2 * sum(label.count("\n") for label in labels)
    fig, ax = plt.subplots(figsize=(11, max(3.4, height)))
    rate_bars(ax, labels, [c.interval(result.z) for c in cands],
              ["#bbbbbb" if c.eliminated_at is not None else "#2166ac" for c in cands],
              "village win rate (%), bars: simultaneous 95% interval; grey: eliminated")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(title(heading, 100), fontsize=10)
    fig.tight_layout()
    return fig
