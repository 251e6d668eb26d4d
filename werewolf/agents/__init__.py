"""Players: anything that answers the engine's decisions.

A person at a terminal, a phone, a script, a bot, an LLM or an RL policy all
implement ``Agent``. An agent sees only its own seat's view.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from werewolf.core.decisions import Decision, Move
from werewolf.core.game import Game
from werewolf.core.views import visible_events


# Compiled with the engine (scripts/compile.py); front ends and tests subclass it in Python.
@mypyc_attr(allow_interpreted_subclasses=True)
class Agent:
    """Answers decisions for one seat. Return a move, or None for the default."""

    def choose(self, game: Game, seat: int, decision: Decision) -> Move | None:
        raise NotImplementedError

    def seen(self, game: Game, seat: int) -> list[Any]:
        """The events this agent's seat may see (the only information it gets)."""
        return visible_events(game.events, seat)


class RandomAgent(Agent):
    """Picks uniformly among legal answers (interrupts only rarely)."""

    def __init__(self, seed: int | None = None, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random(seed)

    def value(self, decision: Decision) -> Any:
        return decision.random_value(self.rng)

    def choose(self, game: Game, seat: int, decision: Decision) -> Move | None:
        opts = decision.options()
        return opts[self.rng.randrange(len(opts))] if opts else None


def play(game: Game, agents: Mapping[int, Agent], default: Agent | None = None) -> Game:
    """Run ``game`` to its end, asking each seat's agent (``default`` for the rest)."""
    if default is not None and isinstance(default, RandomAgent) and not agents:
        # Every seat draws at random: answer each request in one go.
        game.play_out(default.rng)
        return game
    while not game.over:
        for d in list(game.request):
            agent = agents.get(d.seat, default)
            if agent is None:
                game.decline(d)
            elif isinstance(agent, RandomAgent):
                game.answer_value(d, agent.value(d))
            else:
                move = agent.choose(game, d.seat, d)
                if move is None:
                    game.decline(d)
                else:
                    game.answer(d.seat, move)
    return game
