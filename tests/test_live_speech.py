"""Live play: speaking turns wait for their speaker, and wolves may self-destruct before any speech."""

from __future__ import annotations

import pytest

from werewolf.agents import Agent, RandomAgent, Said, play
from werewolf.core.decisions import Move
from werewolf.core.errors import IllegalMove
from werewolf.core.game import Game, Setup
from werewolf.core.views import SeatView
from werewolf.i18n import LANGS, narrate


def test_each_turn_waits_for_its_speaker_and_keeps_the_text() -> None:
    g = Game(Setup("classic", seats=("werewolf",) * 3 + ("seer", "witch", "hunter") + ("villager",) * 3,
                   live_speech=True, stop_after_day=1))
    said = 0
    while not g.over:
        for d in list(g.request):
            if d.act == "speak":
                said += 1
                g.answer(d.seat, {"act": "speak", "text": f"I am seat {d.seat}"})
            else:
                g.decline(d)
    speeches = [e for e in g.events if e.type == "speech"]
    assert speeches and said >= len(speeches)
    assert all(e.data["text"] == f"I am seat {e.data['seat']}" for e in speeches)


def test_a_wolf_may_self_destruct_before_a_later_speech() -> None:
    g = Game(Setup("classic", seats=("werewolf",) * 3 + ("seer", "witch", "hunter") + ("villager",) * 3,
                   live_speech=True, stop_after_day=1))
    spoken = 0
    while not g.over:
        for d in list(g.request):
            if d.act == "speak":
                spoken += 1
                g.decline(d)
            elif d.act == "explode" and spoken == 2 and d.seat == 1:
                g.answer(1, {"act": "explode"})
            else:
                g.decline(d)
    assert [e.data["seat"] for e in g.events if e.type == "death" and e.phase == "day1"] == [1]
    assert sum(1 for e in g.events if e.type == "speech" and e.data["part"] == "discussion") == 2


def test_random_live_games_end_and_replay() -> None:
    for seed in range(20):
        g = play(Game(Setup("classic", players=12, seed=seed, live_speech=True)), {}, RandomAgent(seed))
        assert g.over
        assert Game.replay(g.setup, g.answers).events == g.events


# -- a pass is no speech (issue 15) -------------------------------------------------------------------------------
NINE = ("werewolf",) * 3 + ("seer", "witch", "hunter") + ("villager",) * 3


def _day_one(answer: dict[int, dict[str, object]]) -> Game:
    """A live classic game to the end of day 1: each seat's discussion turn answered with ``answer[seat]``
    (else "done"), everything else declined."""
    g = Game(Setup("classic", seats=NINE, live_speech=True, stop_after_day=1))
    while not g.over:
        for d in list(g.request):
            if d.act == "speak" and getattr(d, "part", "") == "discussion" and d.seat in answer:
                g.answer(d.seat, answer[d.seat])
            else:
                g.decline(d)
    return g


def test_a_passed_turn_stays_in_its_place_marked_passed() -> None:
    g = _day_one({2: {"act": "speak", "pass": True}, 3: {"act": "speak", "text": "seat 5 is a wolf"}})
    turns = [e.as_json(with_audience=False) for e in g.events if e.type == "speech" and e.data["part"] == "discussion"]
    order = next(e.data["seats"] for e in g.events if e.type == "speaking_order")
    assert [e["seat"] for e in turns] == order  # the order of turns is kept, the pass included
    by_seat = {e["seat"]: e for e in turns}
    assert by_seat[2] == {"type": "speech", "phase": "day1", "seat": 2, "part": "discussion", "passed": True}
    assert by_seat[3]["text"] == "seat 5 is a wolf" and "passed" not in by_seat[3]
    assert all("passed" not in e for s, e in by_seat.items() if s != 2)  # "done" (spoken aloud) is no pass
    assert [v for s, a, v in g.answers if s == 2 and a == "speak"] == [""]
    assert Game.replay(g.setup, g.answers).events == g.events


def test_a_pass_is_narrated_as_one_in_every_language() -> None:
    e = {"type": "speech", "phase": "day1", "seat": 2, "part": "discussion", "passed": True}
    assert narrate(e, "en", 4) == "Seat 2 passed."
    assert narrate(e, "en", 2) == "You passed."
    assert narrate(e, "zh-Hant", 4) == "2號過（放棄發言）。"
    assert narrate(e, "zh-Hans", None) == "2号过（放弃发言）。"
    lw = {"type": "last_words_text", "phase": "day1", "seat": 2, "passed": True}
    assert narrate(lw, "en", 4) == "Seat 2 passed: no last words said."
    for lang in LANGS:
        assert "{" not in (narrate(e, lang, 2, strict=True) or "") + (narrate(lw, lang, 2, strict=True) or "")


def test_a_pass_with_text_is_refused_and_changes_nothing() -> None:
    g = Game(Setup("classic", seats=NINE, live_speech=True, stop_after_day=1))
    while not any(d.act == "speak" for d in g.request):
        for d in list(g.request):
            g.decline(d)
    d = next(d for d in g.request if d.act == "speak")
    before = len(g.events)
    for move, why in (({"act": "speak", "pass": True, "text": "hi"}, "no text with pass"),
                      ({"act": "speak", "pass": "yes"}, "pass must be true or false")):
        with pytest.raises(IllegalMove, match=why):
            g.answer(d.seat, move)
    assert len(g.events) == before and d in g.pending()


def test_a_bot_with_nothing_to_say_passes() -> None:
    class Mute(Agent):
        def act(self, view: SeatView) -> Move | None:
            return None

        def speak(self, view: SeatView) -> Said:
            return "  "  # nothing, typed

    g = play(Game(Setup("classic", seats=NINE, seed=3, live_speech=True, stop_after_day=1)), {}, Mute())
    turns = [e for e in g.events if e.type == "speech"]
    assert turns and all(e.data.get("passed") is True for e in turns)
