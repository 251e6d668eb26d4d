"""Reading statements from text: the engine's own sentences in three languages, and what players type."""

from __future__ import annotations

import random

import pytest

from werewolf.agents import Host
from werewolf.agents.heuristic import HeuristicAgent
from werewolf.agents.parse import normalize, parse
from werewolf.agents.speech import KINDS, Act, render, speech_text
from werewolf.core.game import Game, Setup
from werewolf.i18n import LANGS
from werewolf.roles import ROLES

Row = tuple[str | None, int | None, str | None, str | None]


def acts(text: str, seat: int = 2) -> list[Row]:
    return [(a.kind, a.target, a.role, a.result) for a in parse(text, seat)]


def every_act(seat: int = 3) -> list[Act]:
    out = [Act(seat, "claim", role=r) for r in ROLES]
    out += [Act(seat, "check", 5, result=r) for r in ("wolf", "good", "village", "not_village")]
    out += [Act(seat, "check", 11, role=r) for r in ROLES]
    out += [Act(seat, k, t) for k in ("accuse", "vouch", "call", "vote") for t in (1, 9, 12)]
    return out + [Act(seat, "defend")]


@pytest.mark.parametrize("lang", LANGS)
def test_every_sentence_the_engine_renders_reads_back(lang: str) -> None:
    for act in every_act():
        assert parse(render(act, lang), 3) == [act], (lang, render(act, lang))
    assert {a.kind for a in every_act()} == set(KINDS)


@pytest.mark.parametrize("lang", LANGS)
def test_the_bots_whole_speeches_read_back(lang: str) -> None:
    # Every speaking turn of bot games, as live play says it (speech_text), parsed: the same acts.
    checked = 0
    for setup in (Setup("classic", players=12), Setup("wechat", players=12), Setup("onuw", players=6)):
        for seed in range(4):
            host = Host(Game(Setup(setup.ruleset, players=setup.players, seed=seed)),
                        default=HeuristicAgent(random.Random(seed)))
            host.run()
            turns: dict[tuple[int, int], list[Act]] = {}
            for act, after in zip(host.talk.acts, host.after):
                turns.setdefault((after, act.seat), []).append(act)
            for said in turns.values():
                text = speech_text(said, lang)
                assert text is not None
                want = []
                for a in said:  # a turn says each act once
                    key = (a.kind, a.target, a.role, a.result)
                    if key not in [(b.kind, b.target, b.role, b.result) for b in want]:
                        want.append(a)
                got = parse(text, said[0].seat)
                assert [(a.kind, a.target, a.role, a.result) for a in got] == \
                       [(a.kind, a.target, a.role, a.result) for a in want], text
                checked += 1
    assert checked > 100


TYPED: list[tuple[str, list[Row]]] = [
    # claims
    ("我是預言家", [("claim", None, "seer", None)]),
    ("我跳預言家", [("claim", None, "seer", None)]),
    ("我跳预言家", [("claim", None, "seer", None)]),
    ("本人女巫", [("claim", None, "witch", None)]),
    ("我是獵人，別投我", [("claim", None, "hunter", None), ("defend", None, None, None)]),
    ("I'm the seer", [("claim", None, "seer", None)]),
    ("I am a Villager.", [("claim", None, "villager", None)]),
    ("i claim witch", [("claim", None, "witch", None)]),
    ("I am the prophet", [("claim", None, "seer", None)]),
    # check reports
    ("我是預言家，5號查殺", [("claim", None, "seer", None), ("check", 5, None, "wolf")]),
    ("3號金水", [("check", 3, None, "good")]),
    ("查殺5號", [("check", 5, None, "wolf")]),
    ("給7號金水", [("check", 7, None, "good")]),
    ("十一號查殺", [("check", 11, None, "wolf")]),
    ("五号查杀", [("check", 5, None, "wolf")]),
    ("我是预言家，昨晚验了7号，是好人", [("claim", None, "seer", None), ("check", 7, None, "good")]),
    ("我驗了4號，狼人", [("check", 4, None, "wolf")]),
    ("I'm the seer, 5 is a wolf",
     [("claim", None, "seer", None), ("check", 5, None, "wolf"), ("accuse", 5, None, None)]),
    ("I am the seer. Seat 4 is good", [("claim", None, "seer", None), ("check", 4, None, "good")]),
    ("I checked seat 4 and he is a wolf", [("check", 4, None, "wolf")]),
    ("I checked 8: good", [("check", 8, None, "good")]),
    ("I saw seat 2's card: Robber", [("check", 2, "robber", None)]),
    ("我看到2號的牌：強盜", [("check", 2, "robber", None)]),
    # the witch's save
    ("I'm the witch, I saved 3", [("claim", None, "witch", None), ("vouch", 3, None, None)]),
    ("我是女巫，昨晚救了3號，3號銀水", [("claim", None, "witch", None), ("vouch", 3, None, None)]),
    ("6号银水", [("vouch", 6, None, None)]),
    # accusations, defences, vouches, vote intentions, the sheriff's call
    ("5 is a wolf", [("accuse", 5, None, None)]),
    ("Seat 9 is definitely a wolf, vote 9 out", [("accuse", 9, None, None)]),
    ("5號是狼", [("accuse", 5, None, None)]),
    ("5號悍跳，出5號", [("accuse", 5, None, None)]),
    ("把8號投出去", [("accuse", 8, None, None)]),
    ("5 is good", [("vouch", 5, None, None)]),
    ("I trust player 6", [("vouch", 6, None, None)]),
    ("3號好人", [("vouch", 3, None, None)]),
    ("我相信10號", [("vouch", 10, None, None)]),
    ("I am good, don't vote for me", [("defend", None, None, None)]),
    ("I'm innocent", [("defend", None, None, None)]),
    ("我是好人，不要投我", [("defend", None, None, None)]),
    ("我不是狼", [("defend", None, None, None)]),
    ("I will vote for seat 4", [("vote", 4, None, None)]),
    ("I'll vote 12", [("vote", 12, None, None)]),
    ("我投5號", [("vote", 5, None, None)]),
    ("我会投3号", [("vote", 3, None, None)]),
    ("As sheriff, I call the vote on seat 3", [("call", 3, None, None)]),
    ("警長歸票6號", [("call", 6, None, None)]),
    ("票归给2号", [("call", 2, None, None)]),
    # full-width forms and several statements at once
    ("我是預言家，５號查殺。７號金水！", [("claim", None, "seer", None), ("check", 5, None, "wolf"),
                                 ("check", 7, None, "good")]),
    ("I'm the Seer! Seat 5: wolf. Seat 7 is good.",
     [("claim", None, "seer", None), ("check", 5, None, "wolf"), ("accuse", 5, None, None),
      ("check", 7, None, "good")]),
    # nothing to read
    ("hello everyone", []),
    ("大家好，我過", []),
    ("", []),
]


@pytest.mark.parametrize("text,want", TYPED, ids=[t or "empty" for t, _ in TYPED])
def test_what_players_type(text: str, want: list[Row]) -> None:
    assert acts(text) == want, normalize(text)


def test_statements_are_the_speakers_and_about_others() -> None:
    assert all(a.seat == 4 for a in parse("I'm the seer, 5 is a wolf", 4))
    assert acts("I'm the seer, 2 is good", 2) == [("claim", None, "seer", None)]  # no report on oneself
    assert acts("I saved 2", 2) == []
    assert parse("5 is good", 1, claimed="seer") == [Act(1, "check", 5, result="good")]
