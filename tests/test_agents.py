"""The agent interface: seat views only, stable option ids, the traps of issue 17, bots that listen."""

from __future__ import annotations

import inspect
import json
import random
from typing import Any

import pytest

from werewolf.agents import Agent, Host, RandomAgent, Said, seat_view
from werewolf.agents.heuristic import HeuristicAgent
from werewolf.agents.speech import Act
from werewolf.core.decisions import AnyOf, Choice, Decision, Flag, Move, Pair, Speak, Subset, Target
from werewolf.core.errors import IllegalMove
from werewolf.core.events import Event
from werewolf.core.game import Game, Setup
from werewolf.core.views import SeatView, option_id, visible_events
from werewolf.rulesets.daynight.day import Explode

SETUPS = [Setup("classic", players=12), Setup("classic", deck="c12_wolfking_thief_cupid"), Setup("wechat", players=12),
          Setup("facetoface", players=12), Setup("onuw", players=6), Setup("onenight", players=5)]


def seeded(setup: Setup, seed: int, live: bool = False) -> Setup:
    return Setup(setup.ruleset, deck=setup.deck, players=setup.players, options=setup.options, seed=seed,
                 live_speech=live)


class Recorder(Agent):
    """Plays at random from its views, and keeps every view it was handed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.views: list[SeatView] = []

    def act(self, view: SeatView) -> Move | None:
        self.views.append(view)
        opts = list(view.options().values())
        return opts[self.rng.randrange(len(opts))] if opts else None

    def speak(self, view: SeatView) -> Said:
        self.views.append(view)
        return None


# -- 1. agents see only their seat ------------------------------------------------------------------------------
@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: s.ruleset)
def test_a_seat_view_is_the_seat_and_nothing_else(setup: Setup) -> None:
    for seed in range(4):
        game = Game(seeded(setup, seed))
        agents: dict[int, Agent] = {s: Recorder(seed * 100 + s) for s in range(1, len(game.dealt) + 1)}
        host = Host(game, agents)
        host.run()
        for seat, agent in agents.items():
            assert isinstance(agent, Recorder)
            last = host.view(seat)
            log = [e for e in last.events() if e.type != "statement"]
            assert log == visible_events(game.events, seat)  # the core's one rule of who sees what
            assert last.role == game.dealt[seat - 1] or any(e.type == "took" for e in last.private)
            # incremental: the new items of successive views add up to the whole log, in order
            pieces: list[Event] = []
            read = (0, 0)
            for v in agent.views + [last]:
                pieces += v.events_since(*read)
                read = (len(v.public), len(v.private))
            assert pieces == last.events()
            as_json = json.loads(json.dumps(last.as_json()))  # what a web app could serve
            assert as_json["seat"] == seat and len(as_json["events"]) == len(last.events())
            for v in agent.views:  # each view is the seat's, frozen at its moment
                assert v.seat == seat and all(e.to is None or seat in e.to for e in v.events())


def test_an_agent_is_never_handed_the_game() -> None:
    for cls in (Agent, RandomAgent, HeuristicAgent):
        for name in ("act", "speak"):
            params = list(inspect.signature(getattr(cls, name)).parameters)
            assert params == ["self", "view"], (cls, name, params)
    game = Game(Setup("classic", players=12, seed=1))
    view = seat_view(game, 3, game.pending(3)[0] if game.pending(3) else None)
    fields = ("seat", "ruleset", "players", "role", "phase", "public", "private", "public_since", "private_since",
              "decision", "over", "result", "part", "live_speech")  # (a compiled class lists no __slots__)
    assert set(getattr(SeatView, "__slots__", fields)) == set(fields)
    for name in fields:
        value = getattr(view, name)
        assert not isinstance(value, Game) and "table" not in type(value).__name__.lower(), name


def test_option_ids_are_stable_and_documented() -> None:
    vote = Target(2, "vote", [1, 3, 4])
    assert list(map(option_id, vote.options())) == ["vote:1", "vote:3", "vote:4", "vote:none"]
    assert option_id(Target(5, "vote", [4, 6]).options()[0]) == "vote:4"  # same id, another decision
    witch = AnyOf(6, [Flag(6, "save"), Target(6, "poison", [1, 2])], conflict="one potion a night")
    assert list(map(option_id, witch.options())) == ["save", "poison:1", "poison:2", "save:no"]
    assert list(map(option_id, Pair(2, "link", [1, 3, 5]).options()))[:2] == ["link:1,3", "link:1,5"]
    assert option_id(Choice(2, "side", "side", ["wolves", "village"]).options()[0]) == "side:wolves"
    assert list(map(option_id, Explode(3, "day", [1]).options())) == ["explode:day", "explode:1:day", "explode:no:day"]
    assert option_id(Subset(2, "ban", [1, 2], 2).options()[0]) == "ban:none"
    game = Game(Setup("classic", players=12, seed=2))
    d = game.request[0]
    view = seat_view(game, d.seat, d)
    assert list(view.options().values()) == d.options()
    first = next(iter(view.options()))
    assert view.move(first) == d.options()[0]
    with pytest.raises(KeyError, match="legal"):
        view.move("vote:99")


# -- 2. the traps -----------------------------------------------------------------------------------------------
class Quiet(Agent):
    """A user's agent that never says a word and always takes the default."""

    def act(self, view: SeatView) -> Move | None:
        return None


@pytest.mark.parametrize("live", [False, True])
def test_the_bots_never_speak_for_a_users_seat(live: bool) -> None:
    for seed in range(6):
        host = Host(Game(Setup("classic", players=12, seed=seed, live_speech=live)), {4: Quiet()},
                    HeuristicAgent(random.Random(seed)))
        game = host.run()
        assert host.talk.acts, "the bots talked"
        assert not [a for a in host.talk.acts if a.seat == 4]
        assert not [e for e in game.events if e.type == "speech" and e.data["seat"] == 4 and e.data.get("text")]


def test_a_bot_refuses_a_seat_it_was_not_given() -> None:
    game = Game(Setup("classic", players=12, seed=1))
    bot = HeuristicAgent(random.Random(1), seats=[1, 2])
    d = next(d for d in game.request if d.seat not in (1, 2))
    with pytest.raises(ValueError, match="not seat"):
        bot.act(seat_view(game, d.seat, d))


def test_check_refuses_a_move_of_another_act() -> None:
    cases: list[tuple[Decision, Move]] = [
        (Target(1, "vote", [2, 3]), {"act": "kill", "target": 2}),
        (Target(1, "vote", [2, 3]), {"act": "pk_vote", "target": None}),
        (Flag(1, "run"), {"act": "withdraw"}),
        (Pair(1, "link", [2, 3]), {"act": "swap", "targets": [2, 3]}),
        (Choice(1, "take", "card", [1, 2]), {"act": "peek", "card": 1}),
        (Subset(1, "ban", [2, 3], 2), {"act": "vote", "targets": [2]}),
        (Speak(1, "discussion"), {"act": "say", "text": "hi"}),
        (AnyOf(1, [Flag(1, "save"), Target(1, "poison", [2])], conflict="x"), {"act": "vote", "target": 2}),
    ]
    for d, move in cases:
        reason = d.check(move)
        assert reason is not None and repr(move["act"]) in reason and "asks for" in reason, (d, reason)
    assert "when='day'" in (Explode(1, "day", None).check({"act": "explode", "when": "night"}) or "")
    assert Target(1, "vote", [2, 3]).check({"act": "vote", "target": 2}) is None
    game = Game(Setup("classic", players=12, seed=1))
    d = game.request[0]
    with pytest.raises(IllegalMove, match="not asked"):
        game.answer(d.seat, {"act": "no_such_act"})


def test_the_deal_is_the_engines_not_the_agents() -> None:
    for setup in (Setup("classic", deck="c12_wolfking_thief_cupid", seed=3), Setup("onuw", players=6, seed=3),
                  Setup("wechat", players=12, seed=3)):
        game = Game(setup)
        assert setup.seats is None  # the setup is what was asked for, the deal is the game's
        roles = {e.data["seat"]: e.data["role"] for e in game.events if e.type == "role" and e.phase == "setup"}
        assert game.dealt == tuple(roles[s] for s in sorted(roles))
        for seat in range(1, len(game.dealt) + 1):  # and no seat's view holds another's card
            view = seat_view(game, seat)
            told = [e for e in view.events() if e.type == "role"]
            assert told and all(e.data["seat"] == seat for e in told)
    fixed = Game(Setup("classic", seats=("werewolf", "seer", "villager", "witch")))
    assert fixed.dealt == ("werewolf", "seer", "villager", "witch")


# -- no bot uses another seat's secrets --------------------------------------------------------------------------
@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: s.ruleset)
def test_no_bot_uses_another_seats_hidden_information(setup: Setup) -> None:
    # One agent playing every seat with a mind per seat (and a shared public board), against one agent per
    # seat that share nothing but the random stream and the salt: the same games, move for move. A mind that
    # read another seat's mind, or a board that held anything private, would play differently.
    for seed in range(5):
        one = Host(Game(seeded(setup, seed)), default=HeuristicAgent(random.Random(seed), salt=seed))
        one.run()
        rng = random.Random(seed)
        n = len(one.game.dealt)
        apart = Host(Game(seeded(setup, seed)), {s: HeuristicAgent(rng, salt=seed, seats=[s]) for s in range(1, n + 1)})
        apart.run()
        assert one.game.answers == apart.game.answers, (setup.ruleset, seed)
        assert one.talk.acts == apart.talk.acts


# -- 3. bots that listen -----------------------------------------------------------------------------------------
class Claimer(Agent):
    """A user's seat: it decides as the bot would (the same bot object, so the same random draws), but at
    its first speaking turn says ``said`` itself: structured acts, or typed text."""

    def __init__(self, bot: HeuristicAgent, said: Said) -> None:
        self.bot, self.said, self.done = bot, said, False
        self.lang = bot.lang

    def act(self, view: SeatView) -> Move | None:
        return self.bot.act(view)

    def speak(self, view: SeatView) -> Said:
        if not self.done and view.part == "discussion":
            self.done = True
            return self.said
        return self.bot.speak(view)


def claim_game(seed: int, said: Any, live: bool = False, lang: str = "en") -> Host:
    bot = HeuristicAgent(random.Random(seed), lang=lang)
    host = Host(Game(Setup("classic", players=12, seed=seed, live_speech=live)), {1: Claimer(bot, said)}, bot)
    host.run()
    return host


def ballots(game: Game) -> list[dict[str, Any]]:
    return [dict(e.data.get("ballots") or {}) for e in game.events if e.type == "votes"]


TEXTS = {"en": "I'm the seer, {t} is a wolf", "zh-Hant": "我是預言家，{t}號查殺，{t}號是狼",
         "zh-Hans": "我跳预言家 {t}号查杀 {t}号是狼"}


@pytest.mark.parametrize("live", [False, True])
def test_a_claim_typed_by_a_non_bot_seat_moves_the_bots_as_a_bots_claim(live: bool) -> None:
    moved = 0
    for seed in range(12):
        t = 5 if seed % 2 else 7
        acts = [Act(1, "claim", role="seer"), Act(1, "check", t, result="wolf"), Act(1, "accuse", t)]
        lang = ("en", "zh-Hant", "zh-Hans")[seed % 3]
        as_bot = claim_game(seed, acts, live, lang)  # what a bot's mind says, structured
        typed = claim_game(seed, TEXTS[lang].format(t=t), live, lang)  # the same claim, typed
        silent = claim_game(seed, [], live, lang)
        assert [a.as_tuple()[:5] for a in typed.talk.acts] == [a.as_tuple()[:5] for a in as_bot.talk.acts]
        assert ballots(typed.game) == ballots(as_bot.game), seed  # every bot's vote, every round
        assert [(s, a, v) for s, a, v in typed.game.answers if a != "speak"] == \
               [(s, a, v) for s, a, v in as_bot.game.answers if a != "speak"]
        moved += ballots(silent.game) != ballots(as_bot.game)
    assert moved >= 6  # and the claim does move the bots


def test_the_bots_weigh_a_persons_check_report() -> None:
    # A claimed seer's report of a wolf draws the village's votes on day 1 (the issue: 0 votes moved before).
    on_target = {True: 0, False: 0}
    for seed in range(12):
        for claim in (True, False):
            t = 5 if seed % 2 else 7
            host = claim_game(seed, TEXTS["en"].format(t=t) if claim else [])
            first = next((b for b in ballots(host.game) if b), {})
            on_target[claim] += sum(1 for v in first.values() if v == t)
    assert on_target[True] > on_target[False] + 12, on_target


# -- 4. the README's example -------------------------------------------------------------------------------------
def test_the_readmes_own_agent_example_runs() -> None:
    from test_readme_agents import python_block  # (tests/ is on the path, as pytest runs these files)

    scope: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(python_block("## Your own agent"), "docs/agents.md", "exec"), scope)  # noqa: S102 - our own docs
    game = scope["game"]
    assert isinstance(game, Game) and game.over


def test_statements_sit_right_after_their_speaking_turn() -> None:
    for seed in range(4):
        host = Host(Game(Setup("classic", players=12, seed=seed)), default=HeuristicAgent(random.Random(seed)))
        host.run()
        turn: Event | None = None
        said = 0
        for e in host.public:
            if e.type == "statement":
                assert turn is not None and turn.data["seat"] == e.data["seat"], e.data
                said += 1
            else:
                turn = e if e.type in ("speech", "last_words") else None
        assert said == len(host.talk.acts) > 0
