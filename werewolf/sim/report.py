"""What a simulation shows: the table, the JSON and CSV files, the chart."""

from __future__ import annotations

import csv
import json
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from werewolf.core import engine
from werewolf.core.errors import SetupError
from werewolf.engine_origin import shadowed
from werewolf.sim.config import SimConfig
from werewolf.sim.stats import Stats

OUT_FORMATS = (".json", ".csv")

# The house names of the rules people ask about, beside the engine's names.
ALSO_KNOWN_AS = {
    "same_guard_save_dies": "同守同救",
    "wolf_kill_first": "狼刀在先",
    "pk": "PK",
    "sheriff_pk": "警長 PK",
    "election_postponed": "警長競選延後",
    "self_destruct": "自爆",
    "duel": "決鬥",
    "idiot_reveal": "白癡翻牌",
    "shot_on_death": "開槍",
}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


@dataclass
class TableData:
    """A table as plain text cells: printed with rich, written into the HTML report."""

    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""  # a line under the table
    left: int = 1  # how many leading columns are labels (left-aligned); the rest are numbers

    def rich(self) -> Table:
        table = Table(title=self.title, title_justify="left", caption=self.note or None, caption_justify="left")
        for k, col in enumerate(self.columns):
            table.add_column(col, justify="left" if k < self.left else "right")
        for row in self.rows:
            table.add_row(*row)
        return table


def document(config: SimConfig, stats: Stats, elapsed: float | None = None, startup: float = 0.0) -> dict[str, Any]:
    """The JSON document of a run: the setup, the statistics, and (apart) the timing."""
    doc: dict[str, Any] = {"config": config.describe(), "agents": config.players_label(),
                           "agents_note": agents_note(config.players_label()), "stats": stats.as_dict()}
    if elapsed is not None:
        doc["timing"] = {"seconds": elapsed, "startup_seconds": startup,
                         "games_per_second": stats.games / elapsed if elapsed > 0 else None, "engine": engine()}
    return doc


def rate_note(config: SimConfig, elapsed: float, startup: float, games: int) -> str:
    """``12.0 s (830 games/s, ...)``: the games' time and rate; the workers' start-up is apart, not in the rate."""
    text = f"{elapsed:.1f} s ({games / elapsed:,.0f} games/s" if elapsed > 0 else f"{elapsed:.1f} s ("
    text += f", {config.backend}, {config.jobs} job{'s' if config.jobs > 1 else ''}, {engine()} engine)"
    if shadowed() is not None:
        text += " (a compiled build is installed but the sources shadow it: werewolf engine says why)"
    if startup >= 0.05:
        text += f" + {startup:.1f} s {'Ray' if config.backend == 'ray' else 'worker'} start-up, not in the rate"
    return text


def headline(config: SimConfig, stats: Stats, elapsed: float | None = None, startup: float = 0.0) -> str:
    n = stats.games
    head = (f"{config.ruleset} · deck {deck_label(config)} · options {options_label(config.options)}"
            f" · bots {config.players_label()} · {n:,} games · seed {config.seed}")
    if elapsed:
        head += " · " + rate_note(config, elapsed, startup, n)
    return head


def agents_note(label: str) -> str:
    """What every output says of the agents: the numbers are theirs as much as the deck's."""
    return (f"measured with {label} bots: these numbers are how these bots play the deck, not how people would; "
            "other agents (--bots, repeatable in compare and balance for a mix) may give other numbers")


def options_label(options: Mapping[str, Any]) -> str:
    """``the ruleset's defaults``, or each option set, as ``name=value``."""
    if not options:
        return "the ruleset's defaults"
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in sorted(options.items()))


def deck_roles(config: SimConfig) -> tuple[str, ...] | None:
    """The cards of the run's deck (a named deck's too), or None when the ruleset builds it."""
    if isinstance(config.deck, tuple):
        return config.deck
    from werewolf.rulesets import get_ruleset

    try:
        decks = get_ruleset(config.ruleset).decks()
    except Exception:
        return None
    if config.deck is None:
        return decks.get(f"{config.ruleset}{config.players or 12}")
    return decks.get(config.deck)


def deck_label(config: SimConfig) -> str:
    """The deck's id and its cards (``c12_wolfking_guard (wolf_king,werewolf*3,...)``), or its cards."""
    from werewolf.play import deck_spec

    roles = deck_roles(config)
    if isinstance(config.deck, tuple):
        return deck_spec(config.deck)
    name = config.deck or ("standard" + (f" {config.players} players" if config.players else ""))
    return f"{name} ({deck_spec(roles)})" if roles else name


def _role_order(config: SimConfig, roles: list[str]) -> list[str]:
    """The deck's order (as `werewolf decks` lists it), then any other card by name."""
    deck = list(dict.fromkeys(deck_roles(config) or ()))
    return [r for r in deck if r in roles] + sorted(r for r in roles if r not in deck)


def tables(config: SimConfig, stats: Stats) -> list[TableData]:
    d = stats.as_dict()
    wins = TableData("who wins", ["team", "wins", "win rate", "95% interval (Wilson)"])
    for team, row in d["teams"].items():
        lo, hi = row["ci95"]
        wins.rows.append([team, f"{row['wins']:,}", _pct(row["rate"]), f"{_pct(lo)} – {_pct(hi)}"])
    if d["draws"]["games"]:
        lo, hi = d["draws"]["ci95"]
        wins.rows.append(["(nobody)", f"{d['draws']['games']:,}", _pct(d["draws"]["rate"]),
                          f"{_pct(lo)} – {_pct(hi)}"])

    ln = d["length_days"]
    length = TableData("game length (days)", ["mean", "sd", "min", "5%", "median", "95%", "max"], left=0)
    length.rows.append([f"{ln['mean']:.2f}", f"{ln['sd']:.2f}", str(ln["min"]), str(ln["p5"]), str(ln["median"]),
                        str(ln["p95"]), str(ln["max"])])
    out = [wins, length, role_table(config, stats), power_table(stats)]

    deaths = TableData("deaths by cause", ["cause", "deaths", "per game"])
    for cause, row in d["deaths"].items():
        deaths.rows.append([cause, f"{row['deaths']:,}", f"{row['per_game']:.3f}"])

    special = TableData("special rules and events", ["rule / event", "times", "games", "% of games"])
    for name, row in d["special"].items():
        label = f"{name} ({ALSO_KNOWN_AS[name]})" if name in ALSO_KNOWN_AS else name
        special.rows.append([label, f"{row['times']:,}", f"{row['games']:,}", _pct(row["rate"])])
    if not d["special"]:
        special.rows.append(["(none fired)", "", "", ""])
    out += [deaths, special]
    if d["errors"]:
        errors = TableData(f"{d['errors']} game(s) failed (an engine or bot bug)", ["game", "seed", "error"], left=0)
        for e in d["error_samples"]:
            errors.rows.append([str(e["game"]), str(e["seed"]), e["error"]])
        out.append(errors)
    return out


SURVIVAL_DAYS = 3  # the table's survival columns: after days 1..3, then at the end (the JSON has every day)


def role_table(config: SimConfig, stats: Stats) -> TableData:
    """Per dealt card: seats, win rate with its interval, and the share alive after each of the first days."""
    roles = stats.roles()
    cols = ["card dealt", "seats", "win rate", "95% interval (by game)"]
    cols += [f"alive after day {k}" for k in range(1, SURVIVAL_DAYS + 1)] + ["alive at the end"]
    table = TableData("each role: wins and survival", cols,
                      note="a seat wins when its side wins; the interval counts games, not seats (the seats dealt "
                           "one card in a game win or lose together: clustered by game); a game over before a day "
                           "counts its living as alive")
    for role in _role_order(config, list(roles)):
        r = roles[role]
        alive = r["alive_after_day"]
        days = [_pct(alive[k]) if k < len(alive) else _pct(r["alive_at_end"]) for k in range(SURVIVAL_DAYS)]
        table.rows.append([role, f"{r['seats']:,}", _pct(r["win_rate"]), f"{_pct(r['ci95'][0])} – "
                           f"{_pct(r['ci95'][1])}", *days, _pct(r["alive_at_end"])])
    return table


def power_table(stats: Stats) -> TableData:
    table = TableData("powers and choices used", ["power / choice", "times", "per game", "% of games"])
    for name, row in stats.power_table().items():
        table.rows.append([name, f"{row['times']:,}", f"{row['per_game']:.2f}", _pct(row["rate"])])
    if not table.rows:
        table.rows.append(["(none used)", "", "", ""])
    return table


def print_report(console: Console, config: SimConfig, stats: Stats, elapsed: float | None = None,
                 startup: float = 0.0) -> None:
    console.print(headline(config, stats, elapsed, startup), style="bold", soft_wrap=True)
    console.print(agents_note(config.players_label()), style="dim", soft_wrap=True)
    for table in tables(config, stats):
        console.print(table.rich())


# -- files ----------------------------------------------------------------------------
def check_out_path(path: str) -> None:
    if Path(path).suffix.lower() not in OUT_FORMATS:
        raise SetupError(f"--out {path!r}: the file must end in .json or .csv")


def write_out(path: str, config: SimConfig, stats: Stats, elapsed: float | None = None, startup: float = 0.0
              ) -> None:
    """The statistics as JSON (one document) or CSV (one row per number), by the file's extension."""
    check_out_path(path)
    doc = document(config, stats, elapsed, startup)
    if path.lower().endswith(".json"):
        Path(path).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["section", "name", "count", "rate", "ci95_low", "ci95_high"])
        w.writerow(["agents", config.players_label(), "", "", "", ""])
        for row in csv_rows(doc["stats"]):
            w.writerow(row)


def csv_rows(d: dict[str, Any]) -> list[list[Any]]:
    rows: list[list[Any]] = [["games", "games", d["games"], "", "", ""]]
    for team, r in d["teams"].items():
        rows.append(["win", team, r["wins"], r["rate"], r["ci95"][0], r["ci95"][1]])
    dr = d["draws"]
    rows.append(["win", "(nobody)", dr["games"], dr["rate"], dr["ci95"][0], dr["ci95"][1]])
    ln = d["length_days"]
    for k in ("mean", "sd", "min", "p5", "median", "p95", "max"):
        rows.append(["length_days", k, "", ln[k], "", ""])
    for days, c in ln["histogram"].items():
        rows.append(["length_histogram", days, c, c / d["games"] if d["games"] else 0.0, "", ""])
    for cause, r in d["deaths"].items():
        rows.append(["death", cause, r["deaths"], r["per_game"], "", ""])
    for name, r in d["special"].items():
        rows.append(["special", name, r["times"], r["rate"], "", ""])
    for name, c in d["endings"].items():
        rows.append(["ending", name, c, c / d["games"] if d["games"] else 0.0, "", ""])
    for role, r in d["roles"].items():
        rows.append(["role_win", role, r["wins"], r["win_rate"], r["ci95"][0], r["ci95"][1]])
        for day, alive in enumerate(r["alive_after_day"], start=1):
            rows.append(["role_alive_after_day", f"{role}:{day}", "", alive, "", ""])
    for name, r in d["powers"].items():
        rows.append(["power", name, r["times"], r["rate"], "", ""])
    rows.append(["errors", "errors", d["errors"], "", "", ""])
    return rows


# -- the chart ------------------------------------------------------------------------
def check_plot_path(path: str) -> None:
    if Path(path).suffix.lower() != ".png":
        raise SetupError(f"--plot {path!r}: the chart is a PNG file (name it .png)")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise SetupError("--plot needs matplotlib: pip install 'werewolf[sim]'") from None


def plot(path: str, config: SimConfig, stats: Stats) -> None:
    """A PNG: win rates with their 95% intervals, and the distribution of game length."""
    check_plot_path(path)
    save_figure(figure(config, stats), path)


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str) -> None:
    fig.savefig(path, dpi=110)
    pyplot().close(fig)


def figure_png(fig: Any) -> bytes:
    """The figure as PNG bytes (for the HTML report), closed after."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    pyplot().close(fig)
    return buf.getvalue()


def title(text: str, width: int = 100) -> str:
    """A chart's title wrapped onto as many lines as it needs: never cut (a deck's cards may break after a comma)."""
    return "\n".join(textwrap.wrap(breakable(text), width=width, break_on_hyphens=False))


def breakable(text: str) -> str:
    """A space after each comma between a deck's cards (a line may break there), none in a number: 1,000."""
    return re.sub(r"(?<!\d),(?! )|,(?!\d{3}(?!\d))(?! )", ", ", text)


TEAM_COLOURS = {"wolves": "#b2182b", "village": "#2166ac", "(nobody)": "#999999"}


def rate_bars(ax: Any, labels: list[str], rows: list[tuple[float, float, float]], colours: list[str],
              xlabel: str) -> None:
    """Horizontal bars of rates (0..1) with their intervals, top to bottom in the order given, and a 50% line."""
    rates = [r * 100 for r, _, _ in rows]
    lows = [(r - lo) * 100 for r, lo, _ in rows]
    highs = [(hi - r) * 100 for r, _, hi in rows]
    y = list(range(len(labels)))[::-1]
    ax.barh(y, rates, xerr=[lows, highs], color=colours, capsize=6, height=0.6, error_kw={"elinewidth": 1.5})
    ax.axvline(50, color="black", linestyle=":", linewidth=1.2, label="50%")
    ax.set_yticks(y, labels, fontsize=10)
    ax.set_xlim(0, 100)
    ax.set_xlabel(xlabel)
    for yi, r, lo_err, hi_err, (_, lo, hi) in zip(y, rates, lows, highs, rows):
        text = f"{r:.1f}%  [{lo * 100:.1f}–{hi * 100:.1f}]"
        inside = r > 60  # a long bar holds its label; a short one has it after the interval
        ax.text(r - lo_err - 2 if inside else r + hi_err + 2, yi, text, va="center",
                ha="right" if inside else "left", color="white" if inside else "black", fontsize=9,
                fontweight="bold")
    ax.grid(axis="x", alpha=0.3)


def _side(role: str) -> str:
    from werewolf.sim.config import team_key

    try:
        return team_key(role)
    except KeyError:
        return "others"


def figure(config: SimConfig, stats: Stats) -> Any:
    """Who wins (with a 50% line), each role's win rate, and how long games last."""
    plt = pyplot()
    d = stats.as_dict()
    teams = list(d["teams"])  # a fixed order (Stats.teams), never by which side won more
    if d["draws"]["games"]:
        teams.append("(nobody)")
    rows = [d["teams"][t] if t in d["teams"] else d["draws"] for t in teams]
    roles = _role_order(config, list(d["roles"]))
    fig, (ax1, ax3, ax2) = plt.subplots(1, 3, figsize=(15, 0.9 + max(4.0, 0.35 * len(roles) + 1.5)),
                                        gridspec_kw={"width_ratios": [1, 1, 1.1]})
    rate_bars(ax1, teams, [(r["rate"], r["ci95"][0], r["ci95"][1]) for r in rows],
              [TEAM_COLOURS.get(t, "#5aae61") for t in teams], "win rate (%), bars: 95% Wilson interval")
    ax1.set_title("Who wins")
    ax1.legend(loc="lower right", fontsize=8)
    rr = d["roles"]
    rate_bars(ax3, roles, [(rr[r]["win_rate"], rr[r]["ci95"][0], rr[r]["ci95"][1]) for r in roles],
              [TEAM_COLOURS.get(_side(r), "#5aae61") for r in roles], "win rate of the seat dealt the card (%)")
    ax3.set_title("Each role's seats")

    hist = {int(k): v for k, v in d["length_days"]["histogram"].items()}
    n = max(1, d["games"])
    xs = list(range(min(hist, default=0), max(hist, default=0) + 1))
    ax2.bar(xs, [100 * hist.get(x, 0) / n for x in xs], color="#762a83", width=0.8)
    ln = d["length_days"]
    ax2.axvline(ln["mean"], color="black", linestyle="--", linewidth=1.2,
                label=f"mean {ln['mean']:.2f} days, sd {ln['sd']:.2f}")
    ax2.set_ylim(0, ax2.get_ylim()[1] * 1.15)
    ax2.legend(loc="upper right", frameon=True)
    ax2.set_xticks(xs)
    ax2.set_xlabel("game length (days)")
    ax2.set_ylabel("% of games")
    ax2.set_title("How long games last")
    ax2.grid(axis="y", alpha=0.3)

    fig.suptitle(title(f"{config.ruleset} · {deck_label(config)} · options: {options_label(config.options)} · "
                       f"bots: {config.players_label()} · {d['games']:,} games (seed {config.seed})", 130),
                 fontsize=11)
    fig.tight_layout()
    return fig
