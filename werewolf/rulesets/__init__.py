"""The rulesets, by id. Each module exposes ``RULESET``, a ``Ruleset``.

Importing this package registers every ruleset with the core (``werewolf.core.registry``), each loaded at
its first game; the ``werewolf`` package imports it, so a game of any of them can be set up at once.
"""

from __future__ import annotations

import importlib

from werewolf.core import registry
from werewolf.core.errors import SetupError
from werewolf.core.registry import Ruleset, get_ruleset

MODULES = {
    "classic": "werewolf.rulesets.classic",
    "facetoface": "werewolf.rulesets.facetoface",
    "wechat": "werewolf.rulesets.wechat",
    "onuw": "werewolf.rulesets.onuw",
    "onenight": "werewolf.rulesets.onenight",
}


class _Loader:
    """Imports one ruleset's module when the core first needs it."""

    def __init__(self, name: str, module: str) -> None:
        self.name = name
        self.module = module

    def __call__(self) -> Ruleset:
        try:
            rs: Ruleset = importlib.import_module(self.module).RULESET
        except ModuleNotFoundError as e:
            if e.name == self.module:
                raise SetupError(f"ruleset {self.name!r} is not implemented yet") from None
            raise
        return rs


for _name, _module in MODULES.items():
    registry.register(_name, _Loader(_name, _module))

__all__ = ["MODULES", "Ruleset", "get_ruleset"]
