"""The rulesets, by id. Each module exposes ``RULESET``, a ``Ruleset``."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Protocol

from werewolf.core.errors import SetupError

if TYPE_CHECKING:
    from werewolf.core.game import Flow, Setup
    from werewolf.core.table import Checkpoint, Table

MODULES = {
    "classic": "werewolf.rulesets.classic",
    "facetoface": "werewolf.rulesets.facetoface",
    "wechat": "werewolf.rulesets.wechat",
    "onuw": "werewolf.rulesets.onuw",
    "onenight": "werewolf.rulesets.onenight",
}


class Ruleset(Protocol):
    name: str

    def new_table(self, setup: Setup) -> Table: ...

    def play(self, table: Any) -> Flow: ...

    def resume(self, checkpoint: Checkpoint) -> tuple[Table, Flow]: ...

    def decks(self) -> dict[str, tuple[str, ...]]: ...


_cache: dict[str, Ruleset] = {}


def get_ruleset(name: str) -> Ruleset:
    rs = _cache.get(name)
    if rs is not None:
        return rs
    mod = MODULES.get(name)
    if mod is None:
        raise SetupError(f"unknown ruleset {name!r} (known: {', '.join(MODULES)})")
    try:
        rs = importlib.import_module(mod).RULESET
    except ModuleNotFoundError as e:
        if e.name == mod:
            raise SetupError(f"ruleset {name!r} is not implemented yet") from None
        raise
    _cache[name] = rs
    return rs
