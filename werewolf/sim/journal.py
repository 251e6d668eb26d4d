"""Recorded, resumable runs: games played through the recording host, each finished game's record
appended to a journal as it comes (``--run-dir DIR``), so that a run killed half-way continues where
it stopped when the same command is run again.

A run directory holds ``run.json`` (what the run is: the command and every setting that changes its
games; another run is refused in it) and ``games.jsonl`` (one record per finished game, in the order
they finished, schema ``werewolf.game/1``: ``werewolf.sim.dataset``). A game is either in the journal
or played again: a line cut short by a kill is dropped, and a game that failed is played again (its
latest record is the one that counts). Game ``i`` is a function of the run's seed
and ``i`` whoever plays it when, so for deterministic agents the resumed run's totals are exactly
the uninterrupted run's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from werewolf.core.errors import SetupError
from werewolf.core.game import Game, Setup
from werewolf.sim.config import SimConfig, game_seed
from werewolf.sim.dataset import RecordingHost, iter_records, record

RUN_SCHEMA = "werewolf.run/1"


def fingerprint(config: SimConfig, command: str, **extra: Any) -> dict[str, Any]:
    """What makes a run's games what they are (not how many, nor where they run)."""
    deck = list(config.deck) if isinstance(config.deck, tuple) else config.deck
    return {"schema": RUN_SCHEMA, "command": command, "ruleset": config.ruleset, "deck": deck,
            "players": config.players, "options": dict(config.options), "bots": config.bots.label(),
            "agents": [f"{','.join(i)}={k}" for i, k in config.agents], "seed": config.seed,
            "endpoints": [[n, dict(t)] for n, t in config.endpoints], "structured_only": config.structured_only,
            **extra}


class RunDir:
    """A run's directory: ``done`` (the journal's records by game), ``append(record)``."""

    def __init__(self, path: str, what: dict[str, Any]) -> None:
        self.path = path
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as e:
            raise SetupError(f"cannot make the run directory {path}: {e.strerror}") from None
        meta = os.path.join(path, "run.json")
        if os.path.exists(meta):
            try:
                with open(meta, encoding="utf-8") as f:
                    held = json.load(f)
            except (OSError, json.JSONDecodeError) as e:
                raise SetupError(f"{meta} cannot be read ({e}); use another --run-dir") from None
            if held != json.loads(json.dumps(what)):
                diff = sorted(k for k in set(held) | set(what) if held.get(k) != json.loads(json.dumps(what)).get(k))
                raise SetupError(f"{path} holds another run (it differs in {', '.join(diff)}); give the same "
                                 "command to continue it, or use another --run-dir")
        else:
            with open(meta, "w", encoding="utf-8") as f:
                f.write(json.dumps(what, indent=2, ensure_ascii=False) + "\n")
        self.journal = os.path.join(path, "games.jsonl")
        self._trim()
        self.done: dict[int, dict[str, Any]] = {}
        if os.path.exists(self.journal):
            for rec in iter_records(self.journal):
                if isinstance(rec.get("game"), int):
                    self.done[rec["game"]] = rec
        self._file = open(self.journal, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())

    def _trim(self) -> None:
        """Drop a last line cut short (a kill mid-write), so the next record starts on its own line."""
        if not os.path.exists(self.journal):
            return
        with open(self.journal, "rb+") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)

    def append(self, rec: Mapping[str, Any]) -> None:
        self._file.write(json.dumps(rec, ensure_ascii=False) + "\n")
        self._file.flush()  # in the kernel's hands: a killed process loses nothing written

    def close(self) -> None:
        self._file.close()


def play_recorded(config: SimConfig, i: int, game: Game, kinds: Mapping[int, str], full: bool) -> dict[str, Any]:
    """Game ``i`` (dealt) played to its end by the agents of ``kinds``, as a record (an agent's failure
    is the record's ``error``)."""
    from werewolf.agents.kinds import build, is_llm
    from werewolf.agents.llm import Transcript
    from werewolf.sim.seating import transcript_path

    transcript = None
    if config.transcripts and any(is_llm(k) for k in kinds.values()):
        transcript = Transcript(transcript_path(config.transcripts, i), game=i)
    agents: dict[int, Any] = {}
    host = None
    error = None
    try:
        agents = build(kinds, seed=game.setup.seed or 0, ruleset=config.ruleset, transcript=transcript,
                       endpoints=config.endpoints, structured_only=config.structured_only)
        host = RecordingHost(game, agents, free_speech=not config.structured_only)
        host.run()
    except Exception as e:  # an agent's illegal move, a server that refuses: this game fails, the run goes on
        error = f"{type(e).__name__}: {e}"
    finally:
        if transcript is not None:
            transcript.close()
    return record(i, game, kinds, host, agents, error, full)


def simulation_chunk(config: SimConfig, games: tuple[int, ...], full: bool) -> list[dict[str, Any]]:
    """The records of ``games`` of a simulation (each seated as ``werewolf.sim.seating.seat_kinds`` says)."""
    from werewolf.sim.runner import base_setup
    from werewolf.sim.seating import seat_kinds

    setup: Setup = base_setup(config)
    out = []
    for i in games:
        game = Game(setup.with_seed(game_seed(config.seed, i)))
        out.append(play_recorded(config, i, game, seat_kinds(config, game), full))
    return out


def has_llm(config: SimConfig) -> bool:
    return any(k.startswith("llm:") for _, k in config.agents)


def batches(todo: list[int], size: int) -> list[tuple[int, ...]]:
    return [tuple(todo[a:a + size]) for a in range(0, len(todo), size)]


def run_simulation(config: SimConfig, session: Any, *, run_dir: RunDir | None, logs: Callable[[dict[str, Any]], None]
                   | None, progress: Callable[[int], None] | None) -> tuple[Any, list[dict[str, Any]]]:
    """Play the games of ``config`` not yet in ``run_dir``'s journal; (the statistics of them all, every
    game's record without its log). ``logs`` gets every full record, in game order."""
    from werewolf.sim.dataset import add_to
    from werewolf.sim.stats import Stats

    full = logs is not None or run_dir is not None  # a run directory's journal is a dataset: whole records
    done = dict(run_dir.done) if run_dir is not None else {}
    # a game that failed (a server down, an agent's bug) is played again: only finished games are kept
    done = {i: r for i, r in done.items() if 0 <= i < config.games and not r.get("error")}
    stats = Stats()
    records: dict[int, dict[str, Any]] = {}  # every game's record without its log
    pending: dict[int, dict[str, Any]] = {}  # whole records not yet handed to ``logs``
    for i, rec in done.items():
        add_to(stats, rec)
        records[i] = slim(rec)
        if logs is not None:
            pending[i] = rec
    if progress is not None and done:
        progress(len(done))
    todo = [i for i in range(config.games) if i not in done]
    # LLM seats: a game a task, so that --jobs plays games side by side and the journal keeps each at once
    size = 1 if has_llm(config) else config.chunk_size()
    next_log = 0

    def flush_logs() -> None:
        nonlocal next_log
        while next_log in pending:
            assert logs is not None
            logs(pending.pop(next_log))
            next_log += 1

    for _, chunk in session.map(simulation_chunk, ((config, b, full) for b in batches(todo, size))):
        for rec in chunk:
            add_to(stats, rec)
            if run_dir is not None:
                run_dir.append(rec)
            if logs is not None:
                pending[rec["game"]] = rec
            records[rec["game"]] = slim(rec)
        if logs is not None:
            flush_logs()
        if progress is not None:
            progress(len(chunk))
    return stats, [records[i] for i in sorted(records)]


def slim(rec: Mapping[str, Any]) -> dict[str, Any]:
    """A record without its log, talk and decisions."""
    return {k: v for k, v in rec.items() if k not in ("events", "talk", "decisions")}


def usage_totals(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The LLM seats' usage added up per kind and per seat (with the kinds that played it), and in all."""
    from werewolf.agents.llm import add_usage

    by_kind: dict[str, dict[str, Any]] = {}
    by_seat: dict[str, dict[str, Any]] = {}
    total: dict[str, Any] = {}
    for rec in records:
        agents = rec.get("agents") or {}
        for seat, usage in (rec.get("usage") or {}).items():
            kind = agents.get(seat, "?")
            add_usage(by_kind.setdefault(kind, {"seat_games": 0}), usage)["seat_games"] += 1
            row = by_seat.setdefault(seat, {"kinds": [], "seat_games": 0})
            if kind not in row["kinds"]:
                row["kinds"].append(kind)
            add_usage(row, usage)["seat_games"] += 1
            add_usage(total, usage)
    return {"by_kind": by_kind, "by_seat": dict(sorted(by_seat.items(), key=lambda kv: int(kv[0]))),
            "total": total}


def usage_table(totals: Mapping[str, Any]) -> Any:
    """The usage as a rich table, a row per kind, then per seat, and its legend of the kinds' names in
    full above it (None when no seat made a call)."""
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    if not totals.get("by_kind"):
        return None
    label = {k: f"K{i + 1}" for i, k in enumerate(totals["by_kind"])}
    legend = [Text(f"  {label[k]} = {k}") for k in totals["by_kind"]]  # names whole, whatever the width
    t = Table(title="LLM usage (tokens and cost)", box=box.SIMPLE_HEAVY, pad_edge=False)
    t.add_column("kind / seat", no_wrap=True)
    for col in ("games", "calls", "tok in", "tok out", "retry", "fallback", "cost"):
        t.add_column(col, justify="right", no_wrap=True, min_width=9 if col == "cost" else None)

    def row(name: str, u: Mapping[str, Any]) -> None:
        cost = u.get("cost")
        t.add_row(name, str(u.get("seat_games", "")), f"{u.get('calls', 0):,}", f"{u.get('prompt_tokens', 0):,}",
                  f"{u.get('completion_tokens', 0):,}", str(u.get("retries", 0)), str(u.get("fallbacks", 0)),
                  "-" if cost is None else f"${cost:,.4f}")

    for kind, u in totals["by_kind"].items():
        row(label[kind], u)
    for seat, u in totals["by_seat"].items():
        row(f"seat {seat} · {', '.join(label.get(k, k) for k in u['kinds'])}", u)
    row("all", {**totals["total"], "seat_games": sum(u["seat_games"] for u in totals["by_kind"].values())})
    return Group(Text("LLM seats' kinds:"), *legend, t)
