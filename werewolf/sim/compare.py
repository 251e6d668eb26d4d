"""`werewolf compare`: several decks or option sets on the same seeds, and what differs between them.

Every variant plays game ``i`` from the same seed (``game_seed(seed, i)``), so the
differences against the first variant are paired: a variant that changes nothing
plays the very same games, and a small change shows with far fewer games than two
separate runs would need. Decks are put in the order that pairs them best with the
first's (``variants.normalised``): the same cards in another order deal the same games.

The differences (every variant but the first, every team shown) are tested together
by Holm's step-down procedure, each with Newcombe's interval for paired proportions
(``paired.newcombe_paired``) at the level Holm tests it at, and its p-value that
interval's inverse: a difference is "shown" when its interval excludes 0, and all
the verdicts together are wrong with at most 5% probability; "not shown: could not
tell apart" is no proof that there is no difference.

``--precision W`` plays batches of games until every difference's interval is
narrower than ``W``, or ``--max-games`` (each variant's own win rate is not waited
for: the differences are what a comparison is for). Stopping on an interval's width,
not on its position, keeps the intervals honest. ``mix``: several kinds of bots, game
``i`` played by the (i mod K)-th in every variant, each difference also shown per kind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Any

from werewolf.core.errors import SetupError
from werewolf.roles import ROLES
from werewolf.sim import check
from werewolf.sim.backends import Session
from werewolf.sim.config import BotSpec, SimConfig
from werewolf.sim.paired import Paired, holm, mixed_chunk, newcombe_p, newcombe_paired
from werewolf.sim.report import TEAM_COLOURS, TableData, agents_note, deck_label, options_label, rate_bars, title
from werewolf.sim.stats import team_order, wilson
from werewolf.sim.variants import (
    Variant,
    batches,
    bots_label,
    duplicates,
    normalised,
    parse_options,
    with_bots,
)

VARIANT_KEYS = ("name", "deck", "options", "players")
_KEY_START = re.compile(r";\s*(?=(?:" + "|".join(VARIANT_KEYS) + r")\s*=)")


# -- what to compare -----------------------------------------------------------------
def parse_variant(spec: str) -> dict[str, str]:
    """``deck=c12_bomber;options={"sheriff": false};name=no sheriff`` -> its keys (``;`` inside JSON is kept)."""
    out: dict[str, str] = {}
    for part in _KEY_START.split(spec.strip()):
        if not part.strip():
            continue
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in VARIANT_KEYS:
            raise SetupError(f"bad --variant {spec!r}: write key=value pairs separated by ';' "
                             f"(keys: {', '.join(VARIANT_KEYS)})")
        if key in out:
            raise SetupError(f"bad --variant {spec!r}: {key} is given twice")
        out[key] = value.strip()
    if not out:
        raise SetupError("an empty --variant: give at least one of deck=, options=, players=")
    return out


def make_variants(base: SimConfig, decks: Sequence[str], options: Sequence[str], specs: Sequence[str]
                  ) -> list[Variant]:
    """The variants of a comparison, the first being the baseline the others are measured against.

    ``--variant`` specs each name one variant (keys not given come from ``base``). Otherwise repeated
    ``--deck`` and ``--options`` give one variant per deck, per option set, or, both repeated, per pair
    (every deck with every option set, in that order).
    """
    from werewolf.play import parse_deck

    if specs and (len(decks) > 1 or len(options) > 1):
        raise SetupError("give the variants either with --variant, or with repeated --deck/--options, not both")
    rows: list[tuple[str | None, SimConfig]] = []
    if specs:
        for spec in specs:
            keys = parse_variant(spec)
            config = base
            if "deck" in keys:
                config = replace(config, deck=parse_deck(keys["deck"]))
            if "options" in keys:
                config = replace(config, options=parse_options(keys["options"], "options= in --variant"))
            if "players" in keys:
                if not keys["players"].isdigit():
                    raise SetupError(f"bad --variant {spec!r}: players= takes a whole number")
                config = replace(config, players=int(keys["players"]))
            rows.append((keys.get("name") or None, config))
    else:
        deck_list = [parse_deck(d) for d in decks] or [base.deck]
        option_list = [parse_options(o) for o in options] or [dict(base.options)]
        rows = [(None, replace(base, deck=d, options=o)) for d in deck_list for o in option_list]
    if len(rows) < 2:
        raise SetupError("compare needs at least two variants: repeat --deck or --options, or give --variant twice")
    for _, config in rows:
        check(replace(config, games=1))
    names = _names(rows)
    if len(set(names)) != len(names):
        raise SetupError(f"two variants have the same name ({', '.join(names)}): name them with name=")
    # the same cards in another order would be dealt otherwise, and lose the pairing: every deck is put in the
    # order that pairs it best with the first's
    configs = normalised([c for _, c in rows])
    return [Variant(n, c) for n, c in zip(names, configs)]


def _names(rows: list[tuple[str | None, SimConfig]]) -> list[str]:
    """A variant's own name, else what sets it apart: its deck, its options, its players."""
    decks = {repr(c.deck) for _, c in rows}
    opts = {json.dumps(dict(c.options), sort_keys=True) for _, c in rows}
    players = {c.players for _, c in rows}
    out = []
    for name, c in rows:
        if name:
            out.append(name)
            continue
        parts = []
        if len(decks) > 1:
            parts.append(c.deck if isinstance(c.deck, str) else deck_label(c))
        if len(opts) > 1:
            parts.append(options_label(c.options))
        if len(players) > 1:
            parts.append(f"{c.players} players")
        out.append(" · ".join(parts) or "(same setup)")
    return out


# -- playing -------------------------------------------------------------------------
LEVEL = 0.95  # the confidence of every statement a comparison makes, all of them together


@dataclass(frozen=True)
class Difference:
    """One variant against the first, for one team: the paired difference, its test and its interval."""

    k: int  # the variant's index
    team: str
    diff: float
    p: float  # the test of no difference (``paired.newcombe_p``: the inverse of the interval)
    p_holm: float  # the same, Holm-adjusted over every difference shown
    level: float  # the level Holm's procedure tests this difference at (1 - 5%/m, 1 - 5%/(m-1), ...)
    lo: float  # the interval at that level: it excludes 0 when the difference is shown (see ``shown``)
    hi: float

    @property
    def shown(self) -> bool:
        return self.p_holm < 1 - LEVEL


@dataclass
class Result:
    variants: list[Variant]
    paired: Paired  # every game, whichever bots played it
    stopped: str  # why the run stopped
    precision: float | None = None
    mix: tuple[BotSpec, ...] = ()  # the bots, game i played by mix[i % len(mix)]; () for the variants' own
    by_kind: dict[str, Paired] = field(default_factory=dict)  # the games of each kind of bots, when mixed

    @property
    def games(self) -> int:
        return self.paired.games

    def teams(self) -> list[str]:
        """The teams whose numbers are shown: every team that won in some variant; the village alone when the
        only teams are the village and the wolves and no game was drawn (the wolves' numbers are its mirror)."""
        teams: set[str] = set()
        draws = 0
        for s in self.paired.stats:
            teams.update(s.wins)
            draws += s.draws
        if teams <= {"village", "wolves"} and not draws:
            return ["village"]
        return sorted(teams, key=team_order)

    def differences(self) -> list[Difference]:
        """Every variant against the first, for every team shown, tested all together by Holm's procedure.

        The smallest p-value is tested at 5%/m, the next at 5%/(m-1), and so on until one is not shown; each
        difference's interval is Newcombe's at the level it was tested at, so that the interval excludes 0 when
        the difference is shown (unless an earlier one was not), and all the verdicts together are wrong with
        at most 5% probability."""
        p = self.paired
        rows = []
        for k in range(1, len(self.variants)):
            for team in self.teams():
                table = p.table(k, team)
                rows.append((k, team, table, newcombe_p(*table)))
        adjusted = holm([r[3] for r in rows])
        m = len(rows)
        order = sorted(range(m), key=lambda i: rows[i][3])
        out: list[Difference | None] = [None] * m
        for rank, i in enumerate(order):
            k, team, table, pv = rows[i]
            level = 1 - (1 - LEVEL) / (m - rank)
            d, lo, hi = newcombe_paired(*table, z=NormalDist().inv_cdf(1 - (1 - level) / 2))
            out[i] = Difference(k, team, d, pv, adjusted[i], level, lo, hi)
        return [d for d in out if d is not None]

    def widest(self) -> float:
        """The widest interval of a difference (what a comparison is for; each win rate's own is not waited for)."""
        return max([0.0] + [d.hi - d.lo for d in self.differences()])

    def never_changed(self) -> list[str]:
        """Variants whose every game was identical, event for event, to the first variant's on the same seed."""
        p = self.paired
        return [v.name for k, v in enumerate(self.variants) if k and p.paired[k] and p.same[k] == p.paired[k]]

    def agents(self) -> str:
        """The agents the numbers were measured with."""
        if self.mix:
            return bots_label(self.mix)
        return self.variants[0].config.players_label()


def verdict(d: Difference) -> str:
    """The difference in words: what was shown, or plainly that it was not."""
    team = d.team
    if not d.shown:
        return f"not shown: could not tell apart ({_p(d.p_holm)}, Holm)"
    more = "more" if d.diff > 0 else "less"
    return f"shown: {team} win{'s' if not team.endswith('s') else ''} {more} ({_p(d.p_holm)}, Holm)"


def _p(p: float) -> str:
    return f"p = {p:.2g}" if p >= 1e-4 else "p < 0.0001"


def run(variants: list[Variant], *, games: int, precision: float | None, max_games: int, batch: int,
        session: Session, progress: Callable[[int], None] | None = None,
        on_batch: Callable[[int], None] | None = None, mix: Sequence[BotSpec] = ()) -> Result:
    """Play the variants on paired seeds: ``games`` games, or batches until ``precision`` (at most ``max_games``).

    ``mix``: several kinds of bots, game ``i`` of every variant played by ``mix[i % len(mix)]``."""
    kinds = tuple(mix) or (variants[0].config.bots,)
    if len(kinds) > 1:
        variants = [Variant(v.name, with_bots(v.config, kinds[0])) for v in variants]
    configs = tuple(v.config for v in variants)
    jobs = max(1, variants[0].config.jobs)
    paired = Paired(len(configs))
    result = Result(variants, paired, "", precision, tuple(mix) if len(kinds) > 1 else ())
    limit = max_games if precision is not None else games
    step = batch if precision is not None else games
    if len(kinds) > 1:  # whole rounds of the mix between two looks: every kind as often
        step = -(-step // len(kinds)) * len(kinds)
    for a, b in batches(limit, step):
        chunk = max(1, min(200, -(-(b - a) // (jobs * 4))))
        for _, parts in session.map(mixed_chunk, ((configs, kinds, x, y) for x, y in batches(b - a, chunk)
                                                  for x, y in [(a + x, a + y)])):
            for label, part in parts.items():
                paired.merge(part)
                if len(kinds) > 1:
                    result.by_kind.setdefault(label, Paired(len(configs))).merge(part)
                if progress is not None:
                    progress(part.games)
        if on_batch is not None:
            on_batch(paired.games)
        if precision is not None and result.widest() < precision:
            result.stopped = (f"every difference's interval narrower than {100 * precision:.1f} points after "
                              f"{paired.games:,} games")
            return result
    result.stopped = (f"--max-games {max_games:,} reached before every difference's interval was narrower than "
                      f"{100 * precision:.1f} points" if precision is not None else f"{games:,} games played")
    return result


# -- what it shows ---------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def tables(result: Result) -> list[TableData]:
    p = result.paired
    teams = result.teams()
    rates = TableData("win rates, same seeds for every variant", ["variant", "games"] + [
        f"{t} win rate [95% interval]" for t in teams] + ["games changed vs the first"], left=1,
        note="games changed: games not identical, event for event, to the first variant's game on the same seed")
    for k, v in enumerate(result.variants):
        s = p.stats[k]
        cells = []
        for team in teams:
            lo, hi = wilson(s.wins[team], s.games)
            cells.append(f"{_pct(s.wins[team] / s.games if s.games else 0)} [{_pct(lo)} – {_pct(hi)}]")
        changed = "(baseline)" if k == 0 else (f"{p.paired[k] - p.same[k]:,} of {p.paired[k]:,}")
        rates.rows.append([v.name, f"{s.games:,}", *cells, changed])
    diffs = differences_table(result)
    out = [rates, diffs]
    if result.by_kind:
        out.append(kinds_table(result))
    return [*out, role_table(result), power_table(result)]


def differences_table(result: Result) -> TableData:
    first = result.variants[0].name
    m = len(result.differences())
    alpha = f"{100 * (1 - LEVEL):.0f}%"
    if m > 1:
        how = (f"{m} differences tested together (Holm): the interval of each is Newcombe's for paired proportions "
               f"at the level Holm's procedure tests it at (the smallest p at {alpha}/{m}, the next at {alpha}/"
               f"{m - 1}, ...), so a difference is shown when its interval excludes 0, and all the verdicts "
               f"together are wrong with at most {alpha} probability")
    else:
        how = (f"Newcombe's interval for paired proportions at {100 * LEVEL:.0f}%: the difference is shown when it "
               "excludes 0")
    notes = [f"paired by seed; {how}; 'could not tell apart' is no proof that they are the same: more games may "
             "tell"]
    if result.teams() == ["village"]:
        notes.append("the wolves' difference is the same with the opposite sign (no draws, no third side)")
    diffs = TableData(f"difference against the first variant ({first}), paired by seed",
                      ["variant", "team", "difference (points)", "interval", "level", "verdict"], left=2,
                      note="; ".join(notes))
    for d in result.differences():
        diffs.rows.append([result.variants[d.k].name, d.team, _pts(d.diff), f"{_pts(d.lo)} to {_pts(d.hi)}",
                           f"{100 * d.level:.2f}%", verdict(d)])
    return diffs


def kinds_table(result: Result) -> TableData:
    """Each difference measured with each kind of bots apart: whether a finding holds whoever plays."""
    kinds = list(result.by_kind)
    table = TableData("difference against the first, by the bots that played (95% each)",
                      ["variant", "team", *kinds, "with every kind"], left=2,
                      note="the same seeds for every variant; game i played by the (i mod "
                           f"{len(kinds)})-th kind in every variant")
    for k in range(1, len(result.variants)):
        for team in result.teams():
            cells, signs = [], set()
            for label in kinds:
                d, lo, hi = result.by_kind[label].difference(k, team)
                cells.append(f"{_pts(d)} [{_pts(lo)}, {_pts(hi)}]")
                signs.add(0 if lo <= 0 <= hi else (1 if d > 0 else -1))
            if signs == {0}:
                agree = "not shown with any kind"
            elif len(signs) == 1:
                agree = "shown with every kind, the same way"
            elif signs >= {1, -1}:
                agree = "the kinds disagree: it depends on the bots"
            else:
                agree = "shown with some kinds only"
            table.rows.append([result.variants[k].name, team, *cells, agree])
    return table


def role_table(result: Result) -> TableData:
    names = [v.name for v in result.variants]
    table = TableData("each role's win rate, by variant [95% interval, by game]", ["card dealt", *names],
                      note="the intervals count games, not seats: the seats dealt one card in a game win or lose "
                           "together")
    roles: dict[str, None] = {}
    for s in result.paired.stats:
        roles.update(dict.fromkeys(s.role_seats))
    from werewolf.sim.report import _role_order

    for role in _role_order(result.variants[0].config, list(roles)):
        cells = []
        for s in result.paired.stats:
            n = s.role_seats[role]
            if not n:
                cells.append("—")
                continue
            lo, hi, _ = s.role_interval(role)
            cells.append(f"{_pct(s.role_wins[role] / n)} [{_pct(lo)} – {_pct(hi)}] of {n:,} seats")
        table.rows.append([role, *cells])
    return table


def power_table(result: Result) -> TableData:
    names = [v.name for v in result.variants]
    table = TableData("powers and choices used, per game, by variant", ["power / choice", *names])
    powers = sorted({name for s in result.paired.stats for name in s.powers})
    for name in powers:
        table.rows.append([name, *(f"{s.powers[name] / s.games:.2f}" if s.games else "—"
                                   for s in result.paired.stats)])
    if not powers:
        table.rows.append(["(none used)", *("" for _ in names)])
    return table


def related_powers(option: str, powers: Sequence[str]) -> list[str]:
    """The powers an option touches, by the roles its name mentions (``witch_self_save`` -> ``witch_*``)."""
    words = option.split("_")
    stems = {"_".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)}
    prefixes = [r + "_" for r in ROLES if r in stems]
    if "sheriff" in stems or "badge" in stems:
        prefixes += ["sheriff_", "badge_"]
    if "self_destruct" in option:
        return [p for p in powers if p.endswith("_self_destruct")]
    return [p for p in powers if any(p.startswith(x) for x in prefixes) or p == option]


def warnings(result: Result) -> list[str]:
    """What the designer must not miss: a variant that never changed a game; how often a studied option's powers
    came into play."""
    out = []
    p = result.paired
    first = result.variants[0]
    for a, b in duplicates(result.variants):
        out.append(f"the same setup twice: {a} and {b} are the same deck, options, players and bots (after putting "
                   "the decks in one order), so they play the very same games and their difference is 0 by "
                   "construction")
    for name in result.never_changed():
        k = [v.name for v in result.variants].index(name)
        out.append(f"never changed a game: every one of {name}'s {p.paired[k]:,} games was identical, event for "
                   f"event, to {first.name}'s game on the same seed; what it changes never came into play "
                   "(with these bots and this deck), so its numbers equal the first's by construction")
    powers = sorted({x for s in p.stats for x in s.powers})
    for v in result.variants[1:]:
        changed = sorted(key for key in set(v.config.options) | set(first.config.options)
                         if v.config.options.get(key) != first.config.options.get(key))
        for option in changed:
            touched = related_powers(option, powers)
            if not touched:
                continue
            uses = "; ".join(f"{x}: " + " / ".join(f"{s.power_games[x]:,}" for s in p.stats) for x in touched)
            out.append(f"{option} ({v.name} against {first.name}): games where the powers it touches were used, "
                       f"by variant: {uses}")
    return list(dict.fromkeys(out))


def document(result: Result, elapsed: float | None = None, startup: float = 0.0) -> dict[str, Any]:
    p = result.paired
    teams = result.teams()
    doc: dict[str, Any] = {
        "games": result.games, "stopped": result.stopped, "precision": result.precision, "teams": teams,
        "variants": [{"name": v.name, "config": v.config.describe(), "stats": p.stats[k].as_dict(),
                      "games_paired": p.paired[k], "games_identical_to_first": p.same[k]}
                     for k, v in enumerate(result.variants)],
        "differences": [],
        "never_changed_a_game": result.never_changed(),
        "same_setup": [list(pair) for pair in duplicates(result.variants)],
        "warnings": warnings(result),
        "agents": result.agents(),
        "agents_note": agents_note(result.agents()),
        "method": "paired by seed; differences against the first variant with Newcombe's (1998) interval for "
                  "paired proportions (method 10), tested together by Holm's procedure (5% in all): each "
                  "interval at the level Holm tests it at, its p-value the interval's inverse; win rates with "
                  "Wilson intervals (95%); per-role intervals clustered by game",
    }
    for d in result.differences():
        v = result.variants[d.k]
        both, only_here, only_first, neither = p.table(d.k, d.team)
        doc["differences"].append({"variant": v.name, "team": d.team, "difference": d.diff,
                                   "interval": [d.lo, d.hi], "interval_level": d.level, "p": d.p,
                                   "p_holm": d.p_holm, "shown": d.shown,
                                   "verdict": verdict(d),
                                   "pairs": {"both": both, "this_only": only_here, "first_only": only_first,
                                             "neither": neither}})
    if result.by_kind:
        doc["by_agents"] = {label: {"variants": [{"name": v.name, "stats": part.stats[k].as_dict()}
                                                 for k, v in enumerate(result.variants)],
                                    "differences": [{"variant": v.name, "team": team,
                                                     **dict(zip(("difference", "low", "high"),
                                                                part.difference(k, team)))}
                                                    for k, v in enumerate(result.variants) if k
                                                    for team in teams]}
                            for label, part in result.by_kind.items()}
    if elapsed is not None:
        from werewolf.core import engine

        doc["timing"] = {"seconds": elapsed, "startup_seconds": startup, "engine": engine(),
                         "games_per_second": result.games * len(result.variants) / elapsed if elapsed > 0 else None}
    return doc


def csv_rows(doc: Mapping[str, Any]) -> list[list[Any]]:
    rows: list[list[Any]] = [["section", "variant", "team", "count", "rate", "ci_low", "ci_high"]]
    for v in doc["variants"]:
        st = v["stats"]
        rows.append(["games", v["name"], "", st["games"], "", "", ""])
        for team, r in st["teams"].items():
            rows.append(["win", v["name"], team, r["wins"], r["rate"], r["ci95"][0], r["ci95"][1]])
        rows.append(["identical_to_first", v["name"], "", v["games_identical_to_first"],
                     v["games_identical_to_first"] / v["games_paired"] if v["games_paired"] else "", "", ""])
        for role, r in st["roles"].items():
            rows.append(["role_win", v["name"], role, r["wins"], r["win_rate"], r["ci95"][0], r["ci95"][1]])
        for name, r in st["powers"].items():
            rows.append(["power", v["name"], name, r["times"], r["per_game"], "", ""])
    for d in doc["differences"]:
        rows.append(["difference", d["variant"], d["team"], "", d["difference"], d["interval"][0],
                     d["interval"][1]])
    rows.append(["agents", doc["agents"], "", "", "", "", ""])
    return rows


def figure(result: Result, heading: str) -> Any:
    """Each variant's win rate (50% line) and its difference against the first (0 line), variants in the order
    given, top to bottom."""
    import textwrap

    from werewolf.sim.report import breakable, pyplot

    plt = pyplot()
    p = result.paired
    team = result.teams()[0]
    labels = ["\n".join(textwrap.wrap(breakable(v.name), 34)) or "?" for v in result.variants]
    rows = []
    for s in p.stats:
        lo, hi = wilson(s.wins[team], s.games)
        rows.append((s.wins[team] / s.games if s.games else 0.0, lo, hi))
    height = 1.6 + 0.75 * len(labels) + 0.25 * sum(label.count("\n") for label in labels)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, max(3.6, height)), sharey=True)
    rate_bars(ax1, labels, rows, [TEAM_COLOURS.get(team, "#5aae61")] * len(labels),
              f"{team} win rate (%), bars: 95% Wilson interval")
    ax1.legend(loc="lower right", fontsize=8)
    ax1.set_title(f"{team} win rate")
    y = list(range(len(labels)))[::-1]
    diffs = [(0.0, 0.0, 0.0)] + [(d.diff, d.lo, d.hi) for d in result.differences() if d.team == team]
    ax2.errorbar([100 * d for d, _, _ in diffs], y,
                 xerr=[[100 * (d - lo) for d, lo, _ in diffs], [100 * (hi - d) for d, _, hi in diffs]],
                 fmt="o", color="#333333", capsize=6)
    ax2.axvline(0, color="black", linestyle=":", linewidth=1.2)
    span = max([0.05] + [max(abs(lo), abs(hi)) for _, lo, hi in diffs]) * 100 * 1.15
    ax2.set_xlim(-span, span)
    for yi, (d, lo, hi) in zip(y[1:], diffs[1:]):
        ax2.annotate(f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]", (100 * d, yi), textcoords="offset points",
                     xytext=(0, 9), ha="center", fontsize=9)
    ax2.set_xlabel("difference against the first variant (points), bars: paired interval at the level Holm's "
                   "procedure tests it at")
    ax2.set_title("difference against the first")
    ax2.grid(axis="x", alpha=0.3)
    fig.suptitle(title(heading, 120), fontsize=11)
    fig.tight_layout()
    return fig
