#!/usr/bin/env python3
"""Check that engine changes leave every game identical (a tool for optimising, not a test).

    python scripts/identical_games.py record FILE   # play the games with the current code, save their digests
    python scripts/identical_games.py verify FILE   # play them again, report every game that differs
    python scripts/identical_games.py verify FILE --only classic12   # only the games so named

A game's digest (``game_digests.digest``) is the sha256 of its full event log
(``e.as_json()`` lines, key order included), its answers and its result. The games: every classic standard deck 8–18,
every classic advanced deck, every facetoface deck, the wechat standard decks
and two wechat decks with every expansion, and a few option variants; each
played by random agents (``--games`` seeds per setup, through the simulation
runner's ``play_game``), by heuristic bots (``--heuristic`` seeds), and, for
``--described`` seeds, with the ``describe()`` of every request (what agents and
the web are shown: options, reasons) folded into the digest as well.

Heuristic games depend on the bots' code too: record and verify with the same
``werewolf/agents``.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from typing import Any

from game_digests import digest, main

from werewolf.core.game import Game, Setup
from werewolf.rulesets import get_ruleset
from werewolf.rulesets.wechat import EXPANSION_DECK_A, EXPANSION_DECK_B, expansion_options
from werewolf.sim import SimConfig, parse_bots
from werewolf.sim.config import game_seed, stream_seed
from werewolf.sim.runner import play_game


def setups() -> Iterator[tuple[str, Setup]]:
    for ruleset in ("classic", "facetoface", "wechat"):
        for deck in get_ruleset(ruleset).decks():
            yield deck, Setup(ruleset, deck=deck)
    yield "wechat_A", Setup("wechat", deck=EXPANSION_DECK_A, options=expansion_options(EXPANSION_DECK_A))
    yield "wechat_B", Setup("wechat", deck=EXPANSION_DECK_B, options=expansion_options(EXPANSION_DECK_B))
    variants: dict[str, dict[str, Any]] = {
        "vote_lock": {"vote_lock_win": True},
        "two_potions": {"witch_one_potion_per_night": False, "witch_self_save": "first_night_only"},
        "guard_once": {"guard_rule": "once_per_target", "same_guard_save_dies": False},
        "tu_cheng": {"win_mode": "tu_cheng", "last_words": "wolf_quota"},
        "no_sheriff": {"sheriff": False, "self_destruct_allowed": False},
        "free_speech": {"speech_with_sheriff": "free", "speech_without_sheriff": "last_dead_coin",
                        "sheriff_self_destruct": "lose_badge", "badge_on_death": "must_pass"},
    }
    for name, opts in variants.items():
        for deck in ("classic12", "c12_wolfking_thief_cupid", "c12_bear_hiddenwolf"):
            yield f"{deck}+{name}", Setup("classic", deck=deck, options=opts)
    yield "classic12+live", Setup("classic", deck="classic12", live_speech=True)
    yield "classic12+stop2", Setup("classic", deck="classic12", stop_after_day=2)
    yield "ff12_444_elder+live", Setup("facetoface", deck="ff12_444_elder", live_speech=True)
    yield "wechat12+live", Setup("wechat", deck="wechat12", live_speech=True)


def play_described(setup: Setup, seed: int) -> str:
    """Random answers (drawn as the runner draws them), with every request's ``describe()`` kept."""
    game = Game(replace(setup, seed=seed))
    rng = random.Random(stream_seed(seed, 1))
    described: list[Any] = []
    while not game.over:
        described.append([d.describe() for d in game.request])
        for d in game.request:
            game.answer_value(d, d.random_value(rng))
    return digest(game, described)


def sim_digest(config: SimConfig, i: int, setup: Setup) -> str:
    return digest(play_game(config, i, setup))


def collect(args: argparse.Namespace) -> Iterator[tuple[str, Callable[[], str]]]:
    for name, setup in setups():
        config = SimConfig(ruleset=setup.ruleset, seed=7)
        heur = replace(config, bots=parse_bots("heuristic"))
        for i in range(args.games):
            yield f"{name} | random | {i}", partial(sim_digest, config, i, setup)
        for i in range(args.heuristic):
            yield f"{name} | heuristic | {i}", partial(sim_digest, heur, i, setup)
        for i in range(args.described):
            yield f"{name} | described | {i}", partial(play_described, setup, game_seed(11, i))


def arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--games", type=int, default=300, help="random-agent games per setup")
    ap.add_argument("--heuristic", type=int, default=12, help="heuristic-bot games per setup")
    ap.add_argument("--described", type=int, default=20, help="games per setup with every request described")


if __name__ == "__main__":
    raise SystemExit(main(__doc__ or "", collect, arguments))
