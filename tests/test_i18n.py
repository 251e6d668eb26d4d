"""The message catalogues: complete, consistent across languages, and able to narrate every event."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from werewolf import i18n
from werewolf import script as sg
from werewolf.agents import RandomAgent, play
from werewolf.core.errors import WerewolfError
from werewolf.core.game import Game, Setup
from werewolf.i18n import LANGS, catalogue, narrate, placeholders, role_description, role_name, t, team_name
from werewolf.roles import ROLES
from werewolf.rulesets import MODULES, get_ruleset

SHARED = Path(__file__).parent.parent.parent / "shared"
I18N = Path(i18n.__file__).parent

TEAMS = ("village", "wolves", "lovers", "bomber", "white_wolf", "piper", "prejudiced", "tanner", "angel")
# RULES.md §0.4 (the enum of death.cause); read from the digest below when it is there.
CAUSES = ("kill", "poison", "shot", "exile", "lover", "charm", "dream", "reflect", "duel", "explode", "claw", "bomb",
          "rogue_delayed", "auto", "elder_penalty", "big_bad_wolf", "white_wolf", "widow", "rusty")
# SCRIPTED_GAMES.md, the act tables; read from the contract below when it is there.
ACTS = ("take", "link", "model", "guard", "swap", "dream", "kill", "charm", "save", "poison", "check", "silence",
        "enchant", "shield", "curse", "sniff", "extra_kill", "infect", "widow_kill", "support", "oppose", "side",
        "copy", "peek", "look", "rob", "run", "withdraw", "sheriff_vote", "sheriff_pk_vote", "order", "badge", "vote",
        "pk_vote", "shoot", "explode", "duel", "reveal", "ban", "second_vote")


def _doc_acts() -> set[str]:
    path = SHARED / "SCRIPTED_GAMES.md"
    if not path.exists():
        return set()
    text = path.read_text(encoding="utf-8")
    section = text.split("## Acts", 1)[1].split("## The log", 1)[0]
    acts: set[str] = set()
    for line in section.splitlines():
        cols = line.split("|")
        if len(cols) >= 4 and not set(cols[2].strip()) <= {"-", " "} and cols[2].strip() != "act":
            acts.update(re.findall(r"`([a-z_]+)`", cols[2]))
    return acts


def _doc_causes() -> set[str]:
    path = SHARED / "RULES.md"
    if not path.exists():
        return set()
    text = path.read_text(encoding="utf-8")
    m = re.search(r"\* Death causes.*?\n(.*?)\n### ", text, re.S)
    block = m[0] if m else ""
    return set(re.findall(r"`([a-z_]+)`", block.split("one-night families")[0])) - {"death", "cause"}


# -- names ---------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_every_role_has_a_name_and_description(lang: str) -> None:
    for r in ROLES:
        assert role_name(r, lang).strip(), r
        assert role_description(r, lang).strip(), r


@pytest.mark.parametrize("lang", LANGS)
def test_every_team_and_faction_has_a_name(lang: str) -> None:
    for team in TEAMS:
        assert team_name(team, lang).strip()
    for faction in {r.faction for r in ROLES.values()}:
        assert t(f"faction.{faction}", lang).strip()


@pytest.mark.parametrize("lang", LANGS)
def test_every_cause_and_act_has_text(lang: str) -> None:
    for cause in set(CAUSES) | _doc_causes():
        assert t(f"cause.{cause}", lang).strip(), cause
    for act in set(ACTS) | _doc_acts():
        assert t(f"act.{act}", lang).strip(), act
        assert t(f"prompt.{act}", lang).strip(), act


def test_the_documents_were_read() -> None:
    if not SHARED.exists():
        pytest.skip("no ../shared beside the project")
    assert {"take", "explode", "second_vote"} <= _doc_acts()
    assert {"kill", "rogue_delayed", "rusty"} <= _doc_causes()


def test_chinese_names_follow_the_rules_digest() -> None:
    assert role_name("seer", "zh-Hant") == "預言家"
    assert role_name("seer", "zh-Hans") == "预言家"
    assert role_name("witch", "zh-Hant") == "女巫"
    assert role_name("hunter", "zh-Hans") == "猎人"
    assert role_name("seer", "en") == "Seer"


def test_judge_script() -> None:
    assert narrate({"type": "night", "phase": "night1", "number": 1}, "zh-Hant", 3) == "第1夜，天黑請閉眼。"
    step = {"type": "step", "phase": "night1", "step": "M", "role": "seer"}
    assert narrate(step, "zh-Hant", 3, strict=True) == "預言家請睜眼，今晚你要查驗誰？"
    assert narrate(step, "en", 3, strict=True) == "Seer, open your eyes. Whom do you check tonight?"
    # A role without its own line gets the generic "{role}, open your eyes".
    other = {"type": "step", "phase": "night1", "step": "Z", "role": "angel"}
    assert narrate(other, "zh-Hans", None, strict=True) == "天使请睁眼。"
    assert narrate(other, "en", None, strict=True) == "Angel, open your eyes."
    # Steps are told apart by their code where one role has two (cupid, then the lovers).
    lovers = {"type": "step", "phase": "night1", "step": "lovers", "role": "cupid"}
    assert narrate(lovers, "en", None, strict=True) == "Lovers, open your eyes and see each other."


# -- the catalogues agree ------------------------------------------------------------------------
def _keys(lang: str) -> set[str]:
    return set(catalogue(lang))


@pytest.mark.parametrize("lang", [x for x in LANGS if x != "en"])
def test_same_keys_as_english(lang: str) -> None:
    en, other = _keys("en"), _keys(lang)
    assert not en - other, f"missing in {lang}: {sorted(en - other)}"
    assert not other - en, f"only in {lang}: {sorted(other - en)}"


@pytest.mark.parametrize("lang", [x for x in LANGS if x != "en"])
def test_same_placeholders_as_english(lang: str) -> None:
    en, other = catalogue("en"), catalogue(lang)
    bad = {k: (placeholders(en[k]), placeholders(other[k])) for k in en
           if k in other and placeholders(en[k]) != placeholders(other[k])}
    assert not bad, bad


@pytest.mark.parametrize("lang", LANGS)
def test_catalogue_files_are_clean(lang: str) -> None:
    path = I18N / f"{lang}.json"
    seen: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen.extend(k for k, _ in items)
        return dict(items)

    data = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=pairs)
    assert len(seen) == len(set(seen)), "duplicate keys"
    for k, v in data.items():
        assert isinstance(v, str) and v.strip(), k
        placeholders(v)  # well-formed braces


def test_unknown_keys_fail_loudly() -> None:
    with pytest.raises(KeyError):
        t("no.such.key", "en")
    with pytest.raises(KeyError):
        role_name("no_such_role", "zh-Hant")
    with pytest.raises(KeyError):
        t("event.exile", "en")  # a placeholder left unfilled
    with pytest.raises(KeyError):
        narrate({"type": "no_such_event", "phase": "day1"}, "en", None, strict=True)
    with pytest.raises(KeyError):
        narrate({"type": "death", "phase": "day1", "seat": 1, "cause": "no_such_cause"}, "en", None, strict=True)


def test_runtime_fallbacks() -> None:
    # Unknown languages read English; unknown events and values are still shown, plainly.
    assert t("role.seer", "fr") == "Seer"
    assert t("role.seer", "zh-TW") == "預言家"
    assert narrate({"type": "no_such_event", "phase": "day1", "seat": 2}, "en", None) == "no_such_event: seat=2"
    assert narrate({"type": "death", "phase": "day1", "seat": 1, "cause": "meteor"}, "en", None) == \
        "Seat 1 is out: meteor."


# -- narration -------------------------------------------------------------------------------------
def test_second_person() -> None:
    exile = {"type": "exile", "phase": "day1", "seat": 4}
    assert narrate(exile, "en", 4) == "You are exiled."
    assert narrate(exile, "en", 5) == "Seat 4 is exiled."
    assert narrate(exile, "zh-Hans", 4) == "你被放逐了。"
    shot = {"type": "shoot", "phase": "day1", "seat": 2, "role": "hunter", "target": 7}
    assert narrate(shot, "en", 7) == "Seat 2 shows the Hunter card and shoots you!"
    assert narrate(shot, "zh-Hant", 2) == "你開槍帶走7號。"
    lovers = {"type": "lovers", "phase": "night1", "seats": [3, 9], "to": [3, 9]}
    assert narrate(lovers, "en", 9) == "You are in love with Seat 3: if one of you dies, so does the other."
    assert narrate({"type": "announce", "phase": "day2", "seats": []}, "zh-Hant", 1) == "昨晚是平安夜，無人死亡。"
    assert narrate({"type": "announce", "phase": "day2", "seats": [1, 6]}, "en", 6) == \
        "Last night, Seats 1, 6 died. You are dead."


def test_other_players_speeches_are_not_worth_showing() -> None:
    speech = {"type": "speech", "phase": "day1", "seat": 3, "part": "discussion"}
    assert narrate(speech, "en", 5) is None
    assert narrate(speech, "en", 3) == "Your turn to speak."
    assert narrate(speech, "en", None) == "Seat 3 speaks."


def test_live_speech() -> None:
    said = {"type": "speech", "phase": "day1", "seat": 3, "part": "discussion", "text": "I am the {seer}"}
    assert narrate(said, "en", 5, strict=True) == "Seat 3: “I am the {seer}”"
    assert narrate(said, "zh-Hant", 3, strict=True) == "你：「I am the {seer}」"
    words = {"type": "last_words_text", "phase": "day1", "seat": 3, "text": "再見"}
    assert narrate(words, "zh-Hans", 1, strict=True) == "3号的遗言：“再見”"


def test_votes_and_sheriff() -> None:
    votes = {"type": "votes", "phase": "day1", "round": "vote", "ballots": {"1": 5, "3": 5, "5": 2},
             "tally": {"2": 1, "5": 2.5}}
    assert narrate(votes, "en", 1, strict=True) == \
        "Exile vote: Seat 2 (1), Seat 5 (2.5). Ballots: Seat 1 → Seat 5, Seat 3 → Seat 5, Seat 5 → Seat 2."
    sheriff = {"type": "sheriff", "phase": "day1", "seat": None, "reason": "lost to a self-destruct"}
    assert narrate(sheriff, "zh-Hant", 1, strict=True) == "狼人自爆吞警徽：本局沒有警長。"
    roles = {"type": "roles", "phase": "day3", "roles": {"2": "seer", "1": "werewolf"}}
    assert narrate(roles, "en", 1, strict=True) == "Roles: Seat 1: Werewolf, Seat 2: Seer."


def _loadable_rulesets() -> list[str]:
    """Every ruleset (all five are implemented)."""
    return list(MODULES)


GAMES_PER_RULESET = 150


def _shape(data: dict[str, Any]) -> str:
    """What an event's message depends on: its strings and flags, and how many seats its lists hold."""
    def size(v: Any) -> Any:
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return v
        if isinstance(v, (list, dict)):
            return min(len(v), 2)
        return "n"
    return json.dumps({k: size(v) for k, v in data.items()}, sort_keys=True)


@pytest.mark.parametrize("ruleset", _loadable_rulesets())
def test_every_event_narrates_in_every_language(ruleset: str) -> None:
    """Random games of every deck: each event, for the moderator and for each seat it concerns."""
    decks = list(get_ruleset(ruleset).decks())
    seeds = max(2, GAMES_PER_RULESET // max(1, len(decks)))
    seen: set[str] = set()
    done: set[tuple[Any, ...]] = set()
    for deck in decks:
        for seed in range(seeds):
            game = play(Game(Setup(ruleset, deck=deck, seed=seed)), {}, RandomAgent(seed=seed))
            for e in game.events:
                seen.add(e.type)
                ev = e.as_json()
                seat = e.data.get("seat")
                target = e.data.get("target")
                viewers = {None, seat if isinstance(seat, int) else None, target if isinstance(target, int) else None}
                if e.to:
                    viewers.add(min(e.to))
                for viewer in viewers:
                    # Narration depends on the fields' values, not on which seats: sample one of each shape.
                    shape = (e.type, viewer is None, viewer == seat, viewer == target,
                             viewer in (e.data.get("seats") or ()), _shape(e.data))
                    if shape in done:
                        continue
                    done.add(shape)
                    for lang in LANGS:
                        text = narrate(ev, lang, viewer, strict=True)
                        assert text is None or text.strip(), (e, lang)
                        if e.type != "speech":
                            assert text is not None, (e, lang)
    assert {"night", "day", "game_over", "roles"} <= seen


SCRIPTS = sorted((Path(__file__).parent / "scripts").rglob("*.json")) + sorted((SHARED / "examples").glob("*.json"))


def test_every_scripted_game_narrates_in_every_language() -> None:
    """The scripted games reach the rare rulings that random games seldom do."""
    count = 0
    for path in SCRIPTS:
        try:
            parsed = sg.parse(sg.load(str(path)))
        except WerewolfError:  # a file that must be rejected (its rulings are tested elsewhere)
            continue
        for e in sg.run(parsed).events:
            count += 1
            seat = e.data.get("seat")
            for viewer in {None, seat if isinstance(seat, int) else None}:
                for lang in LANGS:
                    narrate(e.as_json(), lang, viewer, strict=True)
    assert count > 0
