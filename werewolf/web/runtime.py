"""The interpreter's settings for serving: the garbage collector's pauses and the threads' turns.

Measured with ``scripts/load.py --probe`` (200 rooms, issue 16), two things stalled every room at once:

- **Full collections.** A full collection walks every object the collector tracks and stops every thread
  while it does (the event loop, the rooms' worker, the store's writer). In a fresh server most of those
  objects are the libraries', the rulesets' and the catalogues' (about 70,000, against a few hundred a
  room), and on a 2-core VM the collector walks a scattered heap slowly: each full collection under load
  froze the server for 0.3 to 0.5 s, about every 25 s (the answer → view p99). ``serving`` loads what every
  room will use, then moves everything alive into the permanent generation (``gc.freeze``), which no
  collection walks; and it lets a full collection come only every ``FULL_EVERY`` collections of the
  middle generation (tens of minutes under load, not 10 as by default). Almost everything the server
  makes is freed by its reference count (a full collection after minutes under load finds a few thousand
  objects in cycles), so the memory left to the rare full collections stays small, and a room that
  leaves memory still frees all of it.
- **The threads' turns.** The store's writer and the rooms' worker need the interpreter's lock between
  their steps (each SQLite call lets it go); while the event loop holds it, a waiting thread gets it
  only at the next switch interval (5 ms by default), so a commit of four statements could wait 20 ms
  for nothing. ``SWITCH`` makes those waits short.

And **open files**: each phone holds a socket, and a load of 500 rooms (6,000 sockets, and as many
connections for the answers) is far beyond the usual soft limit of 1,024 descriptors a process; the
server raises its own soft limit to the hard one the system allows.

And **memory given back**. A finished game leaves memory (``werewolf.web.hub``), but glibc's allocator keeps
what it freed for the next allocations. ``give_back`` asks it to return its free pages (``malloc_trim``) a
second or two after rooms have stopped leaving, in a thread of its own (the call lets the interpreter go). Measured with
``scripts/memory.py`` (issue 29, SQLite): 202.7 → 168.0 MB after 1,000 finished games and 237.8 → 220.1 MB
after 10,000. The growth from the one to the other was the high-water mark of finished rooms held at
once in their grace, which Python's own allocator keeps (its arenas, pinned by a few live objects each), not
glibc: finished rooms now shed their bots and views and leave sooner (``werewolf.web.hub.UNWATCHED``), and
the server's memory stays flat (docs/performance.md).

``werewolf serve`` calls ``serving`` once, before serving; tests and embedders keep the interpreter as is.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import sys
from collections.abc import Callable

FULL_EVERY = 1000  # collections of the middle generation between two full ones (CPython's default: 10)
SWITCH = 0.001  # seconds a thread holds the interpreter while another waits for it (CPython's default: 0.005)
GIVE_BACK_EVERY = 10.0  # seconds between two ``malloc_trim`` at most while rooms keep leaving (each takes ms)
GIVE_BACK_LOOK = 1.0  # seconds between two looks at the count of rooms that left


def serving() -> int:
    """Load the rulesets and the narration, freeze every object alive, space out the full collections and
    shorten the threads' turns; how many objects were frozen."""
    import werewolf.web.text  # noqa: F401 - the narration and the catalogues it loads
    from werewolf.rulesets import MODULES, get_ruleset

    for name in MODULES:
        get_ruleset(name)
    gc.collect()  # what is garbage now is freed, not frozen
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_EVERY)
    sys.setswitchinterval(SWITCH)
    more_files()
    return gc.get_freeze_count()


def more_files() -> None:
    """The soft limit of open files raised to the hard one (where the system has such limits)."""
    try:
        import resource
    except ImportError:  # not on this system (Windows)
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):  # e.g. a hard limit the kernel caps lower: keep the soft one
            pass


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS, Windows)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim  # type: ignore[no-any-return]


async def give_back(left: Callable[[], int], every: float = GIVE_BACK_EVERY, look: float = GIVE_BACK_LOOK) -> None:
    """Until cancelled: once rooms have left memory (``left()``, the hub's count, moved), the allocator's free
    pages go back to the system: as soon as they have stopped leaving (the count stood still for one look,
    every ``look`` seconds), or, while rooms keep leaving, ``every`` seconds after the first of them. So a
    server that has gone quiet holds no more than its live rooms need a few seconds later."""
    trim = _malloc_trim()
    if trim is None:
        return
    clock = asyncio.get_running_loop().time
    seen = trimmed = left()
    since: float | None = None  # when the count first moved past the last trim
    while True:
        await asyncio.sleep(look)
        now = left()
        if now == trimmed:
            continue
        if since is None:
            since = clock()
        if now == seen or clock() - since >= every:
            await asyncio.to_thread(trim, 0)
            trimmed, since = now, None
        seen = now
