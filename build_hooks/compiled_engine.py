"""The project's build backend: setuptools, plus the compiled engine when asked for.

    pip install .                            # pure Python, as always
    WEREWOLF_COMPILE=1 pip install '.[sim]'  # the engine compiled to C with mypyc (about 2 minutes)
    WEREWOLF_COMPILE=1 pip wheel --no-deps -w dist .   # a wheel for this Python and platform

Compiling needs mypy (mypyc) at build time only: this backend adds it to the build's requirements when
WEREWOLF_COMPILE is set, so a plain install never downloads it (the setuptools documentation's
"dynamic build dependencies" pattern). mypyc compiles the very files a reader reads, as it compiles
mypy and black; a game is identical on both engines (tests/test_compiled.py).

An editable install cannot be compiled: the compiled modules would sit beside the sources and go on
being imported after the sources change. That combination is refused with a message that says so.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every hook this module does not override

# mypyc at build time, of the major version the project type-checks with. The wheel needs no mypy to run:
# mypyc's runtime is compiled into the wheel's own shared library.
MYPYC = "mypy>=2.4,<3"

# The engine's hot path, compiled: the core, the rulesets, the simulation runner's loop over games
# (it reads every event of every game) and the heuristic bots (with the engine compiled and the bots
# interpreted, a heuristic game spent most of its instructions in the bots). Not
# ``rulesets/options.py``: options are read through typing.get_type_hints, which a compiled class
# answers without its annotations' details. Not the simulation's configuration and statistics
# (pickled to and from worker processes, which compiled classes are not), nor the front ends.
# ``Agent`` and ``Channel`` allow interpreted subclasses (the terminal's agent and table talk stay
# Python); like every compiled class, the compiled ones take no attributes they do not declare.
COMPILED = ("werewolf/core", "werewolf/rulesets", "werewolf/sim/runner.py",
            "werewolf/agents/__init__.py", "werewolf/agents/speech.py", "werewolf/agents/heuristic.py")
INTERPRETED = ("werewolf/rulesets/options.py",)


def requested() -> bool:
    """Whether this build compiles the engine (WEREWOLF_COMPILE set to anything but empty or 0)."""
    return os.environ.get("WEREWOLF_COMPILE", "").strip().lower() not in ("", "0", "false", "no")


def modules(root: Path) -> list[str]:
    """The source files to compile, relative to ``root`` (the project's root)."""
    out = []
    for folder in COMPILED:
        paths = [root / folder] if folder.endswith(".py") else sorted((root / folder).rglob("*.py"))
        for path in paths:
            rel = path.relative_to(root).as_posix()
            if rel not in INTERPRETED:
                out.append(rel)
    return out


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    if not requested():
        return list(_setuptools.get_requires_for_build_wheel(config_settings))
    # setuptools runs setup.py to find its own requirements, before mypyc is there to import
    os.environ["WEREWOLF_COMPILE"] = "0"
    try:
        base = _setuptools.get_requires_for_build_wheel(config_settings)
    finally:
        os.environ["WEREWOLF_COMPILE"] = "1"
    return [*base, MYPYC]


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    if requested():
        raise SystemExit("WEREWOLF_COMPILE needs a regular install (pip install .), not an editable one (-e): "
                         "compiled modules beside the sources would be imported after the sources change")
    return list(_setuptools.get_requires_for_build_editable(config_settings))
