"""`werewolf balance`: find a deck whose village wins within ±X points of 50%, and say plainly what was shown.

Candidates are decks: the base deck, one per ``--swap`` of it, each ``--candidate``, and, with ``--search``,
decks the search makes from the most promising one so far: a card swapped for a role of the pool, a villager
or a werewolf added or taken out (so over roles and player counts). Every candidate plays game ``i`` from the
same seed (common random numbers; decks put in the order that pairs them best), so any two candidates are
compared game by game.

Each candidate plays in looks of doubling size (``--batch``, twice that, ...) up to ``--max-games``. Its
village win rate has a Wilson interval at a level Bonferroni-corrected over every candidate the run may try
and every look, so that everything the run states holds together with the confidence asked. After each look:

- a candidate whose interval lies within 50% ± X is **found** (within ±X of 50%, shown);
- one whose interval lies wholly outside 50% ± X is **off by more than X** (shown) and plays no more;
- one whose paired difference with another candidate on the same side of 50% shows it farther from 50%
  plays no more either (the pairing tells close decks apart with far fewer games than two separate runs);
- the rest are **not settled**: the games could not tell, which is no proof of anything.

The run stops at the first look that finds a candidate (every candidate found at that look is reported,
closest first), or when no candidate is left to play and the search has nothing more to try ("not found
within budget", with what was shown about each candidate).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import zip_longest
from statistics import NormalDist
from typing import Any

from werewolf.core.errors import SetupError, WerewolfError
from werewolf.roles import ROLES
from werewolf.sim import check
from werewolf.sim.backends import Session
from werewolf.sim.config import BotSpec, SimConfig
from werewolf.sim.paired import newcombe_paired, outcome_chunk, pair_table
from werewolf.sim.report import TableData, deck_label, deck_roles, rate_bars, title
from werewolf.sim.stats import Stats, wilson
from werewolf.sim.variants import Variant, aligned, bots_label, normalised

TEAM = "village"
# The roles the search may bring into a deck, by default (those the ruleset refuses are left out).
POOL = ("seer", "witch", "hunter", "guard", "idiot", "knight", "elder")
NEIGHBOURS = 6  # candidates the search makes from one deck at a time


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


def swap_name(spec: str) -> str:
    out_role, _, in_role = (s.strip() for s in spec.partition(":"))
    if not out_role:
        return f"add {in_role}"
    if not in_role:
        return f"remove {out_role}"
    return f"swap {out_role} → {in_role}"


def candidates(base: SimConfig, swaps: Sequence[str], decks: Sequence[str], *, search: bool = False
               ) -> list[Variant]:
    """The base deck (when there are swaps or a search), one candidate per swap of it, and each deck given."""
    from werewolf.play import parse_deck

    out: list[Variant] = []
    if swaps or search:
        roles = deck_roles(base)
        if roles is None:
            raise SetupError("--swap and --search need a deck whose cards are known: give --deck or --players")
        out.append(Variant(base.deck if isinstance(base.deck, str) else deck_label(base), base))
        for spec in swaps:
            out.append(Variant(swap_name(spec), replace(base, deck=swap(roles, spec), players=None)))
    elif base.deck is not None:
        out.append(Variant(base.deck if isinstance(base.deck, str) else deck_label(base), base))
    for d in decks:
        config = replace(base, deck=parse_deck(d))
        out.append(Variant(d if "," not in d else deck_label(config), config))
    if len(out) < 2 and not search:
        raise SetupError("balance needs at least two candidates: --deck D with --swap A:B, --candidate DECK twice, "
                         "or --search")
    names = [v.name for v in out]
    if len(set(names)) != len(names):
        raise SetupError(f"a candidate is given twice ({', '.join(names)})")
    for v in out:
        check(replace(v.config, games=1))
    configs = normalised([v.config for v in out])
    return [Variant(v.name, c) for v, c in zip(out, configs)]


def neighbours(variant: Variant, rate: float, pool: Sequence[str], tried: set[tuple[str, ...]]) -> list[Variant]:
    """Decks one step from ``variant``'s towards 50%: when the village wins too little, a villager's card for a
    role of the pool, a werewolf out, a villager in; too much, the reverse. Decks already tried are left out."""
    cards = deck_roles(variant.config)
    if cards is None:
        return []
    have = Counter(cards)
    if rate < 0.5:  # the village needs help
        swaps = [f"villager:{r}" for r in pool if r not in have and have["villager"]] + ["werewolf:villager"]
        counts = [":villager", "werewolf:"]  # a player more, a player less
    else:
        swaps = [f"{r}:villager" for r in pool if have[r]] + ["villager:werewolf"]
        counts = [":werewolf", "villager:"]
    # the roles and the player count in turn: a few neighbours of each kind even when only a few are kept
    specs = [x for pair in zip_longest(counts, swaps) for x in pair if x is not None]
    out = []
    for spec in specs:
        try:
            deck = swap(cards, spec)
            config = replace(variant.config, deck=deck, players=None)
            key = tuple(sorted(deck))
            if key in tried or not deck.count("werewolf"):
                continue
            check(replace(config, games=1))
        except WerewolfError:  # a deck the ruleset refuses (a role it lacks, too few players): not a candidate
            continue
        tried.add(key)
        out.append(Variant(f"{variant.name} · {swap_name(spec)}", config))
        if len(out) >= NEIGHBOURS:
            break
    return out


@dataclass
class Candidate:
    variant: Variant
    stats: Stats = field(default_factory=Stats)
    bits: bytearray = field(default_factory=bytearray)  # per game: 1 the village won, 0 not, 2 failed
    looks: int = 0
    status: str = "not settled"  # found | off | farther | not settled
    reason: str = ""  # what was shown, in words
    verdict: str = "not settled"  # the same, in a few words (the table's)
    stopped_at: int | None = None  # games played when it stopped playing
    expanded: bool = False  # the search made candidates from it

    @property
    def games(self) -> int:
        return self.stats.games

    def rate(self) -> float:
        s = self.stats
        return s.wins[TEAM] / s.games if s.games else 0.5

    def interval(self, z: float) -> tuple[float, float]:
        return wilson(self.stats.wins[TEAM], self.stats.games, z)


@dataclass
class Result:
    candidates: list[Candidate]
    z: float
    level: float  # of each interval (Bonferroni over candidates and looks)
    confidence: float  # of everything stated, together
    within: float
    looks: int
    budget: int  # candidates the run may try
    stopped: str
    found: list[Candidate]
    mix: tuple[BotSpec, ...] = ()

    def ranked(self) -> list[Candidate]:
        """Found first (closest first), then not settled, then those shown farther or off (closest first)."""
        order = {"found": 0, "not settled": 1, "farther": 2, "off": 3}
        return sorted(self.candidates, key=lambda c: (order[c.status], abs(c.rate() - 0.5)))

    def agents(self) -> str:
        return bots_label(self.mix) if self.mix else self.candidates[0].variant.config.players_label()


def looks_for(max_games: int, batch: int) -> list[int]:
    """The games a candidate has played at each look: batch, twice that, ... up to max_games."""
    out = []
    n = batch
    while n < max_games:
        out.append(n)
        n *= 2
    out.append(max_games)
    return out


def run(cands: list[Variant], *, within: float, confidence: float, max_games: int, batch: int, session: Session,
        search: bool = False, max_candidates: int = 0, pool: Sequence[str] = POOL, mix: Sequence[BotSpec] = (),
        progress: Callable[[int], None] | None = None) -> Result:
    """Play the candidates (and, with ``search``, those it makes) until one is shown within ±``within`` of 50%."""
    schedule = looks_for(max_games, batch)
    budget = max(len(cands), max_candidates if search else len(cands))
    alpha = 1 - confidence
    level = 1 - alpha / (budget * len(schedule))
    z = NormalDist().inv_cdf(1 - (1 - level) / 2)
    kinds = tuple(mix) if len(mix) > 1 else ()
    state = [Candidate(v) for v in cands]
    tried = {tuple(sorted(deck_roles(v.config) or ())) for v in cands}
    jobs = max(1, cands[0].config.jobs)
    found: list[Candidate] = []
    while True:
        active = [c for c in state if c.status == "not settled" and c.looks < len(schedule)]
        if not active:
            more = _expand(state, pool, tried, budget) if search else []
            if not more:
                break
            state.extend(more)
            continue
        _play(active, schedule, kinds, jobs, session, progress)
        _settle(state, z, within)
        found = [c for c in state if c.status == "found"]
        if found:
            break
    tried_n = len(state)
    if found:
        found.sort(key=lambda c: abs(c.rate() - 0.5))
        stopped = (f"found: {found[0].variant.name} is within ±{100 * within:.1f} points of 50% at "
                   f"{100 * confidence:.0f}% confidence, after {found[0].games:,} games ({tried_n} candidate"
                   f"{'s' if tried_n != 1 else ''} tried)")
    else:
        stopped = (f"not found within budget: no candidate of the {tried_n} tried was shown within "
                   f"±{100 * within:.1f} points of 50% in at most {max_games:,} games each"
                   + (f" (the search may try {budget})" if search else ""))
    for c in state:
        if c.stopped_at is None:
            c.stopped_at = c.games
    return Result(state, z, level, confidence, within, len(schedule), budget, stopped, found, kinds)


def _play(active: list[Candidate], schedule: list[int], kinds: tuple[BotSpec, ...], jobs: int, session: Session,
          progress: Callable[[int], None] | None) -> None:
    """Each active candidate plays on to its next look; those at the same games play together (the same seeds)."""
    groups: dict[tuple[int, int], list[Candidate]] = {}
    for c in active:
        groups.setdefault((c.games + c.stats.errors, schedule[c.looks]), []).append(c)
    for (a, b), group in groups.items():
        configs = tuple(c.variant.config for c in group)
        chunk = max(1, min(200, -(-(b - a) // (jobs * 4))))
        parts = sorted(session.map(outcome_chunk, ((configs, kinds, x, min(x + chunk, b))
                                                   for x in range(a, b, chunk))), key=lambda kv: kv[0])
        for _, part in parts:  # in the games' order: the bytes line up with the game indexes
            for c, (stats, bits) in zip(group, part):
                c.stats.merge(stats)
                c.bits.extend(bits)
            if progress is not None:
                progress(sum(s.games + s.errors for s, _ in part))
        for c in group:
            c.looks += 1


def _settle(state: list[Candidate], z: float, within: float) -> None:
    """What each candidate's games now show (see the module docstring)."""
    lo_band, hi_band = 0.5 - within, 0.5 + within
    for c in state:
        if c.status != "not settled" or not c.games:
            continue
        lo, hi = c.interval(z)
        if lo_band <= lo and hi <= hi_band:
            c.status, c.stopped_at = "found", c.games
            c.reason = f"within ±{100 * within:.1f} points of 50%: {_pct(lo)} – {_pct(hi)}"
            c.verdict = f"found: within ±{100 * within:.1f}"
        elif hi < lo_band or lo > hi_band:
            c.status, c.stopped_at = "off", c.games
            more = "less" if hi < lo_band else "more"
            c.reason = (f"off 50% by more than {100 * within:.1f} points: the village wins {more} "
                        f"({_pct(lo)} – {_pct(hi)})")
            c.verdict = f"off by > {100 * within:.1f}: village wins {more}"
    # paired: a candidate shown farther from 50% than another on the same side (both intervals beyond 50%)
    live = [c for c in state if c.status in ("not settled", "found") and c.games]
    for c in live:
        if c.status != "not settled":
            continue
        side = _side(*c.interval(z))
        if not side:
            continue
        for other in live:
            # only beside one shown on the same side of 50% does lower (or higher) mean farther
            if other is c or _side(*other.interval(z)) != side:
                continue
            d, dlo, dhi = newcombe_paired(*pair_table(bytes(c.bits), bytes(other.bits)), z=z)
            if (side < 0 and dhi < 0) or (side > 0 and dlo > 0):
                c.status, c.stopped_at = "farther", c.games
                c.reason = (f"farther from 50% than {other.variant.name}, paired game by game: "
                            f"{100 * d:+.1f} points [{100 * dlo:+.1f}, {100 * dhi:+.1f}]")
                c.verdict = f"farther than {other.variant.name} (paired)"
                break


def _side(lo: float, hi: float) -> int:
    """-1: shown below 50%, 1: shown above, 0: not shown either way."""
    return -1 if hi < 0.5 else (1 if lo > 0.5 else 0)


def _expand(state: list[Candidate], pool: Sequence[str], tried: set[tuple[str, ...]], budget: int
            ) -> list[Candidate]:
    """The search's next candidates: the neighbours of the most promising deck not yet expanded."""
    room = budget - len(state)
    if room <= 0:
        return []
    order = sorted((c for c in state if not c.expanded and c.games and c.status != "farther"),
                   key=lambda c: abs(c.rate() - 0.5))
    for c in order:
        c.expanded = True
        more = neighbours(c.variant, c.rate(), pool, tried)[:room]
        if more:
            base = state[0].variant.config
            cards = deck_roles(base) or ()
            out = []
            for v in more:
                deck = deck_roles(v.config)
                config = replace(v.config, deck=aligned(cards, deck)) if deck else v.config
                out.append(Candidate(Variant(v.name, config)))
            return out
    return []


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def table(result: Result) -> TableData:
    t = TableData(f"candidates: is the village's win rate within ±{100 * result.within:.1f} points of 50%?",
                  ["rank", "candidate", "games", "village win rate", "interval", "measurably off 50%?", "verdict"],
                  left=2, note=note(result))
    for rank, c in enumerate(result.ranked(), start=1):
        lo, hi = c.interval(result.z)
        off = ("yes: less" if hi < 0.5 else "yes: more" if lo > 0.5 else "not shown") if c.games else "—"
        t.rows.append([str(rank), c.variant.name, f"{c.games:,}", _pct(c.rate()), f"{_pct(lo)} – {_pct(hi)}", off,
                       c.verdict])
    return t


def note(result: Result) -> str:
    return (f"intervals: Wilson at {100 * result.level:.3f}% each (Bonferroni over {result.budget} candidates × "
            f"{result.looks} looks), so that everything stated holds together at {100 * result.confidence:.0f}%; "
            "'not settled' and 'not shown' mean the games could not tell, which is no proof either way; paired "
            "comparisons use the games both candidates played on the same seeds (Newcombe's interval)")


def findings(result: Result) -> list[str]:
    """What was shown and what was not, in words."""
    out = [result.stopped + "."]
    for c in result.found:
        out.append(f"shown: {c.variant.name} ({deck_label(c.variant.config)}) {c.reason}.")
    for c in result.candidates:
        if c.status in ("off", "farther"):
            out.append(f"shown: {c.variant.name} is {c.reason}.")
    unsettled = [c for c in result.candidates if c.status == "not settled"]
    if unsettled:
        out.append(f"within ±{100 * result.within:.1f} points or not: not shown either way (the games could not "
                   "tell): " + ", ".join(
            f"{c.variant.name} ({_pct(c.rate())} in {c.games:,} games)" for c in unsettled) + ".")
    off = [c for c in result.candidates if c.games and (c.interval(result.z)[1] < 0.5 or
                                                        c.interval(result.z)[0] > 0.5)]
    if off:
        out.append("measurably off 50% (whatever the tolerance): " + ", ".join(
            f"{c.variant.name} (the village wins {'less' if c.interval(result.z)[1] < 0.5 else 'more'})"
            for c in off) + ".")
    return out


def document(result: Result) -> dict[str, Any]:
    z = result.z
    return {"team": TEAM, "stopped": result.stopped, "found": [c.variant.name for c in result.found],
            "within": result.within, "confidence": result.confidence, "level_each": result.level, "z": z,
            "looks": result.looks, "budget": result.budget, "agents": result.agents(),
            "method": "common random numbers (game i of every candidate from the same seed); Wilson intervals, "
                      "Bonferroni-corrected over the candidates the run may try and the looks; a candidate is "
                      "found when its interval lies within 50% ± within, off when wholly outside, farther when "
                      "its paired difference (Newcombe) with a candidate on the same side of 50% excludes 0",
            "ranking": [{"rank": k, "name": c.variant.name, "config": c.variant.config.describe(),
                         "games": c.games, "rate": c.rate(), "ci": list(c.interval(z)), "status": c.status,
                         "verdict": c.verdict, "shown": c.reason, "distance": abs(c.rate() - 0.5),
                         "stopped_after": c.stopped_at,
                         "stats": c.stats.as_dict()}
                        for k, c in enumerate(result.ranked(), start=1)]}


def csv_rows(doc: dict[str, Any]) -> list[list[Any]]:
    rows: list[list[Any]] = [["rank", "candidate", "games", "village_rate", "ci_low", "ci_high", "distance",
                              "status", "shown", "agents"]]
    for r in doc["ranking"]:
        rows.append([r["rank"], r["name"], r["games"], r["rate"], r["ci"][0], r["ci"][1], r["distance"],
                     r["status"], r["shown"], doc["agents"]])
    return rows


def figure(result: Result, heading: str) -> Any:
    """The candidates in the order tried (the rows stay put), the 50% line and the ±X band."""
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
    colours = {"found": "#1b7837", "not settled": "#2166ac", "off": "#bbbbbb", "farther": "#bbbbbb"}
    rate_bars(ax, labels, [(c.rate(), *c.interval(result.z)) for c in cands], [colours[c.status] for c in cands],
              f"village win rate (%), bars: intervals holding together at {100 * result.confidence:.0f}%; green: "
              "found, grey: shown off or farther")
    ax.axvspan(100 * (0.5 - result.within), 100 * (0.5 + result.within), color="#1b7837", alpha=0.08)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(title(heading, 100), fontsize=10)
    fig.tight_layout()
    return fig
