"""The rule a game's end names explains the side that won (issue 26, item 7: the result card quotes it)."""

from __future__ import annotations

import random

from werewolf.core.game import Game, Setup


def test_the_kill_first_check_names_its_rule_only_for_a_wolves_win() -> None:
    seen = set()
    for seed in range(200):
        g = Game(Setup(ruleset="classic", deck="classic9", seed=seed))
        g.play_out(random.Random(seed))
        end = next(e for e in reversed(g.events) if e.type == "game_over")
        seen.add((end.data["rule"], tuple(end.data["teams"])))
        if end.data["rule"] == "wolf_kill_first":
            assert end.data["teams"] == ["wolves"], (seed, end.data)
    assert ("good_wins", ("village",)) in seen and ("wolf_kill_first", ("wolves",)) in seen, seen
