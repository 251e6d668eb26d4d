"""Optional packages a command needs, checked before its first game (not after the last one)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable

from werewolf.core.errors import SetupError


def require(module: str, extra: str, what: str) -> None:
    """``SetupError`` now if ``module`` cannot be imported: ``what`` needs ``pip install 'werewolf[extra]'``."""
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise SetupError(f"{what} needs {module}: pip install 'werewolf[{extra}]'")


def require_for_kinds(kinds: Iterable[str]) -> None:
    """What the agent kinds need: the openai package for LLM seats."""
    if any(k.startswith("llm:") for k in kinds):
        require("openai", "llm", "LLM seats")
