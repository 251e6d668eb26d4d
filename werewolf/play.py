"""`werewolf play`: one person in a seat, bots in the others, in the terminal.

The human is a ``TerminalAgent`` (``werewolf.agents.terminal``): it narrates
what its seat may see and asks for its decisions. The bots answer the rest
through the same ``Agent`` interface, so smarter bots plug in by name in
``BOTS``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TextIO

from rich.console import Console
from rich.text import Text

from werewolf.agents import Agent, RandomAgent
from werewolf.agents.terminal import TerminalAgent
from werewolf.core.decisions import Decision
from werewolf.core.errors import IllegalMove, SetupError
from werewolf.core.game import Game, Setup
from werewolf.i18n import normalize_lang, t

# Bot kinds by name: each makes the one agent that plays every other seat, from the game's seed.
BOTS: dict[str, Callable[[int], Agent]] = {
    "random": lambda seed: RandomAgent(rng=random.Random(f"bots:{seed}")),
}


def parse_deck(deck: str | None) -> str | tuple[str, ...] | None:
    """A deck id (``c12_bomber``), or role ids separated by commas (``werewolf,seer,...``)."""
    if deck is None or not deck.strip():
        return None
    if "," in deck:
        return tuple(r.strip() for r in deck.split(",") if r.strip())
    return deck.strip()


def make_setup(ruleset: str = "classic", deck: str | None = None, players: int | None = None,
               seed: int | None = None) -> Setup:
    """The game to play; ``seed`` None draws one (it is shown, so a game can be replayed)."""
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    # No deck: the ruleset's standard deck for ``players`` (12 when not given, for day-and-night rulesets).
    return Setup(ruleset, seed=seed, deck=parse_deck(deck), players=players)


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


def run(setup: Setup, *, seat: int | None = None, lang: str = "en", bots: str = "random",
        input: TextIO | None = None, output: TextIO | None = None, console: Console | None = None) -> Game:
    """Play ``setup`` to its end with a person in ``seat``; returns the finished game.

    Raises ``SetupError`` for a bad setup or seat, ``EOFError`` when the input
    runs out before the game ends.
    """
    lang = normalize_lang(lang)
    if bots not in BOTS:
        raise SetupError(t("ui.unknown_bots", lang, bots=bots, known=", ".join(BOTS)))
    game = Game(setup)
    if setup.deck is not None and setup.players is not None and seat_count(game) != setup.players:
        raise SetupError(t("ui.players_mismatch", lang, n=seat_count(game), players=setup.players))
    me = pick_seat(game, seat, lang)
    human = TerminalAgent(lang, input=input, output=output, console=console)
    bot = BOTS[bots](setup.seed)
    intro(human, game, setup, bots)
    while not game.over:
        for d in list(game.request):
            if d.seat == me:
                ask(human, game, me, d)
            else:
                answer_bot(bot, game, d)
    human.finish(game, me)
    return game


def intro(human: TerminalAgent, game: Game, setup: Setup, bots: str) -> None:
    lang = human.lang
    rs = f"ruleset.{setup.ruleset}"
    human.console.rule(Text(t("ui.title", lang), style="bold"))
    human.console.print(t("ui.intro", lang, ruleset=t(rs, lang), players=seat_count(game), seed=setup.seed,
                          bots=t(f"ui.bots.{bots}", lang)))


def ask(human: TerminalAgent, game: Game, seat: int, d: Decision) -> None:
    """Ask the person until the engine takes the answer (an illegal one is explained, then asked again)."""
    while True:
        move = human.choose(game, seat, d)
        if move is None:
            game.decline(d)
            return
        try:
            game.answer(seat, move)
            return
        except IllegalMove as err:
            human.rejected(err)


def answer_bot(bot: Agent, game: Game, d: Decision) -> None:
    if isinstance(bot, RandomAgent):
        game.answer_value(d, bot.value(d))
        return
    move = bot.choose(game, d.seat, d)
    if move is None:
        game.decline(d)
    else:
        game.answer(d.seat, move)
