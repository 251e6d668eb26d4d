"""werewolf.env: the PettingZoo environments (API, seeds, masks, rewards, the observation encoding)."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test, seed_test  # noqa: E402

from werewolf.agents import seat_view  # noqa: E402
from werewolf.core.views import option_id  # noqa: E402
from werewolf.env import ENCODING_VERSION, SeatEncoder, env, layout, parallel_env, unflatten  # noqa: E402
from werewolf.env.actions import action_space  # noqa: E402
from werewolf.rulesets import MODULES, get_ruleset  # noqa: E402

DECKS = {"classic": "classic12", "facetoface": "ff12_cupid_thief", "wechat": "wechat12", "onuw": "onuw7",
         "onenight": "onenight5"}


def test_every_ruleset_has_an_environment() -> None:
    assert set(DECKS) == set(MODULES)


def _random_steps(e, rng: random.Random, check=None) -> None:  # type: ignore[no-untyped-def]
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        if check is not None:
            check(e, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))


@pytest.mark.parametrize("ruleset", list(DECKS))
def test_pettingzoo_api_and_seed_tests(ruleset: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice to use a Box observation: ours is a Dict with the mask
        api_test(env(ruleset, deck=DECKS[ruleset], seed=1), num_cycles=300)
        seed_test(lambda: env(ruleset, deck=DECKS[ruleset], lang=None), num_cycles=300)
        parallel_api_test(parallel_env(ruleset, deck=DECKS[ruleset], seed=1), num_cycles=300)


@pytest.mark.parametrize("ruleset", list(DECKS))
def test_masks_are_exactly_the_legal_moves_and_rewards_go_by_team(ruleset: str) -> None:
    e = env(ruleset, deck=DECKS[ruleset], lang=None)
    ids = e.action_ids

    def check(e, agent, obs) -> None:  # type: ignore[no-untyped-def]
        seat = int(agent.split("_")[1])
        pending = e.game.pending(seat)
        assert pending, "an agent was selected that owes nothing"
        masked = {ids[i] for i in np.flatnonzero(obs["action_mask"])}
        assert masked == {option_id(m) for m in pending[0].options()}
        assert e.infos[agent]["legal"] == [option_id(m) for m in pending[0].options()]

    for seed in range(4):
        e.reset(seed=seed)
        _random_steps(e, random.Random(seed), check)
        result = e.game.result
        assert e.game.over
        rewards = {int(a.split("_")[1]): r for a, r in e.final_rewards.items()}
        if result and result[1]:
            assert {s for s, r in rewards.items() if r == 1} == set(result[1])
            assert all(r == -1 for s, r in rewards.items() if s not in result[1])
        else:
            assert all(r == 0 for r in rewards.values())


def test_an_illegal_action_is_refused_with_the_legal_ones() -> None:
    e = env("onenight", deck="onenight5", seed=3, lang=None)
    e.reset()
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = len(e.game.answers)
    with pytest.raises(ValueError, match="legal"):
        e.step(illegal)
    assert len(e.game.answers) == before


@pytest.mark.parametrize("ruleset", ["classic", "onuw"])
def test_reset_with_a_seed_plays_the_same_game(ruleset: str) -> None:
    def trace(seed: int) -> list[bytes]:
        e = env(ruleset, deck=DECKS[ruleset], lang=None)
        e.reset(seed=seed)
        out = []
        rng = random.Random(0)
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            out.append(obs["observation"].tobytes())
            if term or trunc:
                e.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                e.step(int(legal[rng.randrange(len(legal))]))
        return out

    assert trace(7) == trace(7)
    assert trace(7) != trace(8)


@pytest.mark.parametrize("ruleset", list(DECKS))
@pytest.mark.parametrize("lang", [None, "en"])
def test_the_finished_games_observations_are_each_seats_whole_view(ruleset: str, lang: str | None) -> None:
    """Every seat leaves the finished game with its own view (made for all seats at once, ``Table.final``);
    observed again, an equal array that is not the same one (changing one changes nothing else)."""
    e = env(ruleset, deck=DECKS[ruleset], lang=lang)
    e.reset(seed=9)
    rng = random.Random(9)
    left = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            seat = int(agent.split("_")[1])
            scratch = SeatEncoder(ruleset, seat)
            scratch.update(seat_view(e.game, seat).events())
            assert np.array_equal(scratch.vector(None), obs["observation"])
            again = e.observe(agent)["observation"]
            assert np.array_equal(again, obs["observation"]) and not np.shares_memory(again, obs["observation"])
            obs["observation"][:] = -1.0
            assert np.array_equal(e.observe(agent)["observation"], again)
            left += 1
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))
    assert left == len(e.possible_agents)


@pytest.mark.parametrize("ruleset", list(DECKS))
def test_the_observation_built_step_by_step_is_the_one_built_from_scratch(ruleset: str) -> None:
    """The environment's encoders only read new events; a fresh encoder of the seat's whole view
    (werewolf.agents' Host) gives the same vector, and so does one fed each view's new events."""
    e = env(ruleset, deck=DECKS[ruleset], lang=None)
    e.reset(seed=5)
    rng = random.Random(5)
    feeders: dict[int, SeatEncoder] = {}
    from werewolf.agents import Host

    host = Host(e.game)
    checked = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        seat = int(agent.split("_")[1])
        d = e.game.pending(seat)[0]
        scratch = SeatEncoder(ruleset, seat)
        scratch.update(seat_view(e.game, seat).events())
        assert np.array_equal(scratch.vector(d), obs["observation"])
        host.sync()
        view = host.view(seat, d)
        inc = feeders.setdefault(seat, SeatEncoder(ruleset, seat))
        inc.update(view.new_events())
        assert np.array_equal(inc.vector(d), obs["observation"])
        checked += 1
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))
    assert checked > 3


def test_the_encoding_is_documented_and_versioned() -> None:
    import werewolf.env.encoding as enc

    assert ENCODING_VERSION == 2
    for ruleset in DECKS:
        for name in layout(ruleset):
            assert f"    {name} " in enc.__doc__  # every field is in the documented list
    e = env("classic", deck="classic9", seed=2, lang=None)
    e.reset()
    obs, *_ = e.last()
    fields = unflatten("classic", obs["observation"])
    assert fields["present"].sum() == 9 and fields["alive"].sum() == 9
    assert fields["role"].sum() == 1 and fields["act"].sum() == 1


def test_infos_hold_the_view_as_text_in_the_chosen_language() -> None:
    e = env("classic", deck="classic9", seed=2, lang="zh-Hant")
    e.reset()
    _, _, _, _, info = e.last()
    assert "預言家" in info["text"] or "狼人" in info["text"] or "村民" in info["text"]
    assert info["legal"] and info["text"].splitlines()[-1].endswith(", ".join(info["legal"]))


@pytest.mark.parametrize("ruleset", list(DECKS))
def test_random_games_of_every_deck_stay_in_the_stored_action_space(ruleset: str) -> None:
    space = action_space(ruleset)
    from werewolf.core import Game, Setup

    for deck in get_ruleset(ruleset).decks():
        game = Game(Setup(ruleset, deck=deck, seed=1))
        rng = random.Random(1)
        while not game.over:
            for d in game.request:
                space.legal(d)  # raises KeyError naming an id the space lacks
            game.answer_all([d.random_value(rng) for d in game.request])


def test_the_parallel_environment_plays_whole_games() -> None:
    p = parallel_env("onuw", deck="onuw5", seed=4, lang=None)
    obs, infos = p.reset()
    rng = random.Random(0)
    total = dict.fromkeys(p.possible_agents, 0.0)
    while p.agents:
        acts = {a: int(np.flatnonzero(o["action_mask"])[rng.randrange(int(o["action_mask"].sum()))])
                for a, o in obs.items()}
        obs, rewards, terms, truncs, infos = p.step(acts)
        for a, r in rewards.items():
            total[a] += r
    assert p.game.over
    winners = set(p.game.result[1]) if p.game.result else set()
    assert {int(a.split("_")[1]) for a, r in total.items() if r == 1} == winners


def test_statements_are_encoded_from_the_view_step_by_step_as_from_scratch() -> None:
    """Claims, reports and accusations of every seat (heuristic bots speaking) reach the encoding."""
    from werewolf.agents import Host
    from werewolf.agents.heuristic import HeuristicAgent
    from werewolf.core import Game, Setup

    game = Game(Setup("classic", deck="classic12", seed=3))
    host = Host(game, default=HeuristicAgent(random.Random(3)))
    enc = SeatEncoder("classic", 1)
    read = [0, 0]  # its own count of what it read (the host's speaking turns make views of seat 1 too)

    def feed(view) -> None:  # type: ignore[no-untyped-def]
        enc.update(view.events_since(read[0], read[1]))
        read[:] = [len(view.public), len(view.private)]

    while not game.over:
        host.sync()
        for d in list(game.request):
            if d.seat == 1:
                feed(host.view(1, d))
            host.answer(d)
    host.sync()
    feed(host.view(1))
    scratch = SeatEncoder("classic", 1)
    scratch.update(host.view(1).events())
    assert np.array_equal(enc.vector(), scratch.vector())
    kinds = {e.data["kind"] for e in host.public if e.type == "statement"}
    fields = unflatten("classic", scratch.vector())
    assert "claim" in kinds and fields["claims"].sum() > 0
    if "check" in kinds:
        assert fields["reports"].sum() > 0


def test_the_readmes_rl_example_runs() -> None:
    from typing import Any

    from test_readme_agents import python_block

    scope: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(python_block("## RL environment"), "docs/rl.md", "exec"), scope)  # noqa: S102 - our own docs
    e = scope["e"]
    assert e.game.over and not e.agents
    assert set(e.final_rewards) == set(e.possible_agents)


def test_the_text_is_made_when_read_and_as_it_was_then() -> None:
    def texts(read_late: bool) -> list[str]:
        e = env("classic", deck="classic9", seed=6, lang="en")
        e.reset()
        rng = random.Random(6)
        kept, out = [], []
        for _ in range(40):
            obs, _, term, trunc, info = e.last()
            if term or trunc:
                break
            assert "text" in info
            if read_late:
                kept.append(info)
            else:
                out.append(info["text"])
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))
        return [info.get("text") for info in kept] if read_late else out

    now = texts(False)
    assert texts(True) == now and len(now) == 40


def test_decisions_open_at_once_are_served_in_seat_order() -> None:
    e = env("classic", deck="classic12", seed=9, lang=None)
    e.reset()
    rng = random.Random(9)
    runs: list[list[int]] = []
    request = None
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        if e.game.request is not request:
            request = e.game.request
            runs.append([])
        runs[-1].append(int(agent.split("_")[1]))
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))
    assert any(len(r) > 3 for r in runs)  # votes, the pack's kill, the election...
    assert all(r == sorted(r) for r in runs)


# -- speech actions (speech=True) -----------------------------------------------------------------

@pytest.mark.parametrize("ruleset", list(DECKS))
def test_speaking_seats_pass_the_pettingzoo_api_tests(ruleset: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(ruleset, deck=DECKS[ruleset], seed=1, speech=True), num_cycles=200)
        seed_test(lambda: env(ruleset, deck=DECKS[ruleset], lang=None, speech=True), num_cycles=200)
        parallel_api_test(parallel_env(ruleset, deck=DECKS[ruleset], seed=1, speech=True), num_cycles=200)


def _hosted(ruleset: str, seed: int):  # type: ignore[no-untyped-def]
    """A speaking environment whose table keeps a host of the log as far as it was read (as the
    single-agent wrapper's does), so that every seat's view can be rebuilt from scratch."""
    e = env(ruleset, deck=DECKS[ruleset], lang=None, speech=True)
    e.t.hosted = True
    e.reset(seed=seed)
    return e


@pytest.mark.parametrize("ruleset", list(DECKS))
def test_statements_said_reach_every_seats_encoding_in_their_place(ruleset: str) -> None:
    """At each step, the seat's observation is a fresh encoder's of its whole view, the statements said
    in the environment included where they were said (before anything the log tells after the turn)."""
    from werewolf.agents.speech import KINDS
    from werewolf.env.speech import SpeechTurn

    e = _hosted(ruleset, 5)
    rng = random.Random(5)
    turns = said = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        seat = int(agent.split("_")[1])
        d = e.t.current()
        e.t.feed_host()
        scratch = SeatEncoder(ruleset, seat)
        scratch.update(e.t.host.view(seat).events())
        assert np.array_equal(scratch.vector(d), obs["observation"])
        legal = np.flatnonzero(obs["action_mask"])
        if isinstance(d, SpeechTurn):
            turns += 1
            ids = [e.action_ids[i] for i in legal]
            assert all(i.startswith("say:") for i in ids) and "say:done" in ids
            assert f"say:accuse:{seat}" not in ids and f"say:vouch:{seat}" not in ids
            deck = {*e.game.dealt, *(getattr(e.game.table, "center", None) or ())}
            claimed = {i.split(":")[2] for i in ids if i.startswith("say:claim:")}
            before_claims = {e.action_ids[i].split(":")[2] for i in d.said if e.action_ids[i].startswith("say:claim:")}
            assert claimed | before_claims == deck  # the roles of the game's deck, no other
            before = len(e.t.statements)
            i = int(legal[rng.randrange(len(legal))])
            e.step(i)
            said += len(e.t.statements) - before
            continue
        e.step(int(legal[rng.randrange(len(legal))]))
    assert turns > 3 and said > 0 and len(e.t.statements) == said
    assert all(a.kind in KINDS for a in e.t.statements)


def test_a_speaking_turn_masks_what_was_said_and_ends_after_max_statements() -> None:
    e = env("classic", deck="classic9", seed=4, lang=None, speech=True, max_statements=2)
    e.reset()
    ids = e.action_ids
    while not ids[int(np.flatnonzero(e.last()[0]["action_mask"])[0])].startswith("say:"):
        obs = e.last()[0]
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    speaker = e.agent_selection
    seat = int(speaker.split("_")[1])
    claim = e.action_ids.index("say:claim:seer")
    e.step(claim)
    assert e.agent_selection == speaker
    obs = e.last()[0]
    assert obs["action_mask"][claim] == 0 and obs["action_mask"][ids.index("say:done")] == 1
    fields = unflatten("classic", obs["observation"])
    assert fields["claims"][seat - 1].sum() == 1 and fields["act"].sum() == 1
    before = len(e.game.answers)
    with pytest.raises(ValueError, match="speaking turn"):
        e.step(claim)  # said already: refused, nothing changes
    assert len(e.game.answers) == before and len(e.t.statements) == 1
    e.step(ids.index("say:defend"))  # the second statement: the turn is over
    assert e.t.turn is None or e.t.turn.said == []
    listener = next(a for a in e.possible_agents if a != speaker)
    heard = unflatten("classic", e.observe(listener)["observation"])
    assert heard["claims"][seat - 1].sum() == 1 and heard["defend"][seat - 1] == 1


def test_the_one_night_vote_is_no_longer_blind() -> None:
    """With speech, the onuw seats speak in the discussion, in seat order, before the vote: the
    voters' observations hold what was said."""
    p = parallel_env("onuw", deck="onuw7", seed=2, lang=None, speech=True)
    obs, infos = p.reset()
    rng = random.Random(2)
    speakers: list[int] = []
    while p.agents:
        live = [a for a in p.agents if infos[a]["legal"] != ["wait"]]
        if any(i.startswith("vote:") for a in live for i in infos[a]["legal"]):
            fields = unflatten("onuw", obs[live[0]]["observation"])
            assert fields["claims"].sum() + fields["reports"].sum() + fields["accuse"].sum() > 0
            break
        if len(live) == 1 and infos[live[0]]["legal"][0].startswith("say:"):
            speakers.append(int(live[0].split("_")[1]))
            acts = {live[0]: p.action_ids.index("say:claim:seer") if live[0] not in
                    {f"seat_{s}" for s in speakers[:-1]} else p.action_ids.index("say:done")}
            if obs[live[0]]["action_mask"][acts[live[0]]] == 0:
                acts[live[0]] = p.action_ids.index("say:done")
        else:
            acts = {a: int(np.flatnonzero(o["action_mask"])[rng.randrange(int(o["action_mask"].sum()))])
                    for a, o in obs.items()}
        obs, _, _, _, infos = p.step(acts)
    else:
        raise AssertionError("no vote")
    order = list(dict.fromkeys(speakers))
    assert order == sorted(order) == list(range(1, 8))


def test_the_text_of_a_speaking_table_reads_the_statements_as_sentences() -> None:
    e = env("onuw", deck="onuw7", seed=3, lang="en", speech=True)
    e.reset()
    rng = random.Random(0)
    for _ in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        if e.t.turn is None and e.game.request and e.game.request[0].act == "vote":
            assert "Seat " in info["text"] and "statement:" not in info["text"]
            assert any(line.startswith("Seat ") and ": I" in line for line in info["text"].splitlines())
            return
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))
    raise AssertionError("no vote")


@pytest.mark.parametrize("ruleset", list(DECKS))
def test_every_speech_action_is_in_the_stored_space_after_the_old_ids(ruleset: str) -> None:
    import json
    from importlib import resources

    from werewolf.env.speech import speech_ids

    ids = action_space(ruleset).ids
    first_say = min(ids.index(i) for i in speech_ids(ruleset))
    assert set(speech_ids(ruleset)) <= set(ids)
    assert all(i.startswith("say:") for i in ids[first_say:])  # appended: the old indices kept their meaning
    stored = json.loads(resources.files("werewolf.env").joinpath("spaces", f"{ruleset}.json").read_text("utf-8"))
    assert stored["speech_from"] == first_say and stored["encoding_version"] == ENCODING_VERSION


@pytest.mark.parametrize("ruleset", list(DECKS))
def test_the_masks_made_from_seats_are_the_ones_made_from_the_options(ruleset: str) -> None:
    """Seat choices (``Target``) get their mask, values and ids straight from their seats (the fast path
    of ``ActionSpace.legal``): the same as from ``options()`` by id, values included."""
    from werewolf.core import Game, Setup
    from werewolf.core.decisions import Target

    space = action_space(ruleset)
    seen = 0
    for seed in range(3):
        game = Game(Setup(ruleset, deck=DECKS[ruleset], seed=seed))
        rng = random.Random(seed)
        while not game.over:
            for d in game.request:
                if type(d) is Target:
                    mask, values, legal = space.legal(d)
                    opts = d.options()
                    assert legal == [option_id(m) for m in opts]
                    assert values == {space.index[option_id(m)]: d.value(m) for m in opts}
                    assert set(np.flatnonzero(mask)) == set(values)
                    seen += 1
            game.answer_all([d.random_value(rng) for d in game.request])
    assert seen > 5
