"""The one-night discussion in live play: rounds of statements until everyone is ready to vote."""

from __future__ import annotations

import random

import pytest

from werewolf.agents import Host, RandomAgent, play
from werewolf.agents.heuristic import HeuristicAgent
from werewolf.agents.speech import Act, speech_text
from werewolf.core.decisions import Speak
from werewolf.core.game import Game, Setup

SEATS = ("werewolf", "seer", "robber", "troublemaker", "villager")
CENTER = ("werewolf", "villager", "insomniac")


def at_discussion(ruleset: str = "onuw", **options: object) -> Game:
    cards = {"seats": SEATS, "center": CENTER} if ruleset == "onuw" else {"players": 5}
    g = Game(Setup(ruleset, live_speech=True, options=options, **cards))  # type: ignore[arg-type]
    while not g.over and not any(d.act == "speak" for d in g.request):
        for d in list(g.request):
            g.decline(d)
    return g


def asked(g: Game) -> list[tuple[int, str]]:
    return [(d.seat, d.act) for d in g.request]


def test_everyone_speaks_freely_until_every_seat_is_ready_then_the_vote() -> None:
    g = at_discussion()
    assert [e.type for e in g.events[-2:]] == ["day", "discussion"]
    assert asked(g) == [(s, "speak") for s in range(1, 6)]
    assert all(isinstance(d, Speak) and d.part == "discussion" for d in g.request)
    # Answered out of seat order: each statement is said as it is sent (issue 15), in the order sent; the
    # other seats' turns stay open (the very same decisions), and a speaker is asked again at once: to reply
    # or to say it is ready, without waiting for anyone (issue 26).
    first = list(g.request)
    order = (5, 3, 2, 1, 4)
    for k, s in enumerate(order):
        g.answer(s, {"act": "speak", "text": f"seat {s} here" if s in (5, 2, 3) else None})
        said = [e.data["seat"] for e in g.events if e.type == "speech"]
        assert said == [x for x in order[:k + 1] if x in (5, 2, 3)]
        if s != 4:
            untouched = [d for d in first if d.seat not in order[:k + 1]]
            assert [d for d in g.request if d in untouched] == untouched
            assert sorted(d.seat for d in g.request) == sorted([d.seat for d in untouched] +
                                                               [x for x in order[:k + 1] if x in (5, 2, 3)])
    speeches = [e for e in g.events if e.type == "speech"]
    assert [(e.data["seat"], e.data["part"], e.data["text"]) for e in speeches] == [
        (5, "discussion", "seat 5 here"), (3, "discussion", "seat 3 here"), (2, "discussion", "seat 2 here")]
    assert all(e.to is None for e in speeches)
    # Seats 1 and 4 are ready and are not asked again; whitespace is no statement either.
    assert asked(g) == [(2, "speak"), (3, "speak"), (5, "speak")]
    g.answer(3, {"act": "speak", "text": "one more thing"})
    g.answer(3, {"act": "speak", "text": "and another"})  # twice in a row: nobody is waited for
    g.answer(2, {"act": "speak", "text": "  "})
    g.answer(5, {"act": "speak", "text": None})
    assert asked(g) == [(3, "speak")]
    assert [e.data["seat"] for e in g.events if e.type == "speech"] == [5, 3, 2, 3, 3]
    g.answer(3, {"act": "speak"})
    assert asked(g) == [(s, "vote") for s in range(1, 6)]


def test_answers_in_the_earlier_rounds_order_play_the_same_game() -> None:
    """A room stored when a speaker waited for the round's end replays to the same events."""
    g = at_discussion("onenight")
    rounds = [[(1, "a"), (2, "b"), (3, None), (4, "c"), (5, None)], [(4, "d"), (1, None), (2, "e")],
              [(2, None), (4, None)]]
    for r in rounds:
        for s, text in r:
            g.answer(s, {"act": "speak", "text": text})
    assert asked(g) == [(s, "vote") for s in range(1, 6)]
    assert [(e.data["seat"], e.data["text"]) for e in g.events if e.type == "speech"] == [
        (1, "a"), (2, "b"), (4, "c"), (4, "d"), (2, "e")]
    assert Game.replay(g.setup, g.answers).events == g.events


def test_declining_the_open_turns_ends_the_discussion() -> None:
    """What a front end does when the clock runs out."""
    g = at_discussion("onenight", discussion_seconds=60)
    assert g.events[-1].data == {"seconds": 60}
    for d in list(g.request):
        g.answer(d.seat, {"act": "speak", "text": "wait"})
    assert len(g.request) == 5
    for d in list(g.request):
        g.decline(d)
    assert asked(g) == [(s, "vote") for s in range(1, 6)]
    for d in list(g.request):
        g.decline(d)
    assert g.over
    assert Game.replay(g.setup, g.answers).events == g.events


def test_without_live_speech_nobody_is_asked_to_speak() -> None:
    g = Game(Setup("onuw", seats=SEATS, center=CENTER))
    while not g.over:
        assert all(d.act != "speak" for d in g.request)
        for d in list(g.request):
            g.decline(d)
    assert not [e for e in g.events if e.type == "speech"]


@pytest.mark.parametrize("ruleset", ["onuw", "onenight"])
def test_bots_end_an_unlimited_discussion(ruleset: str) -> None:
    for seed in range(30):
        setup = Setup(ruleset, seed=seed, live_speech=True, options={"discussion_seconds": None})
        agent = HeuristicAgent(random.Random(seed), strict=True)
        host = Host(Game(setup), default=agent)
        g = host.run()
        assert g.over
        talk = [e for e in g.events if e.type == "speech"]
        assert talk and all(e.data["part"] == "discussion" and e.data["text"] for e in talk)
        # Every bot speaks in the first round; no bot is asked more than three times.
        rounds = [s for s, act, _ in g.answers if act == "speak"]
        assert set(rounds) == set(range(1, g.table.n + 1))  # type: ignore[attr-defined]
        assert max(rounds.count(s) for s in set(rounds)) <= 3
        assert Game.replay(setup, g.answers).events == g.events
        # Every text said is read back as statements (the bots' words, heard by every seat).
        assert len(host.talk) >= len(talk)
        g = play(Game(setup), {}, RandomAgent(seed))
        assert g.over and not [e for e in g.events if e.type == "speech"]


def test_a_bot_answers_an_accusation_in_the_second_round() -> None:
    g = at_discussion()
    bot = HeuristicAgent(random.Random(1))
    host = Host(g, {2: bot})
    seat = 2  # the seer, accused by seat 1 (a person: typed text, which the bots read) in the first round
    g.answer(1, {"act": "speak", "text": "Seat 2 is a wolf"})
    first = host.ask(next(d for d in g.request if d.seat == seat))
    assert first is not None and first["text"]
    for d in [d for d in g.request if d.seat not in (1, seat)]:
        g.decline(d)
    g.answer(seat, first)
    second = host.ask(next(d for d in g.request if d.seat == seat))
    assert Act(1, "accuse", seat) in host.talk.acts
    assert second == {"act": "speak", "text": "I am good. Do not vote for me."}
    g.answer(seat, second)
    assert asked(g) == [(1, "speak"), (2, "speak")]  # free speech: seat 2 is asked again at once
    g.decline(g.request[0])
    assert host.ask(next(d for d in g.request if d.seat == seat)) == {"act": "speak", "pass": True}  # ready


def test_a_statement_joins_its_sentences_as_each_language_does() -> None:
    acts = [Act(2, "claim", role="seer"), Act(2, "check", 3, role="werewolf")]
    assert speech_text(acts, "en") == "I am the Seer. I saw Seat 3's card: Werewolf."
    assert speech_text(acts, "zh-Hant") == "我是預言家。我看到3號的牌：狼人。"
    assert speech_text([], "en") is None
