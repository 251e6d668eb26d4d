#!/usr/bin/env python3
"""Build the compiled engine the way a user's install does, into a virtual environment for the tests and the bench.

    WEREWOLF_COMPILE=1 pip install '.[sim]'   # what a user types (docs/performance.md): the engine compiled with mypyc
    python scripts/compile.py                 # this tree's compiled wheel, installed into build/compiled-env
    build/compiled-env/bin/werewolf simulate --ruleset classic --deck classic9 --games 1000000
    python scripts/bench.py --compiled        # the benchmark, on the compiled engine

The wheel is the one ``WEREWOLF_COMPILE=1 pip wheel .`` makes (build_hooks/compiled_engine.py lists the
modules and says why those). Compiling takes minutes, so each wheel is kept in a cache outside the clone,
named by the hash of the sources it was built from (``$WEREWOLF_CACHE``, else ``$XDG_CACHE_HOME/werewolf``,
else ``~/.cache/werewolf``): a fresh clone of sources already compiled on this machine only installs it.

The environment sees the packages of the interpreter that runs this script (click, rich, matplotlib, ray…),
whether that is the system's Python or a virtual environment's (a ``.pth`` file names its site-packages), but
has its own ``werewolf``, the compiled one, which comes first on its path, ahead of any editable install of
the sources. It records the hash of the sources and the interpreter it was built for; ``current()``
compares both, so the tests and the bench rebuild only after a change.

Needs a C compiler with the Python headers, and the build downloads mypy into pip's build environment.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ENV = ROOT / "build" / "compiled-env"
STAMP = "SOURCE_SHA256"
PARENT_PTH = "werewolf-parent-packages.pth"
BUILD_FILES = ("pyproject.toml", "setup.py", "MANIFEST.in", "build_hooks/compiled_engine.py")


def source_hash(root: Path = ROOT) -> str:
    """The hash of every file of the package and of the build's own files: what a build is built from."""
    h = hashlib.sha256()
    paths = [root / f for f in BUILD_FILES] + sorted((root / "werewolf").rglob("*"))
    for path in paths:
        if path.is_file() and "__pycache__" not in path.parts and not path.name.endswith(".so"):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def cache_dir() -> Path:
    """Where compiled wheels are kept between clones and runs: outside any clone, one per source hash."""
    if os.environ.get("WEREWOLF_CACHE"):
        return Path(os.environ["WEREWOLF_CACHE"]) / "compiled-wheels"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "werewolf" / "compiled-wheels"


def stamp_text(digest: str | None = None) -> str:
    """What an environment was built from: the sources' hash and the interpreter whose packages it sees."""
    return f"{digest or source_hash()} {sys.prefix}\n"


def python(env: Path = DEFAULT_ENV) -> Path:
    """The environment's interpreter: run it to run the compiled engine."""
    return env / "bin" / "python"


def current(env: Path = DEFAULT_ENV) -> bool:
    """Whether ``env`` holds a build of the sources as they are now."""
    stamp = env / STAMP
    return stamp.is_file() and stamp.read_text() == stamp_text() and python(env).exists()


def build(env: Path = DEFAULT_ENV, force: bool = False, quiet: bool = False) -> Path:
    """Build and install the compiled wheel into ``env`` unless it is current; return its interpreter."""
    env.parent.mkdir(parents=True, exist_ok=True)
    # One build at a time (parallel test workers ask together): the others wait, then find it current.
    with open(env.with_name(env.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if force or not current(env):
            _build(env, quiet)
        elif not quiet:
            print(f"{env} is up to date")
    return python(env)


def _pip(*args: str, env: dict[str, str] | None = None, interpreter: Path | str = sys.executable) -> None:
    done = subprocess.run([str(interpreter), "-m", "pip", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"pip {args[0]} failed (exit {done.returncode})")


def wheel(digest: str, quiet: bool) -> Path:
    """The compiled wheel of sources with this hash: from the cache, else built (minutes) and cached."""
    folder = cache_dir() / digest
    found = sorted(folder.glob("werewolf-*.whl"))
    if found:
        if not quiet:
            print(f"compiled wheel from the cache: {found[0]}")
        return found[0]
    if not quiet:
        print("compiling the engine with mypyc (WEREWOLF_COMPILE=1 pip wheel .) ...", flush=True)
    partial = folder.with_name(f"{digest}.{os.getpid()}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    build_env = dict(os.environ, WEREWOLF_COMPILE="1")
    build_env.pop("PYTHONPATH", None)
    _pip("wheel", "--no-deps", "--quiet", "--wheel-dir", str(partial), str(ROOT), env=build_env)
    wheels = list(partial.glob("werewolf-*.whl"))
    assert len(wheels) == 1 and "none-any" not in wheels[0].name, wheels  # a platform wheel: compiled
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)  # whole or not at all: a build killed half-way leaves no wheel behind
    return folder / wheels[0].name


def _parent_packages() -> list[str]:
    """The site-packages of the interpreter running this script, when it is a virtual environment's: the
    compiled environment's own interpreter only knows the base installation's (system_site_packages)."""
    if sys.prefix == sys.base_prefix:
        return []
    paths = sysconfig.get_paths()
    return sorted({paths["purelib"], paths["platlib"]})


def _build(env: Path, quiet: bool) -> None:
    digest = source_hash()
    built = wheel(digest, quiet)
    shutil.rmtree(env, ignore_errors=True)
    venv.EnvBuilder(system_site_packages=True, with_pip=False, symlinks=True).create(env)
    # the interpreter's pip, installing into the new environment's site-packages
    _pip("--python", str(python(env)), "install", "--no-deps", "--quiet", str(built))
    site = subprocess.run([str(python(env)), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # After the environment's own site-packages (where the compiled werewolf is), never before it.
    Path(site, PARENT_PTH).write_text("".join(f"{p}\n" for p in _parent_packages()))
    (env / STAMP).write_text(stamp_text(digest))  # the sources as they were when the build began
    if not quiet:
        print(f"built {env}: run {python(env)} or {env / 'bin' / 'werewolf'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", type=Path, default=DEFAULT_ENV, help="the virtual environment to install it into")
    ap.add_argument("--force", action="store_true", help="rebuild even if the build is current")
    ap.add_argument("--check", action="store_true", help="only say whether the build is current (exit 1 if not)")
    args = ap.parse_args()
    if args.check:
        ok = current(args.env)
        print(f"{args.env} is {'up to date' if ok else 'missing or stale'}")
        return 0 if ok else 1
    build(args.env.resolve(), force=args.force)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
