#!/usr/bin/env python3
"""Proof that a change to the heuristic bots leaves their play exactly as it was.

    python scripts/identical_bots.py record FILE   # fingerprint every game with the current code
    python scripts/identical_bots.py verify FILE   # replay the same games, report every difference
    python scripts/identical_bots.py verify FILE --only "classic 9"   # a quick look: the games so named

A game's fingerprint is the sha256 of its event log (``e.as_json()`` lines), its
answers and the speech acts of its channel (and, in live play, the text each
bot said). The games: a few hundred seeds per setup of the benchmark (classic 9,
classic 12 with the standard and every advanced deck, facetoface 12, wechat 12,
onuw 5, onenight 5), each with every seat a heuristic bot and with bots on one
side only (``wolves=heuristic``, ``village=heuristic``, the rest random, seated
as the simulation runner seats them); the bigger decks of the bot tests; live
play in two languages; and strict mode (every mind its own board), whose games
must match the shared board's. Record before an optimisation, verify after.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from typing import Any

from bench import setups as sim_setups  # the benchmark's setups
from game_digests import digest, main

from werewolf.agents import Host
from werewolf.agents.heuristic import HeuristicAgent
from werewolf.agents.speech import Channel
from werewolf.core.game import Game, Setup
from werewolf.rulesets import get_ruleset
from werewolf.rulesets.onuw import EVERY_ROLE_DECK
from werewolf.rulesets.wechat import EXPANSION_DECK_A, EXPANSION_DECK_B, expansion_options
from werewolf.sim import SimConfig, parse_bots
from werewolf.sim.runner import base_setup, play_game

BOTS = ("heuristic", "wolves=heuristic", "village=heuristic")


def other_setups() -> list[tuple[str, Setup]]:
    """The bigger and stranger decks of the bot tests (every seat a bot, seeded the tests' way)."""
    out = [("classic18", Setup("classic", deck="classic18"))]
    out += [(f"facetoface {d}", Setup("facetoface", deck=d)) for d in get_ruleset("facetoface").decks()]
    out += [("wechat A", Setup("wechat", deck=EXPANSION_DECK_A, options=expansion_options(EXPANSION_DECK_A))),
            ("wechat B", Setup("wechat", deck=EXPANSION_DECK_B, options=expansion_options(EXPANSION_DECK_B))),
            ("onuw all", Setup("onuw", deck=EVERY_ROLE_DECK)), ("onuw 10", Setup("onuw", players=10)),
            ("onenight 7", Setup("onenight", players=7))]
    return out


def fingerprint(game: Game, channel: Channel, said: list[str] | None = None) -> str:
    return digest(game, [repr(a.as_tuple()) for a in channel.acts], said)


def sim_game(config: SimConfig, i: int) -> str:
    """Game ``i`` as ``werewolf.sim.runner.play_game`` plays it, with what its bots said."""
    channel = Channel()
    return fingerprint(play_game(config, i, channel=channel), channel)


def bot_game(setup: Setup, seed: int, strict: bool = False, lang: str | None = None) -> str:
    """Every seat a bot (the tests' way); ``lang``: live play, with the text each bot said."""
    game = Game(replace(setup, seed=seed, live_speech=lang is not None))
    agent = HeuristicAgent(random.Random(seed), strict=strict, lang=lang or "en")
    host = Host(game, default=agent)  # each seat's view; the statements are the host's talk
    said: list[str] = []
    while not game.over:
        host.sync()
        for d in game.request:
            move = host.ask(d)
            if move is None:
                game.decline(d)
            else:
                if move.get("act") == "speak":
                    said.append(str(move.get("text")))
                game.answer(d.seat, move)
    host.sync()
    return fingerprint(game, host.talk, said if lang is not None else None)


def games(n: int) -> Iterator[tuple[str, Any]]:
    """(key, a function giving the fingerprint) of every game checked."""
    for name, config in sim_setups():
        for bots in BOTS:
            c = replace(config, bots=parse_bots(bots), seed=1)
            for i in range(n):
                yield f"{name} | {bots} | {i}", (sim_game, c, i)
    for name, setup in other_setups():
        for seed in range(n // 4):
            yield f"{name} | all bots | {seed}", (bot_game, setup, seed)
    live = [("classic 12", Setup("classic", players=12)), ("wechat 12", Setup("wechat", players=12)),
            ("onuw 6", Setup("onuw", players=6))]
    for name, setup in live:
        for lang in ("en", "zh-Hant"):
            for seed in range(n // 10):
                yield f"{name} | live {lang} | {seed}", (bot_game, setup, seed, False, lang)
    for name, config in sim_setups():
        setup = base_setup(config)
        for seed in range(n // 20):
            yield f"{name} | strict | {seed}", (bot_game, setup, seed, True)


def collect(args: argparse.Namespace) -> Iterator[tuple[str, Callable[[], str]]]:
    for key, (fn, *rest) in games(args.games):
        yield key, partial(fn, *rest)


def arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--games", type=int, default=200, help="seeds per setup and bot seating")


if __name__ == "__main__":
    raise SystemExit(main(__doc__ or "", collect, arguments))
