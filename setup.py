"""Everything is in pyproject.toml but the compiled engine's extension modules (WEREWOLF_COMPILE=1).

See build_hooks/compiled_engine.py, the build backend that asks for mypyc when they are wanted.
"""

import os
import sys
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "build_hooks"))
import compiled_engine  # noqa: E402 - found through the line above, as the build backend is

if compiled_engine.requested():
    from mypyc.build import mypycify

    os.chdir(ROOT)  # mypyc names modules by their paths from here and reads pyproject.toml's mypy settings
    setup(ext_modules=mypycify(["--config-file", "pyproject.toml", *compiled_engine.modules(ROOT)], opt_level="3"),
          options={"build_ext": {"parallel": os.cpu_count() or 1}})
else:
    setup()
