"""Running the chunks of a simulation: in this process, on a process pool, or on Ray.

Every backend calls ``runner.run_chunk`` (or, for ``werewolf compare``, the
paired runner) on the same chunks and merges the ``Stats`` it gets back; merging
adds counts, so the result is the same whatever the backend, the number of
workers or the order in which chunks finish. Work is handed out lazily with a
bounded number of chunks in flight, so memory stays flat however many games run.

A ``Session`` holds the workers (a process pool, a Ray instance) for as many
batches as a command runs, and times its own start-up apart (``startup``), so a
rate in games per second counts the games' time only, whoever prints it.
"""

from __future__ import annotations

import logging
import multiprocessing
import time
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any

from werewolf.core.errors import SetupError
from werewolf.sim.config import SimConfig
from werewolf.sim.runner import run_chunk
from werewolf.sim.stats import Stats

Progress = Callable[[int], None]
LogSink = Callable[[list[dict[str, Any]]], None]
BACKENDS = ("local", "ray")


class Session:
    """The workers of a run: ``with Session(...) as s: s.map(task, args)``; ``startup`` is their start-up time."""

    def __init__(self, backend: str = "local", jobs: int = 1, address: str | None = None,
                 announce: Callable[[str], None] | None = None) -> None:
        if backend not in BACKENDS:
            raise SetupError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
        self.backend = backend
        self.jobs = max(1, jobs)
        self.address = address
        self.startup = 0.0  # seconds spent starting the workers (Ray's start-up, the pool's processes)
        self._pool: Any = None
        self._ray: Any = None
        self._ray_started = False
        self._width = 2 * self.jobs
        self._announce = announce  # told what is starting, while it starts (Ray takes seconds)

    def __enter__(self) -> Session:
        start = time.perf_counter()
        if self.backend == "ray":
            if self._announce is not None:
                self._announce("starting Ray (its start-up is timed apart, not in the games' rate)…")
            self._start_ray()
        elif self.jobs > 1:
            self._pool = multiprocessing.get_context().Pool(self.jobs)
        self.startup = time.perf_counter() - start
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        if self._pool is not None:
            self._pool.terminate() if err is not None else self._pool.close()
            self._pool.join()
            self._pool = None
        if self._ray_started:
            self._ray.shutdown()
            self._ray_started = False

    def _start_ray(self) -> None:
        try:
            import ray
        except ImportError:
            raise SetupError("the ray backend needs Ray: pip install 'werewolf[ray]'") from None
        self._ray = ray
        if not ray.is_initialized():
            if self.address:
                ray.init(address=self.address, logging_level=logging.ERROR, log_to_driver=False)
            else:
                ray.init(num_cpus=self.jobs, include_dashboard=False, logging_level=logging.ERROR,
                         log_to_driver=False)
            self._ray_started = True
        cpus = max(1, int(ray.cluster_resources().get("CPU", self.jobs)))
        self._width = max(2, cpus * 2)  # chunks in flight
        # Start the worker processes now, so their start-up is timed as the session's, not the games'.
        ray.get([ray.remote(_noop).remote() for _ in range(cpus)])

    def map(self, task: Callable[..., Any], args: Iterable[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
        """``(k, task(*args_k))`` for each argument tuple, as they finish (not in order)."""
        if self.backend == "ray":
            yield from self._ray_map(task, args)
        elif self._pool is not None:
            yield from self._pool.imap_unordered(_indexed, ((k, task, a) for k, a in enumerate(args)))
        else:
            for k, a in enumerate(args):
                yield k, task(*a)

    def _ray_map(self, task: Callable[..., Any], args: Iterable[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
        ray = self._ray
        remote = ray.remote(_call)
        todo = iter(enumerate(args))
        pending: dict[Any, int] = {}
        refs: dict[int, Any] = {}  # large arguments (a SimConfig) are put once

        def put(a: tuple[Any, ...]) -> list[Any]:
            out = []
            for x in a:
                if isinstance(x, (SimConfig, tuple)):  # the run's setup: the same object for every chunk
                    if id(x) not in refs:
                        refs[id(x)] = ray.put(x)
                    x = refs[id(x)]
                out.append(x)
            return out

        def submit() -> None:
            for k, a in todo:
                pending[remote.remote(task, *put(a))] = k
                if len(pending) >= self._width:
                    return

        submit()
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                yield pending.pop(ref), ray.get(ref)
            submit()


def _noop() -> None:
    return None


def _call(task: Callable[..., Any], *args: Any) -> Any:
    # A Python function for ray.remote, which refuses a compiled one (scripts/compile.py compiles the runner).
    return task(*args)


def _indexed(job: tuple[int, Callable[..., Any], tuple[Any, ...]]) -> tuple[int, Any]:
    k, task, args = job
    return k, task(*args)


def chunk_task(config: SimConfig, start: int, stop: int, keep_logs: bool
               ) -> tuple[Stats, list[dict[str, Any]] | None]:
    return run_chunk(config, start, stop, keep_logs)


def run(config: SimConfig, progress: Progress | None = None, logs: LogSink | None = None,
        session: Session | None = None) -> Stats:
    """Play every game of ``config`` and return the merged statistics.

    ``progress(n)`` is called as each chunk of ``n`` games finishes; ``logs``
    receives each chunk's game logs, in game order (only when given: no log is
    kept otherwise). Without a ``session``, one is started for this run.
    """
    if session is None:
        with Session(config.backend, config.jobs, config.address) as own:
            return run(config, progress, logs, own)
    keep = logs is not None
    total = Stats()
    done_logs: dict[int, list[dict[str, Any]]] = {}
    next_log = 0
    for k, (stats, chunk_logs) in session.map(chunk_task, ((config, a, b, keep) for a, b in config.chunks())):
        total.merge(stats)
        if logs is not None and chunk_logs is not None:
            done_logs[k] = chunk_logs
            while next_log in done_logs:  # in game order, whatever order chunks finish in
                logs(done_logs.pop(next_log))
                next_log += 1
        if progress is not None:
            progress(stats.games + stats.errors)
    return total
