"""`werewolf simulate`: the command's work (the click declaration lives in ``werewolf.cli``)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from werewolf.core import engine
from werewolf.core.errors import SetupError
from werewolf.sim import check, html, report, simulate
from werewolf.sim.backends import Session
from werewolf.sim.config import SimConfig, parse_bots
from werewolf.sim.stats import Stats


class Clock:
    """When the games started and stopped: the one time both the progress bar's rate and the headline's use.

    It starts once the workers are up (a Ray instance, a process pool), so neither rate counts their start-up.
    """

    def __init__(self) -> None:
        self.start: float | None = None
        self.stop: float | None = None

    def begin(self) -> None:
        self.start = time.perf_counter()

    def end(self) -> float:
        self.stop = time.perf_counter()
        return self.elapsed()

    def elapsed(self) -> float:
        if self.start is None:
            return 0.0
        return (self.stop if self.stop is not None else time.perf_counter()) - self.start


class GamesPerSecond(ProgressColumn):
    """Games finished over the clock's time (the games' time, as the headline's rate)."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def render(self, task: Task) -> Text:
        elapsed = self.clock.elapsed()
        if not task.completed or elapsed <= 0:
            return Text("  … games/s", style="cyan")
        return Text(f"{task.completed / elapsed:>8,.0f} games/s", style="cyan")


def progress_bar(label: str, clock: Clock, quiet: bool) -> Progress:
    return Progress(TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(), GamesPerSecond(clock),
                    TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                    console=Console(stderr=True), disable=quiet, transient=False)


def parse_options(options: str | None, flag: str = "--options") -> dict[str, Any]:
    """A JSON object of option names to values (checked against the ruleset when the setup is built)."""
    if not options:
        return {}
    try:
        opts = json.loads(options)
    except json.JSONDecodeError as e:
        raise SetupError(f"{flag} is not valid JSON: {e}") from None
    if not isinstance(opts, dict):
        raise SetupError(f"{flag} must be a JSON object of option names to values")
    return opts


def check_paths(*paths: str | None) -> None:
    for path in paths:
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise SetupError(f"cannot write {path}: no such folder")


def make_config(ruleset: str, deck: str | None, players: int | None, options: str | None, bots: str, games: int,
                seed: int, jobs: int, backend: str, address: str | None) -> SimConfig:
    from werewolf.play import parse_deck

    opts = parse_options(options)
    if address and backend != "ray":
        raise SetupError("--address is for --backend ray")
    config = SimConfig(ruleset=ruleset, deck=parse_deck(deck), players=players, options=opts,
                       bots=parse_bots(bots), games=games, seed=seed, jobs=jobs, backend=backend,
                       address=address)
    check(config)
    return config


def run(config: SimConfig, *, out: str | None, plot: str | None, logs: str | None, quiet: bool,
        stdout: TextIO | None = None, html_report: str | None = None) -> int:
    """Run the simulation with a progress bar, print the table, write the files. Returns the exit status."""
    check_paths(out, plot, logs, html_report)
    if out:
        report.check_out_path(out)
    if plot:
        report.check_plot_path(plot)
    if html_report:
        html.check_path(html_report)
    console = Console(file=stdout or sys.stdout)
    clock = Clock()
    progress = progress_bar("simulating", clock, quiet)
    try:
        log_file = open(logs, "w", encoding="utf-8") if logs else None  # noqa: SIM115 (closed below)
    except OSError as e:
        raise SetupError(f"cannot write {logs}: {e.strerror}") from None

    def write_logs(chunk: list[dict[str, Any]]) -> None:
        assert log_file is not None
        for line in chunk:
            log_file.write(json.dumps(line, ensure_ascii=False) + "\n")

    try:
        with progress, Session(config.backend, config.jobs, config.address) as session:
            task = progress.add_task("games", total=config.games)
            clock.begin()
            stats = simulate(config, progress=lambda n: progress.advance(task, n),
                             logs=write_logs if log_file else None, session=session)
            elapsed = clock.end()
    finally:
        if log_file is not None:
            log_file.close()
    startup = session.startup
    report.print_report(console, config, stats, elapsed, startup)
    if out:
        report.write_out(out, config, stats, elapsed, startup)
        console.print(f"statistics written to {out}")
    if plot:
        report.plot(plot, config, stats)
        console.print(f"chart written to {plot}")
    if html_report:
        html.write(html_report, simulate_page(config, stats, elapsed, startup))
        console.print(f"report written to {html_report}")
    if stats.errors:
        console.print(f"[red]{stats.errors} game(s) failed: see the table above[/red]")
        return 1
    return 0


def charts(*figures: Callable[[], Any]) -> tuple[list[bytes], list[str]]:
    """The charts as PNG bytes, or a note saying why there are none (no matplotlib)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return [], ["no charts: they need matplotlib (pip install 'werewolf[sim]')"]
    return [report.figure_png(make()) for make in figures], []


def setup_rows(config: SimConfig, elapsed: float, startup: float, games: int) -> dict[str, str]:
    return {"ruleset": config.ruleset, "deck": report.deck_label(config),
            "options": report.options_label(config.options), "bots": config.bots.label(),
            "games": f"{games:,}", "seeds": f"game i is seeded from (seed {config.seed}, i), i = 0 … {games - 1}",
            "engine": f"werewolf {version()}, {engine()} engine", "time": report.rate_note(config, elapsed, startup,
                                                                                        games)}


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("werewolf")
    except PackageNotFoundError:
        return "(not installed)"


def simulate_page(config: SimConfig, stats: Stats, elapsed: float, startup: float) -> str:
    pngs, notes = charts(lambda: report.figure(config, stats))
    return html.page(f"werewolf simulate: {config.ruleset} · {report.deck_label(config)}",
                     setup_rows(config, elapsed, startup, stats.games), report.tables(config, stats), pngs,
                     notes=notes)
