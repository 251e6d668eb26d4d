"""The baseline policies of the environments, one name per meaning.

Two "random" players mean two different things, and win very different shares of games (a
classic-9 village of either kind against wolves of the same kind: docs/rl.md measures both):

``uniform``
    The masked-uniform policy: every legal action of the mask equally likely, what an untrained
    masked policy starts from. A decision is as many actions as it has options, so its choices
    weigh as they are counted: an interrupt offered at every speaking turn (a wolf's self-destruct,
    ``explode:...``) is one of two actions, taken half the times it is offered, and a wolf pack that
    explodes whenever it may loses most games; a vote is one action per seat and one for abstaining.
    ``uniform(mask, rng)``, or ``UniformPolicy(seed)`` for the single-seat and vector environments.

``random`` (the agent kind, ``werewolf.agents.RandomAgent``; ``--bots random``; the simulations)
    The engine's random player: ``Decision.random_value``, which draws each decision's value the
    way its rules weigh it: an interrupt is taken 3% of the times it is offered, a Flag otherwise
    one time in two, a pair optional half the time; it never speaks. ``random_kind(env, rng)`` gives
    its choice as an action of an environment (AEC or single-seat), to compare a policy with the
    simulations' random bots on the same footing; ``opponents="random"`` seats it as an opponent.

``heuristic`` (the agent kind) is the rule-of-thumb bots (``werewolf.agents.heuristic``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from werewolf.agents import choice_key
from werewolf.env.speech import SpeechTurn


def legal_actions(mask: np.ndarray) -> np.ndarray:
    """The indices of a mask's legal actions (an int8 mask of 0 and 1). Read as booleans: numpy's
    ``nonzero`` is about twenty times faster on booleans, which matters for wechat's 5,718 actions."""
    return mask.view(np.bool_).nonzero()[0]


def uniform(mask: np.ndarray, rng: random.Random | np.random.Generator) -> int:
    """The ``uniform`` baseline: a legal action of ``mask`` (int8, 0 and 1), each equally likely."""
    legal = mask.view(np.bool_).nonzero()[0]
    if not len(legal):
        raise ValueError("the mask allows no action (a finished game, or a seat that owes nothing)")
    if type(rng) is random.Random:
        return int(legal[int(rng.random() * len(legal))])
    return int(legal[int(rng.integers(len(legal)))])  # type: ignore[union-attr]


class UniformPolicy:
    """``uniform`` for the single-seat and vector environments: ``policy(obs, info)`` is an action, or
    an array of actions for a batch (``info["action_mask"]`` of shape (num_envs, n))."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: Any, info: dict[str, Any]) -> Any:
        mask = np.asarray(info["action_mask"])
        if mask.ndim == 2:
            return np.array([uniform(m, self.rng) for m in mask])
        return uniform(mask, self.rng)


def random_kind(env: Any, rng: random.Random) -> int:
    """The ``random`` agent kind's choice for the decision an environment's selected seat owes now (an
    AEC environment, or a single-seat one), as an action index: its value drawn by
    ``Decision.random_value`` and found among the legal actions. At a speaking turn: ``say:done``
    (the random kind never speaks)."""
    t = env.t
    d = t.current()
    if d is None:
        raise ValueError("no decision is open (the game is over)")
    if isinstance(d, SpeechTurn):
        return int(t.talk.done)
    value = choice_key(d.random_value(rng))
    values: dict[int, Any] = env._legal[1]
    for i, v in values.items():
        if choice_key(v) == value:
            return i
    raise AssertionError(f"{d!r}: the random value {value!r} is no legal action's")  # pragma: no cover


__all__ = ["legal_actions", "uniform", "UniformPolicy", "random_kind"]
