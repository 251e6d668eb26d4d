"""Werewolf (狼人殺): a rules engine and moderator for every way people play it."""

# The rulesets register with the core (werewolf.core.registry), which never imports them.
from werewolf import rulesets as _rulesets  # noqa: F401

__version__ = "0.1.0"
