"""werewolf.env: the vector environment, ``state()`` for centralised critics, and pickling (env and game)."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from werewolf.core import Game, Setup  # noqa: E402
from werewolf.env import env, parallel_env, single, unflatten, vector  # noqa: E402
from werewolf.env.encoding import state_layout  # noqa: E402

DECKS = {"classic": "classic12", "facetoface": "ff12_cupid_thief", "wechat": "wechat12", "onuw": "onuw7",
         "onenight": "onenight5"}


def _random_answers(game: Game, rng: random.Random, most: int = 10**9) -> None:
    while not game.over and most > 0:
        open_ = game.pending()
        d = open_[rng.randrange(len(open_))]
        game.answer_value(d, d.random_value(rng))
        most -= 1


@pytest.mark.parametrize("ruleset", list(DECKS))
@pytest.mark.parametrize("live", [False, True])
def test_a_pickled_game_continues_exactly_as_the_game(ruleset: str, live: bool) -> None:
    """Pickled mid-game (live speech: part of a request answered, the rest OPEN), both copies given the
    same answers end alike, event for event."""
    for seed in range(3):
        game = Game(Setup(ruleset, deck=DECKS[ruleset], seed=seed, live_speech=live))
        _random_answers(game, random.Random(seed), random.Random(seed).randrange(5, 60))
        copy = pickle.loads(pickle.dumps(game))
        assert copy.answers == game.answers and [e.as_json() for e in copy.events] == [e.as_json() for e in game.events]
        assert [(d.seat, d.act) for d in copy.pending()] == [(d.seat, d.act) for d in game.pending()]
        for g in (game, copy):
            _random_answers(g, random.Random(99))
        assert [e.as_json() for e in copy.events] == [e.as_json() for e in game.events]
        assert copy.result == game.result and copy.answers == game.answers


def _aec_trace(e, rng: random.Random, most: int | None = None) -> list[object]:  # type: ignore[no-untyped-def]
    out: list[object] = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, info.get("text")))
        if term or trunc:
            e.step(None)
            continue
        if most is not None:
            most -= 1
            if most < 0:
                return out
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))
    return out


@pytest.mark.parametrize("ruleset", list(DECKS))
@pytest.mark.parametrize("speech", [False, True])
def test_a_pickled_environment_continues_exactly_as_the_environment(ruleset: str, speech: bool) -> None:
    e = env(ruleset, deck=DECKS[ruleset], seed=3, lang="en", speech=speech)
    e.reset()
    _aec_trace(e, random.Random(1), 30)
    copy = pickle.loads(pickle.dumps(e))
    assert np.array_equal(copy.state(), e.state())
    assert _aec_trace(copy, random.Random(5)) == _aec_trace(e, random.Random(5))
    assert copy.game.result == e.game.result


def test_pickled_parallel_and_single_seat_environments_continue_exactly() -> None:
    p = parallel_env("onuw", deck="onuw7", seed=2, lang=None, speech=True)
    obs, _ = p.reset()
    for _ in range(12):
        obs, *_ = p.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()})
    copies = [p, pickle.loads(pickle.dumps(p))]
    ends = []
    for q in copies:
        rng, o, rewards = random.Random(3), obs, []
        while q.agents:
            o, r, *_ = q.step({a: int(rng.choice(list(np.flatnonzero(v["action_mask"])))) for a, v in o.items()})
            rewards.append(sorted(r.items()))
        ends.append((rewards, q.game.result))
    assert ends[0] == ends[1]

    s = single("classic", deck="classic9", seat_or_side="village", opponents="heuristic", speech=True)
    _, info = s.reset(seed=4)
    for _ in range(3):
        _, _, done, _, info = s.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert not done
    runs = []
    for q in (s, pickle.loads(pickle.dumps(s))):
        rng, i, done, trace = random.Random(1), info, False, []
        while not done:
            o, r, done, _, i = q.step(int(rng.choice(list(np.flatnonzero(i["action_mask"])))))
            trace.append((o.tobytes(), r))
        runs.append(trace)
    assert runs[0] == runs[1]


@pytest.mark.parametrize("ruleset", list(DECKS))
def test_the_state_holds_every_seats_view_and_the_hidden_cards(ruleset: str) -> None:
    import werewolf.env.encoding as enc

    e = env(ruleset, deck=DECKS[ruleset], seed=7, lang=None)
    e.reset()
    lay = state_layout(ruleset)
    for name in ("private", "roles", "sides", "center_cards"):
        assert f"    {name} " in enc.__doc__
    assert e.state_space.shape == e.state().shape
    rng = random.Random(7)
    for step in range(40):
        agent = e.agent_selection
        obs, _, term, _, _ = e.last()
        if term:
            break
        state = e.state()
        fields = {k: state[a:b].reshape(shape) for k, (a, b, shape) in lay.items()}
        seen = unflatten(ruleset, obs["observation"])
        for k in ("alive", "votes", "claims"):  # the public part is the seats'
            assert np.array_equal(fields[k], seen[k])
        seat = int(agent.split("_")[1])
        a, b = lay["private"][0], lay["private"][1]
        row = state[a:b].reshape(lay["private"][2])[seat - 1]
        obs_fields = [seen[k].ravel() for k in ("seat", "role", "known_role", "known_team", "center", "lovers",
                                                "victim")]
        assert np.array_equal(row, np.concatenate(obs_fields))
        players = len(e.possible_agents)
        assert fields["roles"][:players].sum() == players and fields["sides"][:players].sum() == players
        if step == 0 and ruleset not in ("onuw", "onenight"):  # before any swap: the cards dealt
            roles = sorted(set(e.game.dealt))
            from werewolf.env import ruleset_roles

            order = ruleset_roles(ruleset)
            dealt = [order[int(np.flatnonzero(r)[0])] for r in fields["roles"][:players]]
            assert dealt == list(e.game.dealt) and set(dealt) == set(roles)
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))


def test_the_vector_environment_batches_games_with_legal_masks_and_resets_them_in_the_step() -> None:
    v = vector(3, "classic", deck="classic9", seat_or_side="wolves", opponents="heuristic", speech=True)
    obs, info = v.reset(seed=0)
    assert obs.shape == (3, v.single_observation_space.shape[0])
    assert info["action_mask"].shape == (3, v.single_action_space.n) and info["_action_mask"].all()
    rng = np.random.default_rng(0)
    ended = 0
    sides = []
    while ended < 6:
        masks = info["action_mask"]
        assert (masks.sum(axis=1) > 0).all()  # SAME_STEP: the mask returned is always the current game's
        obs, rewards, terms, truncs, info = v.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for i in np.flatnonzero(terms):
            ended += 1
            final = info["final_info"]
            assert final["_sides"][i] and rewards[i] in (-1.0, 1.0, 0.0)
            sides.append(final["side"][i])
    assert set(sides) == {"wolves"}
    v.close()


def test_the_asynchronous_vector_environment_plays_the_same_games() -> None:
    def run(asynchronous: bool) -> list[float]:
        v = vector(2, "onuw", deck="onuw5", seat_or_side=1, opponents="random", asynchronous=asynchronous)
        _, info = v.reset(seed=5)
        rng = np.random.default_rng(1)
        out: list[float] = []
        while len(out) < 6:
            _, r, t, _, info = v.step(np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]]))
            out += [float(x) for x in r[t]]
        v.close()
        return out

    assert run(True) == run(False)


def test_bad_vector_arguments_fail_at_once() -> None:
    from werewolf.core.errors import SetupError

    with pytest.raises(ValueError, match="num_envs"):
        vector(0)
    with pytest.raises(SetupError, match="agent kind"):
        vector(2, opponents="nope")
