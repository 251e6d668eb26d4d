"""What the ``identical_*`` scripts share: a game's digest, and recording or verifying many of them.

Each of ``identical_games.py`` (the day-and-night engine), ``identical_onenight.py``
(the one-night engines) and ``identical_bots.py`` (the heuristic bots) names its
games and how to play them; this module hashes them and compares a run with a
recorded one. A tool for optimising (record before a change, verify after), not a test.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from werewolf.core.game import Game


def _json(o: Any) -> Any:
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    return repr(o)


def digest(game: Game, *extras: Any) -> str:
    """The sha256 of a game's full event log (``as_json()`` lines, key order included), its answers,
    its result and anything else the caller adds (speech acts, what requests described)."""
    h = hashlib.sha256()
    for e in game.events:
        h.update(json.dumps(e.as_json(), ensure_ascii=False, default=_json).encode())
        h.update(b"\n")
    h.update(json.dumps([list(a) for a in game.answers], default=_json).encode())
    h.update(json.dumps(getattr(game, "result", None), default=_json).encode())
    for x in extras:
        h.update(b"\n")
        h.update(json.dumps(x, ensure_ascii=False, default=_json).encode())
    return h.hexdigest()


Collect = Callable[[argparse.Namespace], Iterable[tuple[str, Callable[[], str]]]]


def main(description: str, collect: Collect, add_arguments: Callable[[argparse.ArgumentParser], None]) -> int:
    """``record FILE`` or ``verify FILE [--only TEXT]``: ``collect`` yields (key, a function giving the
    digest) for every game; the arguments that choose the games are saved with a recording and reused."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=("record", "verify"))
    ap.add_argument("file")
    ap.add_argument("--only", default="", help="verify only the games whose key holds this text")
    add_arguments(ap)
    args = ap.parse_args()
    chosen = {k: v for k, v in vars(args).items() if k not in ("command", "file", "only")}
    saved: dict[str, Any] = {}
    if args.command == "verify":
        with open(args.file, encoding="utf-8") as f:
            saved = json.load(f)
        vars(args).update(saved["arguments"])  # the same games as recorded
    start = time.perf_counter()
    now = {key: play() for key, play in collect(args) if args.only in key}
    print(f"{len(now):,} games in {time.perf_counter() - start:.1f} s")
    if args.command == "record":
        with open(args.file, "w", encoding="utf-8") as f:
            json.dump({"arguments": chosen, "digests": now}, f, indent=0)
        print(f"recorded {len(now):,} digests in {args.file}")
        return 0
    old = {k: v for k, v in saved["digests"].items() if args.only in k}
    differ = sorted(k for k in old if now.get(k) != old[k])
    new = sorted(k for k in now if k not in old)
    for k in differ[:30]:
        print(f"DIFFERENT{' (not played now)' if k not in now else ''}: {k}")
    if len(differ) > 30:
        print(f"... and {len(differ) - 30} more")
    for k in new[:5]:
        print(f"not recorded: {k}")
    print(f"{'IDENTICAL' if not differ and not new else 'DIFFERENT'}: {len(old) - len(differ):,} of {len(old):,} "
          f"games as recorded")
    return 1 if differ or new else 0
