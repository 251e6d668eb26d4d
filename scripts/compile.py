#!/usr/bin/env python3
"""Build the compiled engine: the rules core, every ruleset and the heuristic bots compiled to C with mypyc.

    python scripts/compile.py                  # builds build/compiled (about 4 minutes on one core)
    PYTHONPATH=build/compiled werewolf simulate --ruleset classic --deck classic9 --games 1000000
    python scripts/bench.py --compiled         # the benchmark, on the compiled engine

The rules stay the Python you read: mypyc compiles the same files (as it compiles mypy and black),
and a game is identical either way (tests/test_compiled.py checks the scripted games and a sample
of simulated ones on every CI run). What it buys is speed for batch simulation: a day-and-night
game in about a third of the machine instructions (random agents, classic 9: 2.51 → 0.87 million;
classic 12: 4.34 → 1.39 million), a one-night game in under two thirds (onuw 5: 420k → 273k), and
heuristic bots' games in under two fifths (classic 12: 7.98 → 2.99 million).

The build is a copy of the package, put first on ``PYTHONPATH``, not compiled modules beside the
source: an editable install would go on importing a stale compiled module after its .py file
changed. The copy records the hash of the source it was built from; ``current()`` compares it.

Needs mypy (the test extra) and a C compiler with the Python headers.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "build" / "compiled"
STAMP = "SOURCE_SHA256"

# The engine's hot path: the core, the rulesets and the simulation runner's loop over games (it
# reads every event of every game). Not ``rulesets/options.py``: options are read through
# typing.get_type_hints, which a compiled class answers without its annotations' details. Not the
# simulation's configuration and statistics (pickled to and from worker processes, which compiled
# classes are not) or the front ends (the terminal, the web).
# The heuristic bots are compiled too (``agents/__init__.py``, ``speech.py``, ``heuristic.py``): with
# the engine compiled and the bots interpreted, a heuristic game spent most of its instructions in the
# bots, and ran at a fifth to a third of the random agents' speed; compiled, the bots play the same
# games (identical_bots.py) in half the instructions (heuristic classic 12: 6.04 -> 2.99 million a game,
# against 1.39 million for random agents). ``Agent`` and ``Channel`` allow interpreted
# subclasses (the terminal's TerminalAgent and TableTalk stay Python); the bots keep their rules as
# plain Python, and their classes, like every compiled class, take no attributes they do not declare.
COMPILED = ("werewolf/core", "werewolf/rulesets", "werewolf/sim/runner.py",
            "werewolf/agents/__init__.py", "werewolf/agents/speech.py", "werewolf/agents/heuristic.py")
INTERPRETED = ("werewolf/rulesets/options.py",)


def modules(root: Path = ROOT) -> list[str]:
    """The source files to compile, relative to ``root``."""
    out = []
    for folder in COMPILED:
        paths = [root / folder] if folder.endswith(".py") else sorted((root / folder).rglob("*.py"))
        for path in paths:
            rel = path.relative_to(root).as_posix()
            if rel not in INTERPRETED:
                out.append(rel)
    return out


def source_hash(root: Path = ROOT) -> str:
    """The hash of every file of the package (and of the module list): what a build is built from."""
    h = hashlib.sha256(repr(modules(root)).encode())
    for path in sorted((root / "werewolf").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and not path.name.endswith(".so"):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def current(out: Path = DEFAULT_OUT) -> bool:
    """Whether ``out`` holds a build of the source as it is now."""
    stamp = out / STAMP
    return stamp.is_file() and stamp.read_text().strip() == source_hash()


def build(out: Path = DEFAULT_OUT, force: bool = False, quiet: bool = False) -> Path:
    """Compile the engine into ``out`` (a copy of the package), unless it is already current."""
    out.parent.mkdir(parents=True, exist_ok=True)
    # One build at a time (parallel test workers ask together): the others wait, then find it current.
    with open(out.with_name(out.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not force and current(out):
            if not quiet:
                print(f"{out} is up to date")
            return out
        _build(out, quiet)
    return out


def _build(out: Path, quiet: bool) -> None:
    digest = source_hash()
    work = out.with_name(out.name + ".building")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copytree(ROOT / "werewolf", work / "werewolf", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copy(ROOT / "pyproject.toml", work / "pyproject.toml")  # mypy's settings, as the project checks
    if not quiet:
        print(f"compiling {len(modules())} modules with mypyc into {out} ...", flush=True)
    env = dict(os.environ, MYPYC_OPT_LEVEL=os.environ.get("MYPYC_OPT_LEVEL", "3"))
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, "-m", "mypyc", *modules(work)], cwd=work, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"mypyc failed (exit {done.returncode}); the build in {work} is left to look at")
    shutil.rmtree(work / "build")  # the generated C and object files
    (work / "pyproject.toml").unlink()
    (work / STAMP).write_text(digest + "\n")
    shutil.rmtree(out, ignore_errors=True)
    work.rename(out)
    if not quiet:
        print(f"built {out}: run with PYTHONPATH={out}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to put the compiled package")
    ap.add_argument("--force", action="store_true", help="rebuild even if the build is current")
    ap.add_argument("--check", action="store_true", help="only say whether the build is current (exit 1 if not)")
    args = ap.parse_args()
    if args.check:
        ok = current(args.out)
        print(f"{args.out} is {'up to date' if ok else 'missing or stale'}")
        return 0 if ok else 1
    build(args.out.resolve(), force=args.force)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
