"""werewolf.env.baselines: ``uniform`` (the masked-uniform policy) and ``random_kind`` (the ``random`` agent
kind's choices as actions): one name per meaning."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from werewolf.agents import choice_key  # noqa: E402
from werewolf.core import Game, Setup  # noqa: E402
from werewolf.env import env, single, vector  # noqa: E402
from werewolf.env.baselines import UniformPolicy, legal_actions, random_kind, uniform  # noqa: E402

DECKS = {"classic": "classic9", "facetoface": "ff12_cupid_thief", "wechat": "wechat12", "onuw": "onuw5",
         "onenight": "onenight5"}


def test_uniform_draws_every_legal_action_and_nothing_else() -> None:
    mask = np.zeros(5718, dtype=np.int8)
    mask[[3, 100, 5717]] = 1
    assert list(legal_actions(mask)) == [3, 100, 5717]
    for rng in (random.Random(0), np.random.default_rng(0)):
        drawn = {uniform(mask, rng) for _ in range(200)}
        assert drawn == {3, 100, 5717}
    with pytest.raises(ValueError, match="no action"):
        uniform(np.zeros(4, dtype=np.int8), random.Random(0))


@pytest.mark.parametrize("ruleset", list(DECKS))
def test_random_kind_is_the_engines_random_player_served_in_seat_order(ruleset: str) -> None:
    """``random_kind`` in every seat plays the very game that ``Decision.random_value`` plays with the
    same random stream when the open decisions are answered in seat order (the environment's order)."""
    for seed in range(4):
        e = env(ruleset, deck=DECKS[ruleset], lang=None, speech=True)  # speaking turns: the kind says nothing
        e.reset(seed=seed)
        rng = random.Random(seed)
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            action = random_kind(e, rng)
            assert obs["action_mask"][action] == 1
            e.step(action)
        assert not e.t.statements
        game = Game(Setup(ruleset, deck=DECKS[ruleset], seed=seed))
        rng = random.Random(seed)
        while not game.over:
            for d in sorted(game.request, key=lambda d: d.seat):
                game.answer_value(d, d.random_value(rng))
        # (a pair of seats drawn in either order is one action: the environment gives it in the options' order)
        assert [(s, act, choice_key(v)) for s, act, v in game.answers] == [(s, act, choice_key(v)) for s, act, v in
                                                                     e.game.answers]


def test_the_two_baselines_are_not_the_same_player() -> None:
    """classic 9, every seat the same baseline: the uniform wolves explode at about every other offer
    and lose most games; the random kind's wolves (interrupts at 3%) win more than half (docs/rl.md)."""
    wins = {}
    for name in ("uniform", "random"):
        e = env("classic", deck="classic9", lang=None)
        rng = random.Random(1)
        won = explosions = 0
        for seed in range(150):
            e.reset(seed=seed)
            for _ in e.agent_iter():
                obs, _, term, trunc, _ = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                a = uniform(obs["action_mask"], rng) if name == "uniform" else random_kind(e, rng)
                e.step(a)
            won += "wolves" in (e.game.result or ([], []))[0]
            explosions += sum(1 for ev in e.game.events if ev.type == "explode")
        wins[name] = (won / 150, explosions / 150)
    assert wins["uniform"][0] < 0.3 < 0.45 < wins["random"][0]
    assert wins["uniform"][1] > 5 * wins["random"][1]


def test_the_uniform_policy_drives_the_single_seat_and_vector_environments() -> None:
    policy = UniformPolicy(0)
    s = single("onuw", deck="onuw5", seat_or_side=2, opponents="random")
    obs, info = s.reset(seed=1)
    done = False
    while not done:
        obs, _, done, _, info = s.step(policy(obs, info))
    v = vector(2, "onuw", deck="onuw5", seat_or_side=2, opponents="random")
    obs, info = v.reset(seed=1)
    actions = policy(obs, info)
    assert actions.shape == (2,) and all(info["action_mask"][i, a] for i, a in enumerate(actions))
    v.close()


def test_the_random_kind_means_one_thing_asked_for_a_move_or_a_value() -> None:
    """``RandomAgent.act`` (a move, through a view) draws what ``RandomAgent.value`` draws (the trusted path
    of the simulations): interrupts at 3% either way, not one time in two."""
    from werewolf.agents import Host, RandomAgent

    moves = values = 0
    offered = 0
    for seed in range(30):
        game = Game(Setup("classic", deck="classic9", seed=seed))
        host = Host(game)
        by_move, by_value = RandomAgent(seed), RandomAgent(seed)
        while not game.over:
            host.sync()
            for d in list(game.request):
                move = by_move.act(host.view(d.seat, d))
                value = by_value.value(d)
                assert move is not None and choice_key(d.value(move)) == choice_key(value)
                if d.interrupt:
                    offered += 1
                    moves += d.value(move) not in (None, False)
                    values += value not in (None, False)
                game.answer_value(d, value)
    assert offered > 100 and moves == values and moves < 0.1 * offered
