"""Playing a game of a simulation with any agent kind in any seat (``--agent SEATS=KIND``).

The kinds travel as strings in the ``SimConfig``; the agents are built here, in
the worker, for each game (``werewolf.agents.kinds.build``), from the game's seed,
so a run is reproducible whatever the backend (an LLM's replies aside). Every
move goes through the ``Host`` and is checked by the engine: an agent's illegal
move fails its game, which the statistics count as an error, with the reason.
"""

from __future__ import annotations

import os

from werewolf.agents import Host
from werewolf.agents.kinds import build, is_llm, kinds_by_seat
from werewolf.agents.speech import Channel
from werewolf.core.game import Game
from werewolf.sim.config import SimConfig, team_key


def seat_kinds(config: SimConfig, game: Game) -> dict[int, str]:
    """Each seat's kind in ``game``: the ``--agent`` rules, then ``--bots`` by the side of the dealt card."""
    sides = {e.data["seat"]: team_key(e.data["role"]) for e in game.events if e.type == "role" and
             e.phase == "setup"}
    bots = config.bots
    return kinds_by_seat(config.agents, sides, dict(bots.teams) if bots.teams else bots.default)


def transcript_path(folder: str, i: int) -> str:
    return os.path.join(folder, f"game-{i:06d}.jsonl")


def play_seated(config: SimConfig, i: int, game: Game, channel: Channel | None = None,
                kinds: dict[int, str] | None = None) -> Game:
    """Game ``i`` (already dealt) played to its end by the agents of ``kinds`` (default: ``seat_kinds``)."""
    from werewolf.agents.llm import Transcript

    kinds = kinds if kinds is not None else seat_kinds(config, game)
    transcript = None
    if config.transcripts and any(is_llm(k) for k in kinds.values()):
        transcript = Transcript(transcript_path(config.transcripts, i), game=i)
    try:
        agents = build(kinds, seed=game.setup.seed or 0, ruleset=config.ruleset, transcript=transcript)
        Host(game, agents, talk=channel).run()
    finally:
        if transcript is not None:
            transcript.close()
    return game
