"""Werewolf (狼人殺): a rules engine and moderator for every way people play it."""

__version__ = "0.1.0"
