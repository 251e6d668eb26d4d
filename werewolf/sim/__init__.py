"""Simulation at scale: many games between bots, with honest statistics.

``simulate(config)`` plays ``config.games`` games (game ``i`` seeded by
``game_seed(config.seed, i)``) on the chosen backend and returns their merged
``Stats``; ``werewolf simulate`` is its command line (``werewolf.sim.report``
renders the table, the JSON/CSV files and the chart; ``werewolf.sim.html`` the
self-contained HTML report). ``werewolf.sim.compare`` plays several decks or
option sets on the same seeds (``werewolf.sim.paired``), ``werewolf.sim.balance``
looks (and with a search, over roles and player counts) for a deck whose village
wins within ±X of 50%. What both share lives in ``werewolf.sim.variants``; the
modules only import those below them (``command`` at the top).
"""

from __future__ import annotations

from werewolf.sim.backends import run as simulate
from werewolf.sim.config import BotSpec, SimConfig, game_seed, parse_bots
from werewolf.sim.stats import Stats, wilson

__all__ = ["simulate", "SimConfig", "BotSpec", "parse_bots", "game_seed", "Stats", "wilson", "check"]


def check(config: SimConfig) -> None:
    """Raise ``SetupError`` now for a setup no game of the run could be played with."""
    from werewolf.core.errors import SetupError
    from werewolf.core.game import Game
    from werewolf.sim.runner import base_setup

    if config.games < 1:
        raise SetupError("--games must be at least 1")
    if config.jobs < 1:
        raise SetupError("--jobs must be at least 1")
    Game(base_setup(config))
