"""The server's own timings under load, only when asked (``WEREWOLF_PROBE=1`` in its environment).

``scripts/load.py --probe`` starts the server so and reads ``GET /api/debug/probe`` (a route that exists only
then): for each named stage of a change (the room's lock, the worker thread, the commit, a push), the
store's transactions, the garbage collector's pauses and the event loop's lag (how late a 10 ms timer
fires), the count, percentiles and the number of samples over 50 and 100 ms. Without the variable nothing
is recorded: ``probe`` is None and every hook is one test of it.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import os
import sys
import tempfile
import threading
import time
import tracemalloc
from typing import Any

LAG_EVERY = 0.01  # seconds between two looks at the event loop's lag


class Probe:
    """Durations (seconds) by name, from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.samples: dict[str, list[float]] = {}
        self.sizes: dict[str, list[int]] = {}
        self._gc_start = self._gc_cpu = 0.0

    def add(self, name: str, seconds: float) -> None:
        with self._lock:
            self.samples.setdefault(name, []).append(seconds)

    def size(self, name: str, n: int) -> None:
        with self._lock:
            self.sizes.setdefault(name, []).append(n)

    def since(self, name: str, start: float) -> None:
        """Record the time from ``start`` (``time.perf_counter()``) to now."""
        self.add(name, time.perf_counter() - start)

    def report(self, reset: bool = False) -> dict[str, Any]:
        with self._lock:
            samples, sizes = self.samples, self.sizes
            if reset:
                self.samples, self.sizes = {}, {}
        out: dict[str, Any] = {name: {"n": len(ns), "mean": round(sum(ns) / len(ns), 2), "max": max(ns)}
                               for name, ns in sorted(sizes.items()) if ns}
        for name, xs in sorted(samples.items()):
            xs = sorted(xs)
            n = len(xs)

            def pct(p: float, xs: list[float] = xs, n: int = n) -> float:
                return round(1000 * xs[min(n - 1, int(p / 100 * (n - 1) + 0.5))], 3)

            out[name] = {"n": n, "total_s": round(sum(xs), 3), "p50_ms": pct(50), "p95_ms": pct(95),
                         "p99_ms": pct(99), "max_ms": round(1000 * xs[-1], 3),
                         "over_50ms": sum(x > 0.05 for x in xs), "over_100ms": sum(x > 0.1 for x in xs)}
        return out

    # -- the garbage collector's pauses ------------------------------------------------------
    def watch_gc(self) -> None:
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        # Wall time (what a request waits) and the collecting thread's CPU time (what the collection costs:
        # on a shared machine the wall time also holds the time the process was not running at all).
        if phase == "start":
            self._gc_start, self._gc_cpu = time.perf_counter(), time.thread_time()
        else:
            gen = info.get("generation")
            self.since(f"gc gen{gen}", self._gc_start)
            self.add(f"gc gen{gen}, CPU time", time.thread_time() - self._gc_cpu)
            if gen == 2:
                self.size("gc gen2: objects collected", int(info.get("collected", 0)))

    # -- the event loop's lag ----------------------------------------------------------------
    async def watch_loop(self) -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(LAG_EVERY)
            self.add("loop lag", max(0.0, time.perf_counter() - t - LAG_EVERY))


probe: Probe | None = Probe() if os.environ.get("WEREWOLF_PROBE") else None


def install(app: Any) -> None:
    """``GET /api/debug/probe`` on ``app``: the figures so far (``?reset=true``: and start them again). The
    first call starts the watchers (the garbage collector's, the event loop's)."""
    if probe is None:
        return
    p = probe
    watching: list[asyncio.Task[None]] = []
    traced: list[Any] = []  # the last tracemalloc snapshot (with PYTHONTRACEMALLOC set)

    @app.get("/api/debug/probe", include_in_schema=False)
    async def report(reset: bool = False, objects: bool = False, collect: bool = False) -> dict[str, Any]:
        """``objects``: what the collector tracks, by type, and the small-object allocator's arenas;
        ``collect``: then a full collection, and how many unreachable objects it found (cycles that wait
        for one)."""
        if not watching:
            p.watch_gc()
            watching.append(asyncio.ensure_future(p.watch_loop()))
        out = p.report(reset)
        if objects:  # what the garbage collector walks through at each full collection, by type
            kinds = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
            out["objects"] = {"n": sum(kinds.values()), "top": kinds.most_common(25)}
            out["pymalloc"] = pymalloc_stats()
            if tracemalloc.is_tracing():  # every allocation, the untracked too: what grew since the last look
                now = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
                grew = now.compare_to(traced[0], "traceback") if traced else []
                traced[:] = [now]
                out["allocations"] = [{"kB": round(d.size_diff / 1024, 1), "count": d.count_diff,
                                       "where": [str(f) for f in d.traceback[-6:]]} for d in grew[:12]]
        if collect:  # garbage apart from what is live: how many objects a full collection finds unreachable
            out["collected"] = gc.collect()
        return out


def pymalloc_stats() -> dict[str, int]:
    """Python's small-object allocator by its own count (``sys._debugmallocstats``, which writes to the C
    stderr): its arenas (each an mmap of its own, outside malloc) and the bytes in their used and free
    blocks. A grown RSS with few used bytes in many arenas is fragmentation, not a leak."""
    wanted = {"# arenas allocated current": "arenas", "# bytes in allocated blocks": "used",
              "# bytes in available blocks": "free"}
    with tempfile.TemporaryFile("w+") as out:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(out.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        stats = {}
        for line in out:
            name, _, value = line.partition("=")
            if name.strip() in wanted:
                stats[wanted[name.strip()]] = int(value.strip().replace(",", ""))
    stats["blocks"] = sys.getallocatedblocks()
    return stats
