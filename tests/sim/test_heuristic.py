"""Heuristic bots: legal in every ruleset, blind outside their own view, talkative in three languages, strong."""

from __future__ import annotations

import inspect
import json
import random
import re
from pathlib import Path

import pytest

from werewolf.agents import Host
from werewolf.agents.heuristic import HeuristicAgent, Mind, Policy, tie_row
from werewolf.agents.speech import KINDS, Act, messages, render
from werewolf.core.game import Game, Setup
from werewolf.core.views import visible_events
from werewolf.i18n import LANGS, placeholders
from werewolf.rulesets import get_ruleset
from werewolf.rulesets.onuw import EVERY_ROLE_DECK
from werewolf.rulesets.wechat import EXPANSION_DECK_A, EXPANSION_DECK_B, expansion_options
from werewolf.sim import SimConfig, parse_bots, simulate

SETUPS = (
    [Setup("classic", deck=d) for d in get_ruleset("classic").decks() if d.startswith("c12_")]
    + [Setup("classic", deck="classic9"), Setup("classic", deck="classic18")]
    + [Setup("facetoface", deck=d) for d in get_ruleset("facetoface").decks()]
    + [Setup("wechat", players=12), Setup("wechat", deck=EXPANSION_DECK_A, options=expansion_options(EXPANSION_DECK_A)),
       Setup("wechat", deck=EXPANSION_DECK_B, options=expansion_options(EXPANSION_DECK_B))]
    + [Setup("onuw", players=n) for n in (3, 5, 10)] + [Setup("onuw", deck=EVERY_ROLE_DECK)]
    + [Setup("onenight", players=n) for n in (3, 5, 7)]
)


def setup_id(s: Setup) -> str:
    return f"{s.ruleset}-{s.deck if isinstance(s.deck, str) else len(s.deck or ()) or s.players}"


def play(setup: Setup, seed: int, strict: bool) -> tuple[Game, HeuristicAgent, Host]:
    """Every seat a heuristic bot; each move goes through the engine's checks (an illegal one raises)."""
    game = Game(Setup(setup.ruleset, deck=setup.deck, options=setup.options, players=setup.players, seed=seed))
    agent = HeuristicAgent(random.Random(seed), strict=strict)
    host = Host(game, default=agent)
    host.run()
    for seat in list(agent.minds):  # the bots read their views when asked: let them read to the end
        agent.mind(host.view(seat))
    return game, agent, host


@pytest.mark.parametrize("setup", SETUPS, ids=setup_id)
def test_bots_play_legally_and_see_only_their_own_view(setup: Setup) -> None:
    for seed in range(12):
        game, agent, host = play(setup, seed, strict=True)
        assert agent.minds, "the bots played"
        said = [e for e in host.public if e.type == "statement"]
        for seat, mind in agent.minds.items():
            assert mind.seen is not None
            # exactly the seat's view, in order, from the core's one definition of it, and the table's statements
            assert [e for e in mind.seen if e.type != "statement"] == visible_events(game.events, seat)
            assert [e for e in mind.seen if e.type == "statement"] == said
            # and it never holds the game: no attribute of it, on either engine (a one-night mind leaves
            # the day-and-night fields unset; a compiled Mind has no __slots__ to list them, dir() has them all)
            assert not any(isinstance(getattr(mind, a, None), Game) for a in dir(mind))
        # sharing the public board (the fast path) changes nothing: public knowledge is everyone's
        fast, _, _ = play(setup, seed, strict=False)
        assert fast.answers == game.answers


def test_speech_acts_render_in_every_language() -> None:
    acts: list[Act] = []
    for setup in (Setup("classic", players=12), Setup("wechat", players=12), Setup("onuw", players=6)):
        for seed in range(10):
            _, _, host = play(setup, seed, strict=False)
            acts += host.talk.acts
    kinds = {a.kind for a in acts}
    assert kinds == set(KINDS) - {"vote"}, kinds  # the bots use every kind of act (vote intentions: heard only)
    for lang in LANGS:
        for act in acts:
            text = render(act, lang, speaker=True)
            assert text and "{" not in text and "None" not in text, (lang, act, text)
    assert render(Act(3, "check", 5, result="wolf"), "en", speaker=True) == "Seat 3: I checked Seat 5: a werewolf."
    assert render(Act(3, "claim", role="seer"), "zh-Hant") == "我是預言家。"
    assert render(Act(1, "call", 7), "zh-Hans") == "我是警长，请大家把票归给7号。"


def test_speech_catalogues_agree() -> None:
    en = messages("en")
    for lang in LANGS:
        cat = messages(lang)
        assert set(cat) == set(en), lang
        for k, v in cat.items():
            assert placeholders(v) == placeholders(en[k]), (lang, k)
    for lang in LANGS:  # beside the main catalogues, shipped with the package (i18n/*.json)
        raw = (Path(__file__).parents[2] / "werewolf" / "i18n" / f"speech_{lang}.json").read_text(encoding="utf-8")
        assert json.loads(raw) == dict(messages(lang))


def test_live_play_speech_is_the_bots_text() -> None:
    game = Game(Setup("classic", players=12, seed=3, live_speech=True))
    Host(game, default=HeuristicAgent(random.Random(3), lang="zh-Hant")).run()
    said = [e.data["text"] for e in game.events if e.type == "speech" and "text" in e.data]
    assert said and all(re.search(r"[\u4e00-\u9fff]", s) for s in said)


def test_strength_smoke() -> None:
    """A small version of scripts/strength.py: each heuristic side beats random opponents clearly."""
    def rate(bots: str, team: str) -> float:
        s = simulate(SimConfig(ruleset="classic", players=12, bots=parse_bots(bots), games=200, seed=17))
        assert s.errors == 0
        return s.win_rate(team)[0]

    wolves0, village0 = rate("random", "wolves"), rate("random", "village")
    assert rate("wolves=heuristic", "wolves") >= wolves0 + 0.20
    assert rate("village=heuristic", "village") >= village0 + 0.20


def test_a_mind_holds_no_game() -> None:
    assert "game" not in inspect.signature(Mind).parameters  # (a compiled __init__ has no __code__)


def fresh(mind: Mind) -> tuple[list[float], dict[int, float], list[float]]:
    """A mind's suspicion, trust and (for a wolf) threat row computed anew, every cache dropped."""
    mind._cache = None
    mind._trust_at = None
    mind.board._seers = (-1, (), ())
    mind.board._listener = (-1, {})
    mind.board._suspicion.clear()
    mind.board._threats.clear()
    sc = mind.scores()
    return list(sc), dict(mind.trust()), list(mind.threats()) if mind.pack else []


@pytest.mark.parametrize("setup", [Setup("classic", deck="c12_wolfking_guard"), Setup("classic", deck="classic12"),
                                   Setup("facetoface", deck="ff12_444_guard"), Setup("wechat", players=12)],
                         ids=setup_id)
def test_cached_suspicion_is_what_a_fresh_look_gives(setup: Setup) -> None:
    # The caches live until the evidence (or, for the threat row, anything public) changes: at every
    # decision, what a mind would use must equal what it computes from scratch.
    for seed in range(6):
        game = Game(Setup(setup.ruleset, deck=setup.deck, players=setup.players, seed=seed))
        agent = HeuristicAgent(random.Random(seed))
        host = Host(game, default=agent)
        checked = 0
        while not game.over:
            for d in game.request:
                host.sync()
                for seat in list(agent.minds):
                    mind = agent.mind(host.view(seat))
                    cached = (list(mind.scores()), dict(mind.trust()), list(mind.threats()) if mind.pack else [])
                    assert cached == fresh(mind), (seed, game.phase, mind.seat)
                    checked += 1
                host.answer(d)
        assert checked > 100


def test_tie_rows_are_the_plain_formula() -> None:
    # tie_row caches the seats' mixes and multiplies by 2**-32: each value must be what the formula gives
    rng = random.Random(7)
    for n in (3, 5, 9, 12, 18, 25):
        for base in [0, 0xFFFFFFFF] + [rng.getrandbits(32) for _ in range(200)]:
            plain = [((base ^ (s * 0x9E3779B1 & 0xFFFFFFFF)) * 0x85EBCA6B & 0xFFFFFFFF) / 4294967296.0
                     for s in range(n + 1)]
            assert tie_row(base, n) == plain, (n, base)


# -- the habits drawn at random (Policy) ------------------------------------------------------------
def habits(policy: Policy | None = None, games: int = 150) -> dict[str, int]:
    """Over seeded games of c12_wolfking_guard: how often the seer was dead by day 3, claimed on day 1, the witch
    saved on night 1, the guard guarded on night 1."""
    from werewolf.agents.speech import Channel

    out = {"games": 0, "seer_dead_by_day3": 0, "seer_claimed_day1": 0, "witch_saved_night1": 0,
           "guard_guarded_night1": 0}
    for seed in range(games):
        game = Game(Setup("classic", deck="c12_wolfking_guard", seed=seed))
        agent = HeuristicAgent(random.Random(seed), policy=policy or Policy())
        channel = Channel()
        Host(game, default=agent, talk=channel).run()
        roles = {e.data["seat"]: e.data["role"] for e in game.events if e.type == "role" and e.phase == "setup"}
        seer = next(s for s, r in roles.items() if r == "seer")
        death = next((e.phase for e in game.events if e.type == "death" and e.data["seat"] == seer), None)
        out["games"] += 1
        out["seer_dead_by_day3"] += death is not None and int(death.lstrip("daynight")) <= 3
        out["seer_claimed_day1"] += any(a.seat == seer and a.kind == "claim" and a.phase == "day1"
                                        for a in channel.acts)
        for e in game.events:
            if e.phase == "night1" and e.type == "potions" and e.data.get("save") is not None:
                out["witch_saved_night1"] += 1
            if e.phase == "night1" and e.type == "guarded" and e.data.get("target") is not None:
                out["guard_guarded_night1"] += 1
    return out


def test_the_bots_habits_vary_from_game_to_game() -> None:
    h = habits()
    n = h["games"]
    # once: the seer dead by day 3 in every game, the witch saving on night 1 in every game she could, the guard
    # never guarding on night 1
    assert h["seer_dead_by_day3"] < n, h
    assert 0.4 * n < h["seer_claimed_day1"] < 0.95 * n, h
    assert 0.5 * n < h["witch_saved_night1"] < 0.85 * n, h
    assert 0.15 * n < h["guard_guarded_night1"] < 0.55 * n, h


def test_the_policy_sets_the_habits() -> None:
    fixed = habits(Policy(seer_claims_at_once=1.0, witch_saves_first_night=1.0, guard_guards_first_night=0.0),
                   games=60)
    assert fixed["guard_guarded_night1"] == 0
    assert fixed["seer_claimed_day1"] >= 0.9 * fixed["games"]  # (a seer killed on night 1 may not have claimed)
    assert fixed["witch_saved_night1"] >= 0.85 * fixed["games"]
    other = habits(Policy(seer_claims_at_once=0.0, witch_saves_first_night=0.0, guard_guards_first_night=1.0),
                   games=60)
    assert other["guard_guarded_night1"] == other["games"]
    assert other["witch_saved_night1"] <= 0.15 * other["games"]  # only when she is the victim herself
    assert other["seer_claimed_day1"] < fixed["seer_claimed_day1"]
    hunted = habits(Policy(wolves_hunt_the_seer=1.0), games=60)
    spared = habits(Policy(wolves_hunt_the_seer=0.0), games=60)
    assert spared["seer_dead_by_day3"] < hunted["seer_dead_by_day3"]
    with pytest.raises(ValueError, match="probability"):
        Policy(witch_saves_first_night=1.5)


def test_the_habits_are_drawn_from_the_games_seed() -> None:
    # the same seed: the same draws, the same game, event for event
    a, _, _ = play(Setup("classic", deck="c12_wolfking_guard"), 5, strict=False)
    b, _, _ = play(Setup("classic", deck="c12_wolfking_guard"), 5, strict=True)
    assert a.events == b.events and a.answers == b.answers
