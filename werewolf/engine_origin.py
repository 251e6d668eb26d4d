"""Which build of the engine this process loaded, from where, and why (``werewolf engine``).

``werewolf.core.engine()`` says "python" or "compiled"; this says where that came from. The usual surprise:
a compiled build is installed (``WEREWOLF_COMPILE=1 pip install .``), yet a run from a checkout's root loads
the sources, because Python puts the current folder first on its path and the checkout's ``werewolf/``
folder shadows the installed package.
"""

from __future__ import annotations

import sys
from pathlib import Path

import werewolf.core.game as _game
from werewolf.core import engine


def loaded_from() -> Path:
    """The folder that holds the ``werewolf`` package this process imported."""
    return Path(_game.__file__).resolve().parent.parent.parent


def compiled_builds() -> list[Path]:
    """Folders on the path that hold a compiled engine (its ``werewolf/core/game`` is a shared library)."""
    found: list[Path] = []
    for entry in sys.path:
        core = Path(entry or ".").resolve() / "werewolf" / "core"
        compiled = core.is_dir() and any(core.glob("game.*.so")) or any(core.glob("game.*.pyd"))
        if compiled and core.parent.parent not in found:
            found.append(core.parent.parent)
    return found


def shadowed() -> Path | None:
    """The compiled build that the loaded sources hide, if any."""
    here = loaded_from()
    if engine() == "compiled":
        return None
    return next((p for p in compiled_builds() if p != here), None)


def describe() -> str:
    """One line: which engine, from where, and why that one."""
    here = loaded_from()
    if engine() == "compiled":
        return f"compiled engine (mypyc), from {here}"
    hidden = shadowed()
    if hidden is not None:
        why = ("the current folder is a checkout, and Python looks there first" if here == Path.cwd().resolve()
               else "it comes first on the path")
        return (f"python engine, from the sources in {here}: {why}, ahead of the compiled build in {hidden} "
                f"(run from another folder to use it)")
    return (f"python engine, from {here} (no compiled build on the path: WEREWOLF_COMPILE=1 pip install . "
            "makes one)")
