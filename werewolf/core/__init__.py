"""The rules core: decisions, events, the game driver. Pure: no I/O."""

from werewolf.core.decisions import AnyOf, Choice, Decision, Flag, Move, Pair, Target
from werewolf.core.errors import IllegalMove, SetupError, WerewolfError
from werewolf.core.events import MODERATOR, PUBLIC, Event
from werewolf.core.game import Game, Setup

__all__ = ["AnyOf", "Choice", "Decision", "Flag", "Move", "Pair", "Target", "IllegalMove", "SetupError",
           "WerewolfError", "MODERATOR", "PUBLIC", "Event", "Game", "Setup"]
