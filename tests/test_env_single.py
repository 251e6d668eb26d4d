"""werewolf.env.single: one seat against agent kinds, as a gymnasium environment."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.utils.passive_env_checker import env_reset_passive_checker, env_step_passive_checker  # noqa: E402

from werewolf.core.errors import SetupError  # noqa: E402
from werewolf.env import SeatEncoder, single, unflatten  # noqa: E402
from werewolf.env.speech import SpeechTurn  # noqa: E402

DECKS = {"classic": "classic9", "facetoface": "ff12_cupid_thief", "wechat": "wechat12", "onuw": "onuw7",
         "onenight": "onenight5"}


def _play(e, rng: np.random.Generator, seed: int, check=None):  # type: ignore[no-untyped-def]
    obs, info = e.reset(seed=seed)
    steps = 0
    while True:
        assert e.observation_space.contains(obs)
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.sum() >= 1
        assert sorted(info["legal"]) == sorted(e.action_ids[i] for i in np.flatnonzero(mask))
        if check is not None:
            check(e, obs, info)
        obs, reward, terminated, truncated, info = e.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        if terminated:
            return reward, info, steps
        assert reward == 0.0 and not truncated


@pytest.mark.parametrize("ruleset", list(DECKS))
@pytest.mark.parametrize("side", ["wolves", "village"])
def test_one_seat_plays_whole_games_against_heuristic_bots(ruleset: str, side: str) -> None:
    e = single(ruleset, deck=DECKS[ruleset], seat_or_side=side, opponents="heuristic", speech=True)
    rng = np.random.default_rng(1)
    for seed in range(3):
        reward, info, steps = _play(e, rng, seed)
        assert info["side"] == side == info["sides"][info["seat"]] == e.sides[e.seat]
        assert set(info["sides"]) == set(range(1, e.t.players + 1))
        winners = set(info["winners"])
        assert reward == (0.0 if not winners else 1.0 if e.seat in winners else -1.0)
        assert steps >= 1 and e.game.over


def test_the_seats_observation_is_its_own_view_with_everyones_statements() -> None:
    """What the heuristic opponents say reaches the policy's encoding, in its place; and what the
    policy's seat says reaches the opponents' views (the host's public log)."""
    e = single("classic", deck="classic9", seat_or_side=1, opponents="heuristic", speech=True)
    rng = np.random.default_rng(3)
    spoke = []

    def check(e, obs, info) -> None:  # type: ignore[no-untyped-def]
        e.t.feed_host()
        scratch = SeatEncoder("classic", 1)
        scratch.update(e.t.host.view(1).events())
        assert np.array_equal(scratch.vector(e.t.current()), obs)
        if isinstance(e.t.current(), SpeechTurn):
            spoke.append(1)

    _play(e, rng, 2, check)
    said = {a.seat for a in e.t.statements}
    assert spoke and 1 in said and len(said) > 1
    heard = [ev for ev in e.t.host.public if ev.type == "statement" and ev.data["seat"] == 1]
    assert len(heard) == sum(1 for a in e.t.statements if a.seat == 1)
    fields = unflatten("classic", e.t.vector(1, None))
    assert fields["claims"].sum() + fields["accuse"].sum() + fields["reports"].sum() > 0


def test_without_speech_the_seat_is_silent_but_hears_the_opponents() -> None:
    e = single("classic", deck="classic9", seat_or_side="village", opponents="heuristic")
    rng = np.random.default_rng(0)
    asked: list[str] = []
    _play(e, rng, 4, lambda e, obs, info: asked.extend(info["legal"]))
    assert asked and not any(i.startswith("say:") for i in asked)
    assert all(a.seat != e.seat for a in e.t.statements) and e.t.statements


def test_reset_with_a_seed_plays_the_same_game_and_a_side_is_found_in_one_night_deals() -> None:
    def trace() -> list[object]:
        e = single("onenight", deck="onenight5", seat_or_side="wolves", opponents="heuristic")
        rng = np.random.default_rng(0)
        out: list[object] = []
        for seed in range(6):  # some deals leave both werewolves in the centre: passed for the next
            reward, info, _ = _play(e, rng, seed)
            assert info["side"] == "wolves" and e.game.dealt[e.seat - 1] == "werewolf"
            out += [e.seat, reward, len(e.game.answers)]
        return out

    assert trace() == trace()


def test_opponents_by_side_and_the_gymnasium_checks() -> None:
    e = single("classic", deck="classic9", seat_or_side=2, opponents={"wolves": "random", "village": "heuristic"})
    obs, info = env_reset_passive_checker(e, seed=5)
    assert e.seat == 2
    assert {type(a).__name__ for s, a in e.agents.items() if e.sides[s] == "wolves"} == {"RandomAgent"}
    assert {type(a).__name__ for s, a in e.agents.items() if e.sides[s] == "village"} == {"HeuristicAgent"}
    assert 2 not in e.agents
    env_step_passive_checker(e, e.action_space.sample(mask=info["action_mask"]))


def test_bad_arguments_are_refused_with_what_was_wrong() -> None:
    with pytest.raises(SetupError, match="seat 10"):
        single("classic", deck="classic9", seat_or_side=10)
    with pytest.raises(SetupError, match="side"):
        single("classic", deck="classic9", seat_or_side="wolf")
    with pytest.raises(SetupError, match="agent kind"):
        single("classic", deck="classic9", opponents="nonsense")
    with pytest.raises(SetupError, match="seat number"):
        single("classic", deck="classic9", opponents={"nobody": "random"})
    e = single("classic", deck="classic9", seat_or_side=1, opponents="random")
    _, info = e.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = len(e.game.answers)
    with pytest.raises(ValueError, match="not legal"):
        e.step(illegal)
    assert len(e.game.answers) == before


def test_gymnasium_make_knows_the_environment() -> None:
    import gymnasium

    e = gymnasium.make("werewolf/SingleSeat-v0", ruleset="onuw", deck="onuw5", seat_or_side=3, opponents="random")
    obs, info = e.reset(seed=0)
    assert obs.shape == e.observation_space.shape and info["seat"] == 3


def test_the_docs_single_seat_example_runs() -> None:
    """docs/rl.md's example of ``single`` (the first Python block that makes one), run as written."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "rl.md").read_text("utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "single(" in b)
    scope: dict[str, object] = {}
    exec(compile(block, "docs/rl.md", "exec"), scope)  # noqa: S102 - our own docs
    e = scope["e"]
    assert e.game.over and scope["done"] and scope["info"]["sides"]  # type: ignore[attr-defined,index]
