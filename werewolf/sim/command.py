"""`werewolf simulate`: the command's work (the click declaration lives in ``werewolf.cli``)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace
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
from werewolf.sim.config import BotSpec, SimConfig, parse_bots
from werewolf.sim.stats import Stats
from werewolf.sim.variants import parse_options


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


def announce(quiet: bool) -> Callable[[str], None] | None:
    """A note on standard error while the workers start (none when quiet)."""
    if quiet:
        return None
    err = Console(stderr=True)
    return lambda text: err.print(text, style="dim")


def progress_bar(label: str, clock: Clock, quiet: bool) -> Progress:
    return Progress(TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(), GamesPerSecond(clock),
                    TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                    console=Console(stderr=True), disable=quiet, transient=False)


def check_paths(*paths: str | None) -> None:
    for path in paths:
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise SetupError(f"cannot write {path}: no such folder")


def make_config(ruleset: str, deck: str | None, players: int | None, options: str | None, bots: str, games: int,
                seed: int, jobs: int, backend: str, address: str | None, agents: tuple[str, ...] = (),
                transcripts: str | None = None, endpoints: str | None = None,
                structured_only: bool = False) -> SimConfig:
    from werewolf.agents.kinds import parse_rules
    from werewolf.agents.llmkind import load_endpoints
    from werewolf.play import parse_deck

    opts = parse_options(options)
    named = load_endpoints(endpoints)
    if address and backend != "ray":
        raise SetupError("--address is for --backend ray")
    if transcripts:
        try:
            os.makedirs(transcripts, exist_ok=True)
        except OSError as e:
            raise SetupError(f"cannot write transcripts to {transcripts}: {e.strerror}") from None
        transcripts = os.path.abspath(transcripts)  # the workers' current folder may differ
    config = SimConfig(ruleset=ruleset, deck=parse_deck(deck), players=players, options=opts,
                       bots=parse_bots(bots), games=games, seed=seed, jobs=jobs, backend=backend,
                       address=address, agents=parse_rules(agents, named), transcripts=transcripts,
                       endpoints=named, structured_only=structured_only)
    check(config)
    if config.agents:  # a seat the game does not have is refused now, not in every game
        from werewolf.core.game import Game
        from werewolf.sim.runner import base_setup
        from werewolf.sim.seating import seat_kinds

        seat_kinds(config, Game(base_setup(config).with_seed(0)))
    return config


def run(config: SimConfig, *, out: str | None, plot: str | None, logs: str | None, quiet: bool,
        stdout: TextIO | None = None, html_report: str | None = None, run_dir: str | None = None) -> int:
    """Run the simulation with a progress bar, print the table, write the files. Returns the exit status.

    With ``run_dir``, ``logs`` or LLM seats the games are recorded (``werewolf.sim.journal``): game
    records in the logs, a resumable journal in the run directory, the LLM seats' usage reported."""
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

    from werewolf.sim import extras, journal

    extras.require_for_kinds(k for _, k in config.agents)
    recorded = bool(run_dir or logs or journal.has_llm(config))
    journal_dir = journal.RunDir(run_dir, journal.fingerprint(config, "simulate")) if run_dir else None
    records: list[dict[str, Any]] = []
    try:
        with progress, Session(config.backend, config.jobs, config.address, announce(quiet)) as session:
            task = progress.add_task("games", total=config.games)
            clock.begin()
            if recorded:
                stats, records = journal.run_simulation(
                    config, session, run_dir=journal_dir, progress=lambda n: progress.advance(task, n),
                    logs=(lambda rec: write_logs([rec])) if log_file else None)
            else:
                stats = simulate(config, progress=lambda n: progress.advance(task, n),
                                 logs=write_logs if log_file else None, session=session)
            elapsed = clock.end()
    finally:
        if log_file is not None:
            log_file.close()
        if journal_dir is not None:
            journal_dir.close()
    startup = session.startup
    report.print_report(console, config, stats, elapsed, startup)
    usage = journal.usage_totals(records)
    usage_table = journal.usage_table(usage)
    if usage_table is not None:
        console.print(usage_table)
    if journal_dir is not None:
        console.print(f"run directory: {run_dir} ({len(records)} games in its journal, games.jsonl)")
    if out:
        report.write_out(out, config, stats, elapsed, startup)
        if usage_table is not None and out.lower().endswith(".json"):
            add_usage_to_json(out, usage)
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


def add_usage_to_json(path: str, usage: dict[str, Any]) -> None:
    """The LLM seats' usage added to a JSON statistics file (``llm_usage``)."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    doc["llm_usage"] = usage
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def charts(*figures: Callable[[], Any]) -> tuple[list[bytes], list[str]]:
    """The charts as PNG bytes, or a note saying why there are none (no matplotlib)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return [], ["no charts: they need matplotlib (pip install 'werewolf[sim]')"]
    return [report.figure_png(make()) for make in figures], []


def setup_rows(config: SimConfig, elapsed: float, startup: float, games: int) -> dict[str, str]:
    return {"ruleset": config.ruleset, "deck": report.deck_label(config),
            "options": report.options_label(config.options), "bots": config.players_label(),
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


def write_files(outs: tuple[str, ...], doc: dict[str, Any], csv_rows: Callable[[dict[str, Any]], list[list[Any]]],
                console: Console) -> None:
    """Each ``--out`` file: the JSON document, or its CSV rows (the first row names the columns)."""
    import csv

    for path in outs:
        if path.lower().endswith(".json"):
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        else:
            with open(path, "w", newline="", encoding="utf-8") as f:
                csv.writer(f).writerows(csv_rows(doc))
        console.print(f"results written to {path}")


def check_outputs(outs: tuple[str, ...], plot: str | None, html_report: str | None) -> None:
    check_paths(*outs, plot, html_report)
    for path in outs:
        report.check_out_path(path)
    if plot:
        report.check_plot_path(plot)
    if html_report:
        html.check_path(html_report)


def compare(base: SimConfig, decks: tuple[str, ...], options: tuple[str, ...], variant_specs: tuple[str, ...], *,
            precision: float | None, max_games: int, batch: int, outs: tuple[str, ...], plot: str | None,
            html_report: str | None, quiet: bool, stdout: TextIO | None = None, mix: tuple[BotSpec, ...] = ()
            ) -> int:
    """`werewolf compare`: play the variants on the same seeds, print and write what differs (``mix``: several
    kinds of bots, game i played by the (i mod len)-th)."""
    from werewolf.sim import compare as cmp

    if precision is not None and not 0 < precision < 1:
        raise SetupError("--precision is a width in win rate between 0 and 1, e.g. 0.05 for 5 points")
    if batch < 1 or max_games < 1:
        raise SetupError("--batch and --max-games must be at least 1")
    variants = cmp.make_variants(base, decks, options, variant_specs)
    check_outputs(outs, plot, html_report)
    console = Console(file=stdout or sys.stdout)
    clock = Clock()
    progress = progress_bar("comparing", clock, quiet)
    with progress, Session(base.backend, base.jobs, base.address, announce(quiet)) as session:
        # the bar counts every game played (games per variant times variants), as the headline's rate does
        per_variant = max_games if precision is not None else base.games
        task = progress.add_task("games", total=per_variant * len(variants))
        clock.begin()
        result = cmp.run(variants, games=base.games, precision=precision, max_games=max_games, batch=batch,
                         session=session, progress=lambda n: progress.advance(task, n * len(variants)), mix=mix)
        elapsed = clock.end()
        progress.update(task, total=result.games * len(variants), completed=result.games * len(variants))
    heading = compare_headline(base, result)
    console.print(heading, style="bold", soft_wrap=True)
    console.print(report.agents_note(result.agents()), style="dim", soft_wrap=True)
    console.print(f"time: {result.games * len(variants):,} games in all, " +
                  report.rate_note(base, elapsed, session.startup, result.games * len(variants))
                  + f" · {result.stopped}", soft_wrap=True)
    tables = cmp.tables(result)
    for table in tables:
        console.print(table.rich())
    warnings = cmp.warnings(result)
    for w in warnings:
        console.print(f"[yellow]! {w}[/yellow]", soft_wrap=True)
    doc = cmp.document(result, elapsed, session.startup)
    write_files(outs, doc, cmp.csv_rows, console)
    if plot:
        report.save_figure(cmp.figure(result, heading), plot)
        console.print(f"chart written to {plot}")
    if html_report:
        pngs, notes = charts(lambda: cmp.figure(result, heading))
        setup = {"ruleset": base.ruleset, "bots": result.agents(), "agents": report.agents_note(result.agents()),
                 **{f"variant {k + 1}": f"{v.name}: deck {report.deck_label(v.config)}; options "
                    f"{report.options_label(v.config.options)}" for k, v in enumerate(variants)},
                 "games": f"{result.games:,} per variant ({result.stopped})",
                 "seeds": f"game i of every variant is seeded from (seed {base.seed}, i)",
                 "engine": f"werewolf {version()}, {engine()} engine",
                 "method": doc["method"]}
        html.write(html_report, html.page(f"werewolf compare: {base.ruleset}", setup, tables, pngs, warnings,
                                          notes))
        console.print(f"report written to {html_report}")
    errors = sum(s.errors for s in result.paired.stats)
    if errors:
        console.print(f"[red]{errors} game(s) failed (an engine or bot bug): see the JSON output[/red]")
        return 1
    return 0


def compare_headline(base: SimConfig, result: Any) -> str:
    names = " | ".join(v.name for v in result.variants)
    decks = dict.fromkeys(report.deck_label(v.config) for v in result.variants)
    options = dict.fromkeys(report.options_label(v.config.options) for v in result.variants)
    return (f"{base.ruleset} · compare {len(result.variants)} variants: {names} · deck"
            f"{'s' if len(decks) > 1 else ''} {'; '.join(decks)} · options {' | '.join(options)} · bots "
            f"{result.agents()} · {result.games:,} games each, same seeds (seed {base.seed})")


def balance(base: SimConfig, swaps: tuple[str, ...], decks: tuple[str, ...], *, within: float, confidence: float,
            max_games: int, batch: int, outs: tuple[str, ...], plot: str | None, html_report: str | None,
            quiet: bool, stdout: TextIO | None = None, search: bool = False, max_candidates: int = 24,
            pool: tuple[str, ...] = (), mix: tuple[BotSpec, ...] = ()) -> int:
    """`werewolf balance`: find a candidate deck whose village wins within ±``within`` of 50%, and say what was
    shown."""
    from werewolf.sim import balance as bal

    if not 0 < within < 0.5:
        raise SetupError("--within is a tolerance in win rate between 0 and 0.5, e.g. 0.05 for ±5 points")
    if not 0.5 <= confidence < 1:
        raise SetupError("--confidence is between 0.5 and 1, e.g. 0.9")
    if batch < 1 or max_games < 1 or max_candidates < 1:
        raise SetupError("--batch, --max-games and --max-candidates must be at least 1")
    for role in pool:
        if role not in bal.ROLES:
            raise SetupError(f"unknown role {role!r} in --roles")
    cands = bal.candidates(base, swaps, decks, search=search)
    check_outputs(outs, plot, html_report)
    console = Console(file=stdout or sys.stdout)
    clock = Clock()
    progress = progress_bar("balancing", clock, quiet)
    budget = max(len(cands), max_candidates if search else len(cands))
    with progress, Session(base.backend, base.jobs, base.address, announce(quiet)) as session:
        task = progress.add_task("games", total=max_games * budget)
        clock.begin()
        result = bal.run(cands, within=within, confidence=confidence, max_games=max_games, batch=batch,
                         session=session, search=search, max_candidates=max_candidates, pool=pool or bal.POOL,
                         mix=mix, progress=lambda n: progress.advance(task, n))
        elapsed = clock.end()
        played = sum(c.stats.games + c.stats.errors for c in result.candidates)
        progress.update(task, total=played, completed=played)
    heading = (f"{base.ruleset} · balance: {len(result.candidates)} candidates tried"
               f"{' (search)' if search else ''} · within ±{100 * within:.1f} points of 50% at "
               f"{100 * confidence:.0f}% confidence · options {report.options_label(base.options)} · bots "
               f"{result.agents()} · same seeds (seed {base.seed})")
    console.print(heading, style="bold", soft_wrap=True)
    console.print(report.agents_note(result.agents()), style="dim", soft_wrap=True)
    console.print(f"time: {played:,} games in all, " + report.rate_note(base, elapsed, session.startup, played),
                  soft_wrap=True)
    table = bal.table(result)
    console.print(table.rich())
    findings = bal.findings(result)
    for line in findings:
        console.print(line, soft_wrap=True)
    doc = bal.document(result)
    doc["agents_note"] = report.agents_note(result.agents())
    doc["timing"] = {"seconds": elapsed, "startup_seconds": session.startup, "engine": engine()}
    write_files(outs, doc, bal.csv_rows, console)
    if plot:
        report.save_figure(bal.figure(result, heading), plot)
        console.print(f"chart written to {plot}")
    if html_report:
        pngs, notes = charts(lambda: bal.figure(result, heading))
        setup = {"ruleset": base.ruleset, "options": report.options_label(base.options), "bots": result.agents(),
                 "agents": report.agents_note(result.agents()),
                 **{f"candidate {k + 1}": f"{c.variant.name}: {report.deck_label(c.variant.config)}"
                    for k, c in enumerate(result.candidates)},
                 "games": f"{played:,} in all", "result": result.stopped,
                 "seeds": f"game i of every candidate is seeded from (seed {base.seed}, i)",
                 "engine": f"werewolf {version()}, {engine()} engine", "method": doc["method"]}
        html.write(html_report, html.page(f"werewolf balance: {base.ruleset}", setup, [table], pngs,
                                          notes=[*findings, *notes]))
        console.print(f"report written to {html_report}")
    if any(c.stats.errors for c in result.candidates):
        return 1
    return 0 if result.found else 3


def arena(base: SimConfig, kinds: tuple[str, ...], *, outs: tuple[str, ...], quiet: bool,
          stdout: TextIO | None = None, run_dir: str | None = None, logs: str | None = None) -> int:
    """`werewolf arena`: agent kinds against each other, seats and roles rotated fairly."""
    from werewolf.sim import arena as ar
    from werewolf.sim import extras, journal

    kinds = ar.check_kinds(kinds, base.endpoints)
    # every optional package the run needs, before the first game: the rating's, the LLM seats'
    extras.require("openskill", "arena", "werewolf arena's rating (OpenSkill)")
    extras.require_for_kinds(kinds)
    check_outputs(outs, None, None)
    check_paths(logs)
    console = Console(file=stdout or sys.stdout)
    clock = Clock()
    total = ar.blocks(base.games, len(kinds)) * len(kinds)
    journal_dir = journal.RunDir(run_dir, journal.fingerprint(base, "arena", kinds=list(kinds))) if run_dir else None
    try:
        log_file = open(logs, "w", encoding="utf-8") if logs else None  # noqa: SIM115 (closed below)
    except OSError as e:
        raise SetupError(f"cannot write {logs}: {e.strerror}") from None
    progress = progress_bar("arena", clock, quiet)

    def write_record(rec: dict[str, Any]) -> None:
        assert log_file is not None
        log_file.write(json.dumps(rec, ensure_ascii=False) + "\n")

    try:
        with progress, Session(base.backend, base.jobs, base.address, announce(quiet)) as session:
            task = progress.add_task("games", total=total)
            clock.begin()
            result = ar.run(base, kinds, base.games, session, progress=lambda n: progress.advance(task, n),
                            run_dir=journal_dir, logs=None if log_file is None else write_record)
            elapsed = clock.end()
    finally:
        if journal_dir is not None:
            journal_dir.close()
        if log_file is not None:
            log_file.close()
    console.print(f"{base.ruleset} · deck {report.deck_label(base)} · options {report.options_label(base.options)}"
                  f" · arena of {len(kinds)} kinds · {total:,} games in {total // len(kinds):,}"
                  f" blocks (one deal a block, every kind in every seat once) · seed {base.seed}",
                  style="bold", soft_wrap=True)
    for k, label in ar.labels(kinds).items():  # in full, whatever the terminal's width
        console.print(f"  {label} = {k}", soft_wrap=True)
    console.print("time: " + report.rate_note(base, elapsed, session.startup, total), soft_wrap=True)
    for table in ar.tables(result):
        console.print(table)
    usage_table = journal.usage_table(journal.usage_totals(result.records))
    if usage_table is not None:
        console.print(usage_table)
    if journal_dir is not None:
        console.print(f"run directory: {run_dir} ({len(result.records)} games in its journal, games.jsonl)")
    doc = ar.document(result, replace(base, games=total))
    doc["timing"] = {"seconds": elapsed, "startup_seconds": session.startup, "engine": engine()}
    for path in outs:
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        console.print(f"results written to {path}")
    if result.errors:
        first = result.errors[0]
        console.print(f"[red]{len(result.errors)} game(s) failed, e.g. game {first.game}: {first.error}[/red]",
                      soft_wrap=True)
        return 1
    return 0
