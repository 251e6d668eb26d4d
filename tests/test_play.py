"""`werewolf play`: a person against bots, driven here by scripted input.

The main property: what the terminal shows before the game ends is exactly
what the player's seat may know: no other player's role, no moderator log,
nothing private once the player is dead.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Iterable

import pytest
from click.testing import CliRunner

from werewolf import play as pl
from werewolf.agents import Host, seat_view
from werewolf.agents.heuristic import ONE_NIGHT
from werewolf.agents.speech import messages
from werewolf.agents.terminal import TerminalAgent, menu_keys
from werewolf.cli import main
from werewolf.core.decisions import AnyOf, Choice, Flag, Move, Pair, Speak, Subset, Target
from werewolf.core.errors import IllegalMove
from werewolf.core.events import PUBLIC, Event, audience
from werewolf.core.game import Game, Setup
from werewolf.core.views import Log, SeatView
from werewolf.i18n import LANGS, narrate, role_name, t
from werewolf.roles import ROLES
from werewolf.rulesets import MODULES, get_ruleset
from werewolf.rulesets.daynight.day import Explode

# Events whose fields tell the seats who see them something about a player's role or side.
REVEALING = {
    "explode": ("seat",), "shoot": ("seat",), "reveal": ("seat",), "duel": ("seat", "target"), "bomb": ("seat",),
    "claw": ("seat",), "check": ("target",), "pack": ("seats",), "wolves": ("seats",), "masons": ("seats",),
    "thumbs": ("wolves",), "rob": ("target",), "copy": ("target",), "siblings": ("seats",), "servant": ("target",),
    "took": ("seat",), "infected": ("seat",), "transformed": ("seat",), "elder_penalty": ("seat",),
}


def _seat_pattern(lang: str, seat: int) -> re.Pattern[str]:
    if lang == "en":
        return re.compile(rf"\bSeat {seat}\b")
    return re.compile(rf"(?<!\d){seat}[號号]")


def _roles(game: Game) -> dict[int, set[str]]:
    """Every role each seat held: as dealt (its private ``role`` event) and at the end (the ``roles`` event)."""
    out: dict[int, set[str]] = {}
    for e in game.events:
        if e.type in ("role", "took") and "role" in e.data:
            out.setdefault(e.data["seat"], set()).add(e.data["role"])
        if e.type == "roles":
            for s, r in e.data["roles"].items():
                out.setdefault(int(s), set()).add(r)
    return out


def _known(game: Game, seat: int) -> set[int]:
    """The seats whose role or side ``seat`` legitimately learns during the game."""
    known = {seat}
    for e in game.events:
        if e.type not in REVEALING or not e.visible_to(seat):
            continue
        for field in REVEALING[e.type]:
            v = e.data.get(field)
            known.update(v if isinstance(v, list) else [v] if isinstance(v, int) else [])
    return known


def _narrations(events: Iterable[Event], lang: str, seat: int) -> set[str]:
    out = set()
    for e in events:
        text = narrate(e.as_json(), lang, seat)
        if text:
            out.add(text)
    return out


def check_transcript(out: str, game: Game, seat: int, lang: str) -> None:
    """What the terminal showed before the game ended is what ``seat`` may know, and no more."""
    assert game.over
    marker = t("ui.game_over", lang)
    assert marker in out, out[-2000:]
    before = out.split(marker, 1)[0]
    events = game.events
    visible = [e for e in events if e.visible_to(seat)]
    shown = _narrations(visible, lang, seat)
    # 1. Nothing from the moderator's log or another seat's private events.
    hidden = _narrations((e for e in events if not e.visible_to(seat)), lang, seat) - shown
    for text in hidden:
        assert text not in out, f"shown a hidden event: {text}"
    # 2. Once dead (publicly), nothing private any more.
    death = next((i for i, e in enumerate(events) if e.to is PUBLIC and (
        (e.type == "death" and e.data.get("seat") == seat)
        or (e.type == "announce" and seat in e.data.get("seats", ())))), None)
    if death is not None:
        late = _narrations((e for e in events[death + 1:] if e.to and seat in e.to), lang, seat)
        early = _narrations((e for e in events[:death + 1] if e.visible_to(seat)), lang, seat)
        public = _narrations((e for e in events if e.to is PUBLIC), lang, seat)
        for text in late - early - public:
            assert text not in out, f"a dead player was shown: {text}"
    # 3. No other player's role next to their seat number, unless the player learnt it.
    known = _known(game, seat)
    roles = _roles(game)
    said = _statements(lang, pl.seat_count(game))
    for line in before.splitlines():
        if line.startswith(said):
            continue  # what a player says is no leak, true or not
        for other, held in roles.items():
            if other in known or not _seat_pattern(lang, other).search(line):
                continue
            for r in held:
                assert not _names_role(line, r, lang), f"seat {other}'s role {r} shown to seat {seat}: {line}"


def _statements(lang: str, n: int) -> tuple[str, ...]:
    """How a line of the transcript starts when it is a player's statement (the bots' speech acts,
    or a live discussion's ``speech`` event)."""
    out = []
    for s in range(1, n + 1):
        seat = t("fmt.seat", lang, n=s)
        out.append(messages(lang)["speech.say"].format(speaker=seat, text=""))
        out.append(t("event.speech.said", lang, seat=seat, text="")[:-1])  # up to the opening quote
        out.append(t("event.last_words_text", lang, seat=seat, text="")[:-1])
    return tuple(out)


def _names_role(line: str, role: str, lang: str) -> bool:
    """Whether ``line`` names ``role`` (not merely a longer name holding it: 白狼王 is not 狼王)."""
    name = role_name(role, lang)
    for longer in {role_name(r, lang) for r in ROLES}:
        if name in longer and longer != name:
            line = line.replace(longer, "")
    return name in line


# Menus are keyed by seat number (``0`` none, letters for the rest): an answer that suits every menu
# sooner or later. A statement prompt takes whatever line comes.
KEYS = [str(n) for n in range(1, 13)] + ["0", "a", "1 2", "5 6", "8 9"]
ANSWERS = KEYS * 400
TYPED = "".join(a + "\n" for a in ANSWERS)


def _play(setup: Setup, seat: int | None, lang: str, answers: Iterable[str]) -> tuple[Game, str]:
    out = io.StringIO()
    game = pl.run(setup, seat=seat, lang=lang, input=io.StringIO("".join(a + "\n" for a in answers)), output=out)
    return game, out.getvalue()


def _loadable() -> list[str]:
    """Every ruleset (all five are implemented)."""
    return list(MODULES)


# -- the command ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_cli_plays_a_12_player_game_to_the_end(lang: str) -> None:
    for seed, seat in ((1, 4), (2, 9)):
        args = ["play", "--seed", str(seed), "--seat", str(seat), "--lang", lang]
        result = CliRunner().invoke(main, args, input=TYPED, env={"COLUMNS": "100"})
        assert result.exit_code == 0, result.output[-3000:]
        out = result.output
        assert t("ui.title", lang) in out
        # The same game, played again in-process, tells what the seat could know.
        game, again = _play(pl.make_setup("classic", None, None, seed), seat, lang, ANSWERS)
        assert len(game.events) and pl.seat_count(game) == 12
        check_transcript(out, game, seat, lang)
        # The end: the winners and every role.
        after = out.split(t("ui.game_over", lang), 1)[1]
        assert t("ui.you_won" if seat in game.result[1] else "ui.you_lost", lang) in after  # type: ignore[index]
        for s, held in _roles(game).items():
            assert any(role_name(r, lang) in after for r in held), s
        assert t("ui.roles_title", lang) in after


def test_cli_defaults_and_options() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["play", "--seed", "5"], input=TYPED)
    assert result.exit_code == 0, result.output[-2000:]
    assert "12 players · seed 5" in result.output
    deck = ",".join(("werewolf",) * 2 + ("seer", "witch", "hunter") + ("villager",) * 3)
    result = runner.invoke(main, ["play", "--seed", "3", "--deck", deck, "--seat", "8", "-l", "zh-Hans"],
                           input=TYPED)
    assert result.exit_code == 0, result.output[-2000:]
    assert "8名玩家" in result.output
    result = runner.invoke(main, ["play", "--seed", "3", "-d", "c12_wolfking_thief_cupid", "-n", "12"],
                           input=TYPED)
    assert result.exit_code == 0, result.output[-2000:]


def test_cli_bots_are_heuristic_unless_asked_for_random() -> None:
    runner = CliRunner()
    kinds = next(p for p in main.commands["play"].params if p.name == "bots")
    assert tuple(kinds.type.choices) == tuple(pl.BOTS) and kinds.default == pl.DEFAULT_BOTS  # type: ignore[attr-defined]
    talk = re.compile(r"^Seat \d+: ", re.M)  # a bot's statement, as the heuristic bots say them
    result = runner.invoke(main, ["play", "--seed", "4", "--seat", "2"], input=TYPED)
    assert result.exit_code == 0 and "bots: heuristic" in result.output and talk.search(result.output)
    result = runner.invoke(main, ["play", "--seed", "4", "--seat", "2", "--bots", "random"], input=TYPED)
    assert result.exit_code == 0 and "bots: random" in result.output and not talk.search(result.output)
    result = runner.invoke(main, ["play", "--seed", "4", "-l", "zh-Hans"], input=TYPED)
    assert result.exit_code == 0 and re.search(r"^\d+号：", result.output, re.M), result.output[-2000:]


def test_bots_statements_stand_at_their_speaking_turns() -> None:
    # Seed 1, seat 4: the sheriff has day 1 spoken clockwise from seat 10, seat 4 in the middle.
    # Every turn is live: each bot's statement is in the log at its turn (a bot with nothing to say passes).
    game, out = _play(pl.make_setup("classic", None, None, 1), 4, "en", ANSWERS)
    turns = [e for e in game.events if e.type == "speech" and e.phase == "day1" and e.data.get("part") == "discussion"]
    order = [e.data["seat"] for e in turns]
    assert 4 in order[1:-1]
    talked = {e.data["seat"] for e in turns if e.data.get("text")}
    before, after = set(order[:order.index(4)]) & talked, set(order[order.index(4) + 1:]) & talked
    block = out.split("Speaking order: ", 1)[1]
    block = block.split("Day 1 · Exile vote", 1)[0]  # up to the exile vote's heading
    mine, theirs = block.split(t("prompt.speak", "en"), 1)
    said = re.compile(r"^Seat (\d+): ", re.M)
    assert {int(s) for s in said.findall(mine)} == before
    assert {int(s) for s in said.findall(theirs)} <= after
    # Last words too: a bot's statement follows the line that gives it the floor.
    lines = out.splitlines()
    floors = [i for i, line in enumerate(lines) if re.fullmatch(r"Seat (\d+) gives last words\.", line)]
    assert floors
    words = re.compile(r"^Seat (\d+)'s last words: ")
    spoken = [i for i in floors if words.match(lines[i + 1])]
    assert spoken
    for i in spoken:
        assert lines[i].split()[1] == words.match(lines[i + 1]).group(1), lines[i:i + 2]  # type: ignore[union-attr]
    assert all(words.match(line) is None or lines[i - 1] in [lines[f] for f in floors]
               for i, line in enumerate(lines))


@pytest.mark.parametrize("lang", LANGS)
def test_a_person_speaks_in_a_day_and_night_game(lang: str) -> None:
    # Seed 1, seat 4 (a villager): no night decision, "0" declines the sheriff's race, then the turn to speak.
    game, out = _play(pl.make_setup("classic", None, None, 1), 4, lang, ["0", "Seat 9 is my sheriff."] + ANSWERS)
    mine = [e.data for e in game.events if e.type == "speech" and e.data["seat"] == 4]
    assert mine[0] == {"seat": 4, "part": "discussion", "text": "Seat 9 is my sheriff."}
    assert t("prompt.speak", lang) in out
    assert t("event.speech.said.you", lang, text="Seat 9 is my sheriff.") in out
    assert game.over


def test_a_human_wolf_is_offered_each_interrupt_once_per_speaking_part() -> None:
    # Seed 1: seat 3 is a werewolf. Live speech offers a self-destruct before every speech; the terminal
    # asks once per part of the day (as it did before live speech) and declines the rest itself.
    game, out = _play(pl.make_setup("classic", None, None, 1), 3, "en", ANSWERS)
    asked = out.count(t("ui.yes_no", "en").strip())
    offers = [a for s, a, _ in game.answers if s == 3 and a == "explode"]
    days = len({e.phase for e in game.events if e.type == "day"})
    assert 1 <= asked < len(offers) and asked <= 3 * days, (asked, len(offers), days)


@pytest.mark.parametrize("lang", LANGS)
def test_a_human_wolf_sees_the_bots_picks_and_the_bots_follow_his(lang: str) -> None:
    # Seed 1: seat 3 is a werewolf among bot wolves. Before each knife the terminal shows the bots' own
    # choices; then every bot voice names the person's pick, so the knife is never lost to a blind pick.
    game, out = _play(pl.make_setup("classic", None, None, 1), 3, lang, ANSWERS)
    wolves = [i + 1 for i, r in enumerate(game.dealt) if r == "werewolf"]
    assert 3 in wolves and len(wolves) > 1
    answers = game.answers
    knives = 0
    for i, (s, a, v) in enumerate(answers):
        if (s, a) != (3, "kill"):
            continue
        knives += 1
        bots = []
        for _, a2, v2 in answers[i + 1:]:  # the bot voices answer right after the person
            if a2 != "kill":
                break
            bots.append(v2)
        assert bots, "the person's packmates answer the same knife"
        assert bots == [v] * len(bots), (v, bots)
    choices = [e.data["target"] for e in game.events if e.type == "pack_choice" and 3 in (e.to or ())]
    mine = [v for s, a, v in answers if (s, a) == (3, "kill")]
    assert knives == len(choices) >= 1
    assert choices == mine  # the person's pick is the pack's: never an empty knife from a split
    shown = t("ui.pack.terminal", lang, picks="X").split("X")[0]
    lines = [line for line in out.splitlines() if shown in line]
    assert len(lines) == knives
    assert all(t("fmt.seat", lang, n=w) in lines[0] for w in wolves if w != 3)
    assert out.index(lines[0]) < out.index(t("prompt.kill", lang))  # shown before the person chooses


@pytest.mark.parametrize("lang", LANGS)
def test_a_wolf_who_self_destructed_is_told_why_he_still_names_the_victim(lang: str) -> None:
    out = io.StringIO()
    TerminalAgent(lang, input=io.StringIO(), output=out).voice_rule()
    from werewolf.i18n.rules import explain

    rule = explain("self_destructed_wolf_votes_knife", lang)
    assert rule["known"] and rule["book"] == "000"
    text = " ".join(out.getvalue().split())
    assert " ".join(rule["text"].split())[:20] in text and "自爆的狼人可進行指刀行動" in text


def test_cli_offers_every_language() -> None:
    lang = next(p for p in main.commands["play"].params if p.name == "lang")
    assert tuple(lang.type.choices) == LANGS  # type: ignore[attr-defined]


def test_cli_errors() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["play", "--seat", "13", "--seed", "1"], input="1\n")
    assert result.exit_code == 2 and t("ui.bad_seat", "en", n=12) in result.output
    result = runner.invoke(main, ["play", "--deck", "no_such_deck"], input="1\n")
    assert result.exit_code == 2 and "no_such_deck" in result.output
    result = runner.invoke(main, ["play", "--deck", "c12_bomber", "--players", "9"], input="1\n")
    assert result.exit_code == 2 and t("ui.players_mismatch", "en", n=12, players=9) in result.output
    result = runner.invoke(main, ["play", "--lang", "fr"])
    assert result.exit_code == 2
    # Input that runs out abandons the game (exit 1), no traceback.
    result = runner.invoke(main, ["play", "--seed", "1", "--seat", "1", "-l", "zh-Hant"], input="1\n")
    assert result.exit_code == 1 and t("ui.eof", "zh-Hant") in result.stderr
    assert runner.invoke(main, ["play", "--help"]).exit_code == 0


# -- many games, every ruleset, fuzzed answers ------------------------------------------------------------------
GAMES = 24


@pytest.mark.parametrize("ruleset", _loadable())
def test_a_seat_sees_only_what_it_may_know(ruleset: str) -> None:
    rng = random.Random(ruleset)
    decks = list(get_ruleset(ruleset).decks())
    words = KEYS + ["1", "y", "n", "", "x", "99", "3 7", "2,5", "b"]
    for i in range(GAMES):
        deck = decks[rng.randrange(len(decks))]
        lang = LANGS[i % len(LANGS)]
        setup = Setup(ruleset, deck=deck, seed=i, live_speech=ruleset in ONE_NIGHT)
        answers = [rng.choice(words) for _ in range(6000)]
        game, out = _play(setup, None, lang, answers)
        seat = pl.pick_seat(game, None)
        check_transcript(out, game, seat, lang)


def test_every_seat_of_one_game() -> None:
    for seat in range(1, 13):
        game, out = _play(Setup("classic", deck="c12_wolfking_thief_cupid", seed=seat, live_speech=True), seat, "en",
                          ANSWERS)
        check_transcript(out, game, seat, "en")


# -- the terminal agent ----------------------------------------------------------------------------------------
def _agent(answers: str, lang: str = "en") -> tuple[TerminalAgent, io.StringIO]:
    out = io.StringIO()
    return TerminalAgent(lang, input=io.StringIO(answers), output=out), out


def _game() -> Game:
    return Game(Setup("classic", players=12, seed=1))


def test_menu_numbers_are_seat_numbers() -> None:
    game = _game()
    # After deaths the option for seat 6 is still typed 6, never its place in the list.
    agent, out = _agent("2\n4\n6\n")
    v = Target(2, "vote", [1, 3, 6, 9])
    assert agent.act(seat_view(game, 2, v)) == {"act": "vote", "target": 6}
    text = out.getvalue()
    for n in (1, 3, 6, 9):
        assert f"{n}) Seat {n}" in text
    assert "0) Abstain" in text and "4) " not in text and "5) Seat 6" not in text
    assert text.count(t("ui.bad_choice", "en", keys="1, 3, 6, 9, 0")) == 2
    agent, _ = _agent("0\n")
    assert agent.act(seat_view(game, 2, v)) == {"act": "vote", "target": None}
    # Choosing several seats: the seats themselves; 0 for none where none is allowed.
    agent, out = _agent("x\n1\n99\n3 7\n")
    d = Pair(2, "link", [1, 3, 5, 7], optional=False)
    assert agent.act(seat_view(game, 2, d)) == {"act": "link", "targets": [3, 7]}
    text = out.getvalue()
    assert text.count(t("ui.bad_seats", "en")) == 3
    assert t("ui.seats_from", "en", seats="Seat 1, Seat 3, Seat 5, Seat 7") in text and "0)" not in text
    agent, _ = _agent("2 5 9\n")
    ban = Subset(2, "ban", [1, 2, 5, 9], 3)
    assert agent.act(seat_view(game, 2, ban)) == {"act": "ban", "targets": [2, 5, 9]}
    agent, _ = _agent("5\n")
    assert agent.act(seat_view(game, 2, ban)) == {"act": "ban", "targets": [5]}
    agent, out = _agent("0\n")
    assert agent.act(seat_view(game, 2, ban)) == {"act": "ban", "targets": []}
    # Options naming no single seat get letters: the witch's antidote, the sheriff's speaking order.
    agent, out = _agent("a\n")
    witch = AnyOf(6, [Flag(6, "save"), Target(6, "poison", [1, 2])], conflict="one potion")
    assert agent.act(seat_view(game, 6, witch)) == {"act": "save"}
    assert "a) " in out.getvalue() and "1) " in out.getvalue() and "0) " in out.getvalue()
    agent, out = _agent("b\n")
    order = Choice(3, "order", "direction", ["clockwise", "counterclockwise"], optional=False)
    assert agent.act(seat_view(game, 3, order)) == {"act": "order", "direction": "counterclockwise"}


def test_ones_own_seat_is_yourself() -> None:
    game = _game()
    for lang in LANGS:
        agent, out = _agent("4\n", lang)
        assert agent.act(seat_view(game, 4, Target(4, "vote", [1, 4, 6]))) == {"act": "vote", "target": 4}
        yourself = t("fmt.seat_yourself", lang, seat=t("fmt.seat", lang, n=4))
        assert f"4) {yourself}" in out.getvalue() and f"6) {t('fmt.seat', lang, n=6)}" in out.getvalue()


def test_menu_keys_never_clash() -> None:
    # Two acts aiming at the same seat: that seat cannot be the key of both, so both get letters.
    both = AnyOf(4, [Target(4, "shoot", [1, 2]), Target(4, "guard", [2, 3])], conflict="one")
    keys = [k for k, _ in menu_keys(both, both.options())]
    assert len(set(keys)) == len(keys) and keys[0] == "1" and keys[-2] == "3" and keys[-1] == "0"
    assert [k for k, o in menu_keys(both, both.options()) if o.get("target") == 2] == ["a", "b"]
    many = Choice(1, "pick", "thing", list(range(30)), optional=False)
    keys = [k for k, _ in menu_keys(many, many.options())]
    assert len(set(keys)) == 30 and keys[:2] == ["a", "b"] and keys[26:28] == ["aa", "ab"]


def test_labels_in_every_language() -> None:
    game = _game()
    witch = AnyOf(6, [Flag(6, "save"), Target(6, "poison", [1, 2])], conflict="one potion")
    for lang in LANGS:
        agent, out = _agent("2\n", lang)
        assert agent.act(seat_view(game, 6, witch)) == {"act": "poison", "target": 2}
        text = out.getvalue()
        assert t("option.act", lang, act=t("act.poison", lang), arg=t("fmt.seat", lang, n=1)) in text
        assert t("option.pass", lang) in text


def test_interrupts_are_a_quick_yes_or_no() -> None:
    game = _game()
    agent, _ = _agent("\n")
    assert agent.act(seat_view(game, 3, Explode(3, "discussion", None))) == {"act": "explode", "when": "discussion",
                                                                     "value": False}
    agent, _ = _agent("1\n")  # not a yes
    duel = Target(3, "duel", [1, 2, 4], interrupt=True)
    assert agent.act(seat_view(game, 3, duel)) == {"act": "duel", "target": None}
    agent, _ = _agent("y\n2\n")
    assert agent.act(seat_view(game, 3, duel)) == {"act": "duel", "target": 2}
    agent, _ = _agent("是\n2\n", "zh-Hant")  # the white wolf king names the player he takes
    assert agent.act(seat_view(game, 3, Explode(3, "election", [1, 2]))) == {"act": "explode", "when": "election",
                                                                              "target": 2}
    agent, _ = _agent("")
    with pytest.raises(EOFError):
        agent.act(seat_view(game, 3, duel))


def test_live_speech_is_typed() -> None:
    game = _game()
    agent, out = _agent("I checked seat 4: [wolf]\n\n", "zh-Hant")
    assert agent.act(seat_view(game, 2, Speak(2, "discussion"))) == {"act": "speak", "text": "I checked seat 4: [wolf]"}
    assert agent.act(seat_view(game, 2, Speak(2, "discussion"))) == {"act": "speak", "pass": True}  # an empty line
    assert t("prompt.speak", "zh-Hant") in out.getvalue()


def test_an_illegal_answer_is_explained_and_asked_again() -> None:
    class Stubborn(TerminalAgent):
        tries = 0

        def act(self, view: SeatView) -> Move | None:
            decision = view.decision
            assert decision is not None
            self.tries += 1
            return {"act": decision.act, "target": 99} if self.tries == 1 else decision.options()[0]

    game = _game()
    d = game.request[0]
    out = io.StringIO()
    human = Stubborn("en", input=io.StringIO(""), output=out)
    pl.ask(human, Host(game), d)
    assert human.tries == 2
    assert "That is not allowed" in out.getvalue()
    with pytest.raises(IllegalMove):
        game.answer(d.seat, d.options()[0])  # answered once, and only once


def _view(events: list[Event], seat: int) -> SeatView:
    """A seat's view of a hand-made log (``TerminalAgent.update`` reads nothing else)."""
    public = [e for e in events if e.to is None]
    private = [e for e in events if e.to is not None and seat in e.to]
    at = {id(e): i for i, e in enumerate(events)}
    return SeatView(seat, "classic", 12, None, "day2", Log(public, [at[id(e)] for e in public], len(public)),
                    Log(private, [at[id(e)] for e in private], len(private)), 0, 0, None, False, None)


def test_a_dead_player_sees_only_the_public_log() -> None:
    agent, out = _agent("")
    log = _view([
        Event("role", "setup", {"seat": 2, "role": "hunter"}, audience(2)),
        Event("can_shoot", "night1", {"seat": 2, "value": True}, audience(2)),
        Event("death", "day1", {"seat": 2, "cause": "exile"}),
        Event("can_shoot", "night2", {"seat": 2, "value": False}, audience(2)),
        Event("death", "night2", {"seat": 5, "cause": "kill"}, frozenset()),
        Event("exile", "day2", {"seat": 4}),
    ], 2)
    agent.update(log)
    text = out.getvalue()
    assert "The judge signals: you can shoot if you die." in text
    assert "You are out: exiled by the vote." in text
    assert t("ui.dead", "en") in text
    assert "you cannot shoot" not in text
    assert "Seat 5" not in text
    assert "Seat 4 is exiled." in text


# -- the one-night discussion ----------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_a_person_talks_with_the_bots_then_votes(lang: str) -> None:
    args = ["play", "-r", "onuw", "--seed", "4", "--seat", "2", "-l", lang]
    result = CliRunner().invoke(main, args, input="I am a villager, honest.\nWho lies?\n\n1\n")
    assert result.exit_code == 0, result.output[-3000:]
    out = result.output
    assert t("ui.talk_clock", lang, time="5:00") in out
    game, again = _play(pl.make_setup("onuw", None, None, 4), 2, lang, ["I am a villager, honest.", "Who lies?",
                                                                          "", "1"])
    check_transcript(out, game, 2, lang)
    talk = [e for e in game.events if e.type == "speech"]
    assert [e.data["text"] for e in talk if e.data["seat"] == 2] == ["I am a villager, honest.", "Who lies?"]
    bots = [e for e in talk if e.data["seat"] != 2]
    assert bots and all(narrate(e.as_json(), lang, 2) in out for e in bots)
    # The bots' first statements are shown before the person's second prompt; the vote comes after the talk.
    first = narrate(bots[0].as_json(), lang, 2) or ""
    assert out.index(first) < out.index("Who lies?") < out.index(t("act.vote", lang))
    assert [a for s, a, _ in game.answers if s == 2] == ["speak", "speak", "speak", "vote"]


def test_the_clock_ends_the_discussion() -> None:
    now = [0.0]

    class Slow(io.StringIO):
        def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
            now[0] += 25.0  # the person takes 25 s to type each line
            return super().readline()

    out = io.StringIO()
    setup = pl.make_setup("onenight", None, 4, 9, {"discussion_seconds": 60})
    lines = Slow("statement 0\nstatement 1\nstatement 2\n" + TYPED)
    game = pl.run(setup, seat=1, input=lines, output=out, clock=lambda: now[0])
    text = out.getvalue()
    for shown in (t("ui.talk_clock", "en", time="1:00"), t("ui.talk_left", "en", time="0:35"),
                  t("ui.talk_left", "en", time="0:10"), t("ui.time_up", "en")):
        assert shown in text
    mine = [e.data["text"] for e in game.events if e.type == "speech" and e.data["seat"] == 1]
    assert mine == ["statement 0", "statement 1"]  # the third was typed after the time ran out
    assert game.over and [a for s, a, v in game.answers if s == 1] == ["speak", "speak", "speak", "vote"]


def test_an_unlimited_discussion_waits_for_the_person() -> None:
    setup = pl.make_setup("onuw", "onuw5", None, 3, {"discussion_seconds": None})
    game, out = _play(setup, 5, "zh-Hant", [f"第{i}句" for i in range(12)] + ["", "1"])
    assert t("ui.talk_open", "zh-Hant") in out
    assert [e.data["text"] for e in game.events if e.type == "speech" and e.data["seat"] == 5] == [
        f"第{i}句" for i in range(12)]
    check_transcript(out, game, 5, "zh-Hant")


def test_the_terminal_reads_a_statement_within_the_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    r, w = os.pipe()
    with os.fdopen(r) as reader, os.fdopen(w, "w") as writer:
        agent, _ = _agent("")
        agent.input = reader
        monkeypatch.setattr("werewolf.agents.terminal._isatty", lambda stream: True)  # a terminal: timed
        assert agent.read_within("> ", 0.05) is None  # nothing typed in time
        writer.write("ready\n")
        writer.flush()
        assert agent.read_within("> ", 5) == "ready\n"
