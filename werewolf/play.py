"""`werewolf play`: one person in a seat, bots in the others, in the terminal.

The human is a ``TerminalAgent`` (``werewolf.agents.terminal``): it narrates
what its seat may see and asks for its decisions. The bots answer the rest
through the same ``Agent`` interface; ``BOTS`` names the kinds (heuristic bots,
who talk, by default).

Every game is played with live speech: at each speaking turn the person types a
statement (an empty line passes) and the bots say theirs. A one-night game's timed
discussion is rounds of statements (RULES.md §3.6); the clock is this front end's,
and once it has run out every open turn of the discussion is declined, which ends it.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from werewolf.agents import Agent, Host, RandomAgent
from werewolf.agents.heuristic import HeuristicAgent
from werewolf.agents.terminal import TerminalAgent
from werewolf.core.decisions import Decision
from werewolf.core.errors import IllegalMove, SetupError
from werewolf.core.game import Game, Setup
from werewolf.i18n import normalize_lang, t


def heuristic_bots(game: Game, seats: list[int], lang: str) -> Agent:
    return HeuristicAgent(random.Random(f"bots:{game.setup.seed}"), seats=seats, ruleset=game.setup.ruleset,
                          lang=lang)


def random_bots(game: Game, seats: list[int], lang: str) -> Agent:
    return RandomAgent(rng=random.Random(f"bots:{game.setup.seed}"))


# Bot kinds by name: each makes the one agent that plays every seat but the person's (``seats``),
# speaking ``lang``; the first is the default.
BOTS: dict[str, Callable[[Game, list[int], str], Agent]] = {
    "heuristic": heuristic_bots,
    "random": random_bots,
}
DEFAULT_BOTS = "heuristic"


def parse_deck(deck: str | None) -> str | tuple[str, ...] | None:
    """A deck id (``c12_bomber``), or role ids separated by commas (``werewolf*4,seer,...``).

    A role may carry a count: ``werewolf*4`` or ``werewolf×4`` stands for four werewolves
    (the form ``werewolf decks`` prints).
    """
    if deck is None or not deck.strip():
        return None
    if "," not in deck and "*" not in deck and "×" not in deck:
        return deck.strip()
    roles: list[str] = []
    for part in (p.strip() for p in deck.split(",")):
        if not part:
            continue
        role, star, count = (s.strip() for s in part.replace("×", "*").partition("*"))
        if not star:
            roles.append(role)
            continue
        if not role or not count.isdigit() or int(count) < 1:
            raise SetupError(f"bad deck entry {part!r}: write a role id, or role*N with N a whole number from 1")
        roles.extend([role] * int(count))
    return tuple(roles)


def deck_spec(roles: Iterable[str]) -> str:
    """The deck as ``parse_deck`` reads it: ``werewolf*4,seer,witch,...`` (each role once, in first-seen order)."""
    counts = Counter(roles)
    return ",".join(f"{r}*{c}" if c > 1 else r for r, c in counts.items())


def make_setup(ruleset: str = "classic", deck: str | None = None, players: int | None = None,
               seed: int | None = None, options: Mapping[str, Any] | None = None) -> Setup:
    """The game to play; ``seed`` None draws one (it is shown, so a game can be replayed)."""
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    # No deck: the ruleset's standard deck for ``players`` (12 when not given, for day-and-night rulesets).
    # Every speaking turn is live: the person types a statement (or passes), the bots say theirs as text.
    return Setup(ruleset, seed=seed, deck=parse_deck(deck), players=players, live_speech=True,
                 options=dict(options or {}))


def seat_count(game: Game) -> int:
    for e in game.events:
        if e.type == "game_start" and isinstance(e.data.get("players"), int):
            return int(e.data["players"])
    return len(game.table.roles_by_seat())


def pick_seat(game: Game, seat: int | None, lang: str = "en") -> int:
    """The human's seat: the one asked for, else one drawn from the game's seed."""
    n = seat_count(game)
    if seat is None:
        return random.Random(f"seat:{game.setup.seed}").randint(1, n)
    if not 1 <= seat <= n:
        raise SetupError(t("ui.bad_seat", lang, n=n))
    return seat


def run(setup: Setup, *, seat: int | None = None, lang: str = "en", bots: str = DEFAULT_BOTS,
        input: TextIO | None = None, output: TextIO | None = None, console: Console | None = None,
        clock: Callable[[], float] = time.monotonic, agents: Sequence[str] = (),
        transcripts: str | None = None, endpoints: str | None = None, structured_only: bool = False) -> Game:
    """Play ``setup`` to its end with a person in ``seat``; returns the finished game.

    ``agents``: ``SEATS=KIND`` rules for some of the other seats (``werewolf.agents.kinds``; the
    rest play ``bots``); ``transcripts``: a folder for the LLM seats' calls (``play-<seed>.jsonl``);
    ``endpoints``: a TOML file of named LLM servers (``werewolf.agents.llmkind``); ``structured_only``:
    the LLM seats read what the table says as statements only, not the words typed or said.
    ``clock`` (seconds) times the one-night discussion. Raises ``SetupError`` for
    a bad setup or seat, ``EOFError`` when the input runs out before the game ends.
    """
    lang = normalize_lang(lang)
    if bots not in BOTS:
        raise SetupError(t("ui.unknown_bots", lang, bots=bots, known=", ".join(BOTS)))
    game = Game(setup)
    if setup.deck is not None and setup.players is not None and seat_count(game) != setup.players:
        raise SetupError(t("ui.players_mismatch", lang, n=seat_count(game), players=setup.players))
    if seat is None and agents:  # a drawn seat avoids the seats --agent names
        from werewolf.agents.kinds import parse_rules

        taken = {int(i) for items, _ in parse_rules(agents) for i in items if i.isdigit()}
        free = [s for s in range(1, seat_count(game) + 1) if s not in taken]
        if free:
            seat = random.Random(f"seat:{game.setup.seed}").choice(free)
    me = pick_seat(game, seat, lang)
    human = TerminalAgent(lang, input=input, output=output, console=console)
    others = [s for s in range(1, seat_count(game) + 1) if s != me]
    # The host hands each seat its view, asks the bots' seats to speak at their turns, and keeps
    # every statement (the bots', and the person's typed ones in live speech) in the public log.
    seated, transcript = seat_agents(game, me, others, bots, lang, agents, transcripts, endpoints, structured_only)
    host = Host(game, seated)
    talk_clock = TalkClock(clock)
    offered: set[tuple[str, str, str]] = set()
    intro(human, game, setup, bots)
    while not game.over:
        host.sync()
        if any(d.seat == me and d.act == "kill" for d in game.request):
            pack_turn(human, host, me)  # the pack's knife: the person sees the bots' picks, they follow
            continue
        for d in list(game.request):
            timed = d.act == "speak" and talk_clock.started(game)
            if d.seat == me and not once(offered, game, d):
                game.decline(d)  # an interrupt already offered in this speaking part
            elif timed and talk_clock.up():
                if d.seat == me:
                    human.time_up()
                game.decline(d)
            elif d.seat == me:
                if timed:
                    talk_turn(human, host, d, talk_clock)
                else:
                    ask(human, host, d)
            else:
                host.answer(d)
    host.sync()
    human.finish(host.view(me))
    if transcript is not None:
        transcript.close()
    return game


def pack_turn(human: TerminalAgent, host: Host, me: int) -> None:
    """The pack's knife with the person in it (issue 15): the bots of the pack show their own choices, the
    person chooses, and the bots follow the person's pick ("nobody" too), as they do in a web room. The
    engine's ruling is untouched: the picks are still the knife's answers, one per voice."""
    game = host.game
    request = list(game.request)
    mine = next(d for d in request if d.seat == me)
    own: dict[int, int | None] = {}
    for d in request:
        if d.seat != me:
            move = host.ask(d)
            value = d.value(move) if move is not None and d.check(move) is None else d.default_value()
            own[d.seat] = value if isinstance(value, int) else None
    human.update(host.view(me, mine))  # the night so far, before the pack's picks
    if any(e.type == "explode" and e.data.get("seat") == me for e in game.events):
        human.voice_rule()  # a wolf who self-destructed today still names the victim: why
    human.pack_picks(own)
    ask(human, host, mine)
    picked = next((v for s, a, v in reversed(game.answers) if s == me and a == "kill"), None)
    for d in request:
        if d.seat != me:
            follows = picked is None or picked in getattr(d, "targets", ())
            game.answer_value(d, picked if follows else own[d.seat])


def once(offered: set[tuple[str, str, str]], game: Game, d: Decision) -> bool:
    """Whether to ask the person ``d``: an interrupt (a self-destruct, a duel) that the rules offer
    before every speech is asked once per speaking part of the day, the first time; a terminal has
    no button to press at any moment, and a y/N before each of eleven speeches would stall the day."""
    if not d.interrupt:
        return True
    context = getattr(d, "context", None) or {}
    key = (game.phase, d.act, str(context.get("when", "")))
    if key in offered:
        return False
    offered.add(key)
    return True


def seat_agents(game: Game, me: int, others: list[int], bots: str, lang: str, rules: Sequence[str],
                transcripts: str | None, endpoints: str | None = None, structured_only: bool = False
                ) -> tuple[dict[int, Agent], Any]:
    """The agents of the seats but the person's: ``--agent`` rules over ``bots`` (and their transcript)."""
    from werewolf.agents.kinds import build, is_llm, kinds_by_seat, parse_rules
    from werewolf.agents.llmkind import load_endpoints
    from werewolf.sim.config import team_key
    from werewolf.sim.extras import require_for_kinds

    named = load_endpoints(endpoints)
    parsed = parse_rules(rules, named)
    require_for_kinds(k for _, k in parsed)
    if any(str(me) in items for items, _ in parsed):
        raise SetupError(f"--agent names seat {me}, your own seat")
    sides = {e.data["seat"]: team_key(e.data["role"]) for e in game.events
             if e.type == "role" and e.phase == "setup" and e.data["seat"] != me}
    kinds = kinds_by_seat(parsed, sides, bots) if parsed else dict.fromkeys(others, bots)
    plain = [s for s in others if kinds.get(s, bots) == bots]
    seated: dict[int, Agent] = dict.fromkeys(plain, BOTS[bots](game, plain, lang)) if plain else {}
    transcript = None
    rest = {s: k for s, k in kinds.items() if s not in seated}
    if rest:
        if transcripts and any(is_llm(k) for k in rest.values()):
            import os

            from werewolf.agents.llm import Transcript

            os.makedirs(transcripts, exist_ok=True)
            transcript = Transcript(os.path.join(transcripts, f"play-{game.setup.seed}.jsonl"), game=game.setup.seed)
        seated.update(build(rest, seed=game.setup.seed or 0, ruleset=game.setup.ruleset, lang=lang,
                            transcript=transcript, endpoints=named, structured_only=structured_only))
    return seated, transcript


class TalkClock:
    """The one-night discussion's clock, started by the log's ``discussion`` event (``seconds``,
    null for no limit). It is the front end's: the engine only counts rounds."""

    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now
        self.ends: float | None = None
        self.on = False
        self.rounds = 0

    def started(self, game: Game) -> bool:
        if not self.on:
            e = next((e for e in reversed(game.events) if e.type == "discussion"), None)
            if e is not None:
                self.on = True
                seconds = e.data.get("seconds")
                self.ends = None if seconds is None else self.now() + float(seconds)
        return self.on

    def left(self) -> float | None:
        return None if self.ends is None else max(0.0, self.ends - self.now())

    def up(self) -> bool:
        left = self.left()
        return left is not None and left <= 0


def talk_turn(human: TerminalAgent, host: Host, d: Decision, talk_clock: TalkClock) -> None:
    """The person's statement in a round of the discussion; declined if the time runs out first."""
    game, seat = host.game, d.seat
    host.sync()
    move = human.discuss(host.view(seat, d), talk_clock.left(), first=talk_clock.rounds == 0)
    talk_clock.rounds += 1
    if move is not None and talk_clock.up():
        human.time_up()  # typed after the clock ran out: too late
        move = None
    if move is None:
        game.decline(d)
        return
    try:
        game.answer(seat, move)
    except IllegalMove as err:  # a statement too long
        human.rejected(err)
        talk_turn(human, host, d, talk_clock)


def intro(human: TerminalAgent, game: Game, setup: Setup, bots: str) -> None:
    lang = human.lang
    rs = f"ruleset.{setup.ruleset}"
    human.console.rule(Text(t("ui.title", lang), style="bold"))
    human.console.print(t("ui.intro", lang, ruleset=t(rs, lang), players=seat_count(game), seed=setup.seed,
                          bots=t(f"ui.bots.{bots}", lang)))


def ask(human: TerminalAgent, host: Host, d: Decision) -> None:
    """Ask the person until the engine takes the answer (an illegal one is explained, then asked again)."""
    game, seat = host.game, d.seat
    host.sync()
    while True:
        move = human.act(host.view(seat, d))
        if move is None:
            game.decline(d)
            return
        try:
            game.answer(seat, move)
            return
        except IllegalMove as err:
            human.rejected(err)
