"""Many single-seat games at once: gymnasium's vector API over ``werewolf.env.single``.

``vector(num_envs, ruleset=…, seat_or_side=…, opponents=…, asynchronous=False)`` is a
``gymnasium.vector.SyncVectorEnv`` (or, ``asynchronous=True``, an ``AsyncVectorEnv``: one process
per game, the environments built in the workers) of ``num_envs`` ``SingleSeatEnv``. Observations
are a ``(num_envs, size)`` float32 batch; ``infos["action_mask"]`` the ``(num_envs, n)`` int8 batch of
masks (``infos["_action_mask"]`` marks the environments that gave one: all of them, at every step).

Autoreset: ``"SameStep"`` by default (gymnasium's ``AutoresetMode.SAME_STEP``): a game that ends is
reset in the same ``step``, whose observation and mask are then the new game's (the last ones are in
``infos["final_obs"]`` and ``infos["final_info"]``, with the sides and winners), so every action a
policy draws from the returned masks is legal. ``"NextStep"`` (gymnasium's default) returns the
ended game's last observation with an empty mask and ignores the next action of that environment.
``vector.reset(seed=s)`` seeds the games s, s+1, …: a run replays exactly.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv

from werewolf.env.single import Opponents, SingleSeatEnv


def vector(num_envs: int = 4, ruleset: str = "classic", deck: str | tuple[str, ...] | list[str] | None = None,
           seat_or_side: int | str = 1, opponents: Opponents = "heuristic", *, asynchronous: bool = False,
           autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP, **kwargs: Any) -> VectorEnv:
    """``num_envs`` single-seat games of the same setup (``kwargs``: ``SingleSeatEnv``'s: ``options``, ``lang``,
    ``players``, ``speech``, ``max_statements``)."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not 1 <= num_envs <= 1024:
        raise ValueError(f"num_envs must be from 1 to 1024, not {num_envs!r}")
    SingleSeatEnv(ruleset, deck, seat_or_side, opponents, **kwargs)  # a bad argument fails here, not in a worker
    make = partial(SingleSeatEnv, ruleset, deck, seat_or_side, opponents, **kwargs)
    fns = [make] * num_envs
    if asynchronous:
        return AsyncVectorEnv(fns, autoreset_mode=autoreset_mode)
    return SyncVectorEnv(fns, autoreset_mode=autoreset_mode)
