"""`werewolf simulate`: the command's work (the click declaration lives in ``werewolf.cli``)."""

from __future__ import annotations

import json
import os
import sys
import time
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

from werewolf.core.errors import SetupError
from werewolf.sim import check, report, simulate
from werewolf.sim.config import SimConfig, parse_bots


class GamesPerSecond(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("  … games/s" if speed is None else f"{speed:>8,.0f} games/s", style="cyan")


def make_config(ruleset: str, deck: str | None, players: int | None, options: str | None, bots: str, games: int,
                seed: int, jobs: int, backend: str, address: str | None) -> SimConfig:
    from werewolf.play import parse_deck

    opts: Any = {}
    if options:
        try:
            opts = json.loads(options)
        except json.JSONDecodeError as e:
            raise SetupError(f"--options is not valid JSON: {e}") from None
        if not isinstance(opts, dict):
            raise SetupError("--options must be a JSON object of option names to values")
    if address and backend != "ray":
        raise SetupError("--address is for --backend ray")
    config = SimConfig(ruleset=ruleset, deck=parse_deck(deck), players=players, options=opts,
                       bots=parse_bots(bots), games=games, seed=seed, jobs=jobs, backend=backend,
                       address=address)
    check(config)
    return config


def run(config: SimConfig, *, out: str | None, plot: str | None, logs: str | None, quiet: bool,
        stdout: TextIO | None = None) -> int:
    """Run the simulation with a progress bar, print the table, write the files. Returns the exit status."""
    for path in (out, plot, logs):
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise SetupError(f"cannot write {path}: no such folder")
    if out:
        report.check_out_path(out)
    if plot:
        report.check_plot_path(plot)
    console = Console(file=stdout or sys.stdout)
    progress = Progress(TextColumn("[bold]simulating"), BarColumn(), MofNCompleteColumn(), GamesPerSecond(),
                        TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                        console=Console(stderr=True), disable=quiet, transient=False)
    try:
        log_file = open(logs, "w", encoding="utf-8") if logs else None  # noqa: SIM115 (closed below)
    except OSError as e:
        raise SetupError(f"cannot write {logs}: {e.strerror}") from None

    def write_logs(chunk: list[dict[str, Any]]) -> None:
        assert log_file is not None
        for line in chunk:
            log_file.write(json.dumps(line, ensure_ascii=False) + "\n")

    try:
        with progress:
            task = progress.add_task("games", total=config.games)
            start = time.perf_counter()
            stats = simulate(config, progress=lambda n: progress.advance(task, n),
                             logs=write_logs if log_file else None)
            elapsed = time.perf_counter() - start
    finally:
        if log_file is not None:
            log_file.close()
    report.print_report(console, config, stats, elapsed)
    if out:
        report.write_out(out, config, stats, elapsed)
        console.print(f"statistics written to {out}")
    if plot:
        report.plot(plot, config, stats)
        console.print(f"chart written to {plot}")
    if stats.errors:
        console.print(f"[red]{stats.errors} game(s) failed: see the table above[/red]")
        return 1
    return 0
