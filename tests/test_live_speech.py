"""Live play: speaking turns wait for their speaker, and wolves may self-destruct before any speech."""

from __future__ import annotations

from werewolf.agents import RandomAgent, play
from werewolf.core.game import Game, Setup


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
