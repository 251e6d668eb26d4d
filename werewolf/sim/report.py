"""What a simulation shows: the table, the JSON and CSV files, the chart."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from werewolf.core import engine
from werewolf.core.errors import SetupError
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


def document(config: SimConfig, stats: Stats, elapsed: float | None = None) -> dict[str, Any]:
    """The JSON document of a run: the setup, the statistics, and (apart) the timing."""
    doc: dict[str, Any] = {"config": config.describe(), "stats": stats.as_dict()}
    if elapsed is not None:
        doc["timing"] = {"seconds": elapsed, "games_per_second": stats.games / elapsed if elapsed > 0 else None,
                         "engine": engine()}
    return doc


def headline(config: SimConfig, stats: Stats, elapsed: float | None = None) -> str:
    n = stats.games
    head = (f"{config.ruleset} · deck {_deck_label(config)} · bots {config.bots.label()} · {n:,} games"
            f" · seed {config.seed}")
    if elapsed:
        head += f" · {elapsed:.1f} s ({n / elapsed:,.0f} games/s, {config.backend}, {config.jobs} job" \
                f"{'s' if config.jobs > 1 else ''}, {engine()} engine)"
    return head


def tables(config: SimConfig, stats: Stats) -> list[Table]:
    d = stats.as_dict()
    wins = Table(title="who wins", title_justify="left")
    wins.add_column("team")
    wins.add_column("wins", justify="right")
    wins.add_column("win rate", justify="right")
    wins.add_column("95% interval (Wilson)", justify="right")
    for team, row in d["teams"].items():
        lo, hi = row["ci95"]
        wins.add_row(team, f"{row['wins']:,}", _pct(row["rate"]), f"{_pct(lo)} – {_pct(hi)}")
    if d["draws"]["games"]:
        lo, hi = d["draws"]["ci95"]
        wins.add_row("(nobody)", f"{d['draws']['games']:,}", _pct(d["draws"]["rate"]), f"{_pct(lo)} – {_pct(hi)}")

    ln = d["length_days"]
    length = Table(title="game length (days)", title_justify="left")
    for col in ("mean", "sd", "min", "5%", "median", "95%", "max"):
        length.add_column(col, justify="right")
    length.add_row(f"{ln['mean']:.2f}", f"{ln['sd']:.2f}", str(ln["min"]), str(ln["p5"]), str(ln["median"]),
                   str(ln["p95"]), str(ln["max"]))

    deaths = Table(title="deaths by cause", title_justify="left")
    deaths.add_column("cause")
    deaths.add_column("deaths", justify="right")
    deaths.add_column("per game", justify="right")
    for cause, row in d["deaths"].items():
        deaths.add_row(cause, f"{row['deaths']:,}", f"{row['per_game']:.3f}")

    special = Table(title="special rules and events", title_justify="left")
    special.add_column("rule / event")
    special.add_column("times", justify="right")
    special.add_column("games", justify="right")
    special.add_column("% of games", justify="right")
    for name, row in d["special"].items():
        label = f"{name} ({ALSO_KNOWN_AS[name]})" if name in ALSO_KNOWN_AS else name
        special.add_row(label, f"{row['times']:,}", f"{row['games']:,}", _pct(row["rate"]))
    if not d["special"]:
        special.add_row("(none fired)", "", "", "")
    out = [wins, length, deaths, special]
    if d["errors"]:
        errors = Table(title=f"[red]{d['errors']} game(s) failed[/red] (an engine or bot bug)", title_justify="left")
        errors.add_column("game", justify="right")
        errors.add_column("seed", justify="right")
        errors.add_column("error")
        for e in d["error_samples"]:
            errors.add_row(str(e["game"]), str(e["seed"]), e["error"])
        out.append(errors)
    return out


def print_report(console: Console, config: SimConfig, stats: Stats, elapsed: float | None = None) -> None:
    console.print(headline(config, stats, elapsed), style="bold", soft_wrap=True)
    for table in tables(config, stats):
        console.print(table)


def _deck_label(config: SimConfig) -> str:
    if config.deck is None:
        return "standard" + (f" ({config.players} players)" if config.players else "")
    if isinstance(config.deck, tuple):
        return ",".join(config.deck)
    return config.deck


# -- files ----------------------------------------------------------------------------
def check_out_path(path: str) -> None:
    if Path(path).suffix.lower() not in OUT_FORMATS:
        raise SetupError(f"--out {path!r}: the file must end in .json or .csv")


def write_out(path: str, config: SimConfig, stats: Stats, elapsed: float | None = None) -> None:
    """The statistics as JSON (one document) or CSV (one row per number), by the file's extension."""
    check_out_path(path)
    doc = document(config, stats, elapsed)
    if path.lower().endswith(".json"):
        Path(path).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["section", "name", "count", "rate", "ci95_low", "ci95_high"])
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
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d = stats.as_dict()
    teams = list(d["teams"])
    if d["draws"]["games"]:
        teams.append("(nobody)")
    rows = [d["teams"][t] if t in d["teams"] else d["draws"] for t in teams]
    rates = [r["rate"] * 100 for r in rows]
    lows = [(r["rate"] - r["ci95"][0]) * 100 for r in rows]
    highs = [(r["ci95"][1] - r["rate"]) * 100 for r in rows]
    colours = {"wolves": "#b2182b", "village": "#2166ac", "(nobody)": "#999999"}

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.6), gridspec_kw={"width_ratios": [1, 1.2]})
    y = list(range(len(teams)))[::-1]
    ax1.barh(y, rates, xerr=[lows, highs], color=[colours.get(t, "#5aae61") for t in teams],
             capsize=6, height=0.6, error_kw={"elinewidth": 1.5})
    ax1.set_yticks(y, teams, fontsize=11)
    ax1.set_xlim(0, 100)
    ax1.set_xlabel("win rate (%), bars: 95% Wilson interval")
    ax1.set_title("Who wins")
    for yi, r, lo_err, hi_err, row in zip(y, rates, lows, highs, rows):
        lo, hi = row["ci95"]
        text = f"{r:.1f}%  [{lo * 100:.1f}–{hi * 100:.1f}]"
        inside = r > 60  # a long bar holds its label; a short one has it after the interval
        ax1.text(r - lo_err - 2 if inside else r + hi_err + 2, yi, text, va="center",
                 ha="right" if inside else "left", color="white" if inside else "black", fontsize=10,
                 fontweight="bold")
    ax1.grid(axis="x", alpha=0.3)

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

    fig.suptitle(f"{config.ruleset} · {_deck_label(config)} · bots: {config.bots.label()} · "
                 f"{d['games']:,} games (seed {config.seed})", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
