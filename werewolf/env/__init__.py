"""Werewolf for reinforcement learning: PettingZoo environments over the engine, and a gymnasium one.

``env(ruleset=…, deck=…, options=…, seed=…, lang=…)`` is an AEC environment (one seat acts at a
time; simultaneous decisions are served in seat order), ``parallel_env(...)`` a parallel one (one
step per round of open decisions). Observations are ``{"observation": float32 vector,
"action_mask": int8 vector}``: the vector is the versioned encoding of the seat's view
(``werewolf.env.encoding``, ``ENCODING_VERSION``), the mask marks the legal actions of one fixed
Discrete space per ruleset (``werewolf.env.actions``: action 0 is ``wait``, the others stable
option ids such as ``vote:4``; with ``speech=True`` the seats also speak at their speaking turns,
``say:claim:seer``, ``say:accuse:5``..., ``werewolf.env.speech``). Rewards: +1 for the winners, −1
for the others, at the end (0 when nobody won). ``reset(seed=…)`` replays exactly. Needs the ``rl``
extra (pettingzoo, gymnasium).

``single(ruleset=…, deck=…, seat_or_side=…, opponents="heuristic")`` is a single-agent gymnasium
environment: the policy plays one seat (or a seat of one side), agent kinds the others
(``werewolf.env.single``; registered as ``werewolf/SingleSeat-v0``); ``vector(num_envs, ...)`` many
of them through gymnasium's vector API (``werewolf.env.vector``). Every environment's ``state()``
is the whole hidden state, for centralised critics at training time only; environments and games
pickle (``werewolf.core.game.Game.__reduce__``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

try:
    import gymnasium
    import pettingzoo  # noqa: F401
except ImportError as e:  # pragma: no cover - the rl extra is missing
    raise ImportError(f"werewolf.env needs the rl extra: pip install 'werewolf[rl]' ({e})") from e

from werewolf.env.actions import action_space, max_seats, ruleset_roles
from werewolf.env.aec import WerewolfEnv
from werewolf.env.baselines import UniformPolicy, random_kind, uniform
from werewolf.env.encoding import ENCODING_VERSION, SeatEncoder, layout, unflatten
from werewolf.env.parallel import WerewolfParallelEnv
from werewolf.env.single import SingleSeatEnv, single
from werewolf.env.speech import MAX_STATEMENTS
from werewolf.env.vector import vector


def env(ruleset: str = "classic", deck: str | tuple[str, ...] | list[str] | None = None,
        options: Mapping[str, Any] | None = None, seed: int | None = None, lang: str | None = "en",
        players: int | None = None, render_mode: str | None = None, speech: bool = False,
        max_statements: int = MAX_STATEMENTS) -> WerewolfEnv:
    """An AEC environment of one ruleset's games (``lang=None``: no text in ``infos``, faster; ``speech``:
    the seats speak at their speaking turns, ``say:...`` actions, werewolf.env.speech)."""
    return WerewolfEnv(ruleset, deck, options, seed, lang, players, render_mode, speech, max_statements)


def parallel_env(ruleset: str = "classic", deck: str | tuple[str, ...] | list[str] | None = None,
                 options: Mapping[str, Any] | None = None, seed: int | None = None, lang: str | None = "en",
                 players: int | None = None, render_mode: str | None = None, speech: bool = False,
                 max_statements: int = MAX_STATEMENTS) -> WerewolfParallelEnv:
    """A parallel environment of one ruleset's games."""
    return WerewolfParallelEnv(ruleset, deck, options, seed, lang, players, render_mode, speech, max_statements)


raw_env = env

# ``gymnasium.make("werewolf/SingleSeat-v0", ruleset=..., seat_or_side=..., opponents=...)`` and make_vec.
if "werewolf/SingleSeat-v0" not in gymnasium.registry:
    gymnasium.register("werewolf/SingleSeat-v0", entry_point="werewolf.env.single:SingleSeatEnv",
                       disable_env_checker=True)

__all__ = ["env", "parallel_env", "raw_env", "single", "SingleSeatEnv", "vector", "WerewolfEnv", "WerewolfParallelEnv",
           "ENCODING_VERSION", "SeatEncoder", "uniform", "UniformPolicy", "random_kind", "layout", "unflatten",
           "action_space", "max_seats", "ruleset_roles"]
