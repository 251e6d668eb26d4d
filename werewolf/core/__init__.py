"""The rules core: decisions, events, the game driver. Pure: no I/O."""

from werewolf.core import game as _game
from werewolf.core.decisions import AnyOf, Choice, Decision, Flag, Move, Pair, Target
from werewolf.core.errors import IllegalMove, SetupError, WerewolfError
from werewolf.core.events import MODERATOR, PUBLIC, Event
from werewolf.core.game import Game, Setup


def engine() -> str:
    """Which build of the engine this is: ``"compiled"`` (WEREWOLF_COMPILE=1 pip install, mypyc) or ``"python"``."""
    return "python" if _game.__file__.endswith(".py") else "compiled"


__all__ = ["AnyOf", "Choice", "Decision", "Flag", "Move", "Pair", "Target", "IllegalMove", "SetupError",
           "WerewolfError", "MODERATOR", "PUBLIC", "Event", "Game", "Setup", "engine"]
