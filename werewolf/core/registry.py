"""The rulesets the core can play, by id.

The core never imports a ruleset: each registers here (``werewolf.rulesets`` registers its members when
the ``werewolf`` package is imported), with a loader that the core calls the first time a game of that
ruleset is set up, so that a program playing one ruleset never imports the others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from werewolf.core.errors import SetupError
from werewolf.core.setup import Flow, Setup
from werewolf.core.table import Checkpoint, Table


class Ruleset(Protocol):
    name: str

    def new_table(self, setup: Setup) -> Table: ...

    def play(self, table: Any) -> Flow: ...

    def resume(self, checkpoint: Checkpoint) -> tuple[Table, Flow]: ...

    def decks(self) -> dict[str, tuple[str, ...]]: ...


_loaders: dict[str, Callable[[], Ruleset]] = {}
_cache: dict[str, Ruleset] = {}


def register(name: str, load: Callable[[], Ruleset]) -> None:
    """Make ``name`` playable: ``load()`` gives its ruleset (called once, at the first game of it)."""
    _loaders[name] = load
    _cache.pop(name, None)


def registered() -> tuple[str, ...]:
    """The ids of the rulesets registered, in the order they were."""
    return tuple(_loaders)


def get_ruleset(name: str) -> Ruleset:
    rs = _cache.get(name)
    if rs is not None:
        return rs
    load = _loaders.get(name)
    if load is None:
        raise SetupError(f"unknown ruleset {name!r} (known: {', '.join(_loaders)})")
    rs = _cache[name] = load()
    return rs
