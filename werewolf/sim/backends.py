"""Running the chunks of a simulation: in this process, on a process pool, or on Ray.

Every backend calls ``runner.run_chunk`` on the same chunks and merges the
``Stats`` it gets back; merging adds counts, so the result is the same whatever
the backend, the number of workers or the order in which chunks finish. Work is
handed out lazily with a bounded number of chunks in flight, so memory stays
flat however many games run.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable, Iterator
from typing import Any

from werewolf.core.errors import SetupError
from werewolf.sim.config import SimConfig
from werewolf.sim.runner import run_chunk
from werewolf.sim.stats import Stats

Progress = Callable[[int], None]
LogSink = Callable[[list[dict[str, Any]]], None]
BACKENDS = ("local", "ray")


def run(config: SimConfig, progress: Progress | None = None, logs: LogSink | None = None) -> Stats:
    """Play every game of ``config`` and return the merged statistics.

    ``progress(n)`` is called as each chunk of ``n`` games finishes; ``logs``
    receives each chunk's game logs, in game order (only when given: no log is
    kept otherwise).
    """
    if config.backend == "ray":
        return _run_ray(config, progress, logs)
    if config.backend != "local":
        raise SetupError(f"unknown backend {config.backend!r} (known: {', '.join(BACKENDS)})")
    if config.jobs <= 1:
        return _collect(config, (run_chunk(config, a, b, logs is not None) for a, b in config.chunks()),
                        progress, logs)
    ctx = multiprocessing.get_context()
    with ctx.Pool(config.jobs) as pool:
        results = pool.imap(_chunk_task, ((config, a, b, logs is not None) for a, b in config.chunks()))
        return _collect(config, results, progress, logs)


def _chunk_task(args: tuple[SimConfig, int, int, bool]) -> tuple[Stats, list[dict[str, Any]] | None]:
    return run_chunk(*args)


def _ray_chunk(config: SimConfig, start: int, stop: int, keep_logs: bool
               ) -> tuple[Stats, list[dict[str, Any]] | None]:
    # A Python function for ray.remote, which refuses a compiled one (scripts/compile.py compiles the runner).
    return run_chunk(config, start, stop, keep_logs)


def _collect(config: SimConfig, results: Iterator[tuple[Stats, list[dict[str, Any]] | None]],
             progress: Progress | None, logs: LogSink | None) -> Stats:
    total = Stats()
    for stats, chunk_logs in results:
        total.merge(stats)
        if logs is not None and chunk_logs is not None:
            logs(chunk_logs)
        if progress is not None:
            progress(stats.games + stats.errors)
    return total


def _run_ray(config: SimConfig, progress: Progress | None, logs: LogSink | None) -> Stats:
    try:
        import ray
    except ImportError:
        raise SetupError("the ray backend needs Ray: pip install 'werewolf[ray]'") from None
    started = False
    if not ray.is_initialized():
        if config.address:
            ray.init(address=config.address, logging_level=logging.ERROR, log_to_driver=False)
        else:
            ray.init(num_cpus=max(1, config.jobs), include_dashboard=False, logging_level=logging.ERROR,
                     log_to_driver=False)
        started = True
    try:
        return _ray_loop(ray, config, progress, logs)
    finally:
        if started:
            ray.shutdown()


def _ray_loop(ray: Any, config: SimConfig, progress: Progress | None, logs: LogSink | None) -> Stats:
    task = ray.remote(_ray_chunk)
    keep = logs is not None
    width = max(2, int(ray.cluster_resources().get("CPU", config.jobs)) * 2)  # chunks in flight
    chunks = iter(enumerate(config.chunks()))
    pending: dict[Any, int] = {}
    done_logs: dict[int, list[dict[str, Any]]] = {}
    next_log = 0
    total = Stats()
    config_ref = ray.put(config)

    def submit() -> None:
        for k, (a, b) in chunks:
            pending[task.remote(config_ref, a, b, keep)] = k
            if len(pending) >= width:
                return

    submit()
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            k = pending.pop(ref)
            stats, chunk_logs = ray.get(ref)
            total.merge(stats)
            if logs is not None and chunk_logs is not None:
                done_logs[k] = chunk_logs
                while next_log in done_logs:  # in game order, whatever order chunks finish in
                    logs(done_logs.pop(next_log))
                    next_log += 1
            if progress is not None:
                progress(stats.games + stats.errors)
        submit()
    return total
