"""Bots speak the table's language (issue 15), and what they say moves the other bots as in English."""

from __future__ import annotations

import random
import re

import pytest

from werewolf.agents import Host
from werewolf.agents.heuristic import HeuristicAgent
from werewolf.core.game import Game, Setup
from werewolf.i18n import LANGS

CJK = re.compile(r"[\u4e00-\u9fff]")
SETUPS = [("classic", 12), ("wechat", 12), ("facetoface", 12), ("onuw", 6), ("onenight", 5)]


def bots_game(ruleset: str, players: int, seed: int, lang: str) -> Host:
    host = Host(Game(Setup(ruleset, players=players, seed=seed, live_speech=True)), {},
                HeuristicAgent(random.Random(seed), lang=lang))
    host.run()
    return host


@pytest.mark.parametrize(("ruleset", "players"), SETUPS, ids=[s for s, _ in SETUPS])
def test_a_bots_claim_in_each_language_moves_the_other_bots_as_in_english(ruleset: str, players: int) -> None:
    spoke = 0
    for seed in range(3):
        games = {lang: bots_game(ruleset, players, seed, lang) for lang in LANGS}
        english = games["en"]
        for lang, host in games.items():
            texts = [str(e.data["text"]) for e in host.game.events if e.type == "speech" and e.data.get("text")]
            spoke += len(texts)
            assert all(bool(CJK.search(s)) == (lang != "en") for s in texts), (lang, texts)
            # The statements read back from the text are the English game's, and so is every other move.
            assert [a.as_tuple() for a in host.talk.acts] == [a.as_tuple() for a in english.talk.acts], lang
            assert [x for x in host.game.answers if x[1] != "speak"] == \
                   [x for x in english.game.answers if x[1] != "speak"], lang
            assert host.game.result == english.game.result
    assert spoke > 0
