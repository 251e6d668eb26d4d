#!/usr/bin/env python3
"""Proof that a change to the one-night engines (onuw, onenight) leaves every game as it was.

    python scripts/identical_onenight.py record /tmp/onenight-games.json   # before the change
    python scripts/identical_onenight.py verify /tmp/onenight-games.json   # after it: lists every difference

For every onuw deck (3–10 players), every onenight deck, a few custom decks, a
few option sets and a few fixed deals, it plays many seeds with random agents
(the all-random loop of ``werewolf.agents.play``, as the runner plays them) and fewer with heuristic bots
(the loop of ``werewolf.sim.runner.play_game``), and keeps a sha256 of each
game: its full event log (``Event.as_json()`` lines), its answers and its
result. It also keeps a digest of ``run_chunk``'s statistics and logs, so a
change to the simulation runner is checked as well. ``verify`` replays the
same games and reports each game whose digest changed, with its seed.

``--games N`` (random agents per setup, default 2000) and ``--heuristic N``
(default 200) are saved with a recording and reused by ``verify``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any

from game_digests import digest, main

from werewolf.agents import RandomAgent, play
from werewolf.core.game import Game, Setup
from werewolf.rulesets.onuw import EVERY_ROLE_DECK
from werewolf.rulesets.options import REGISTRY
from werewolf.sim.config import BotSpec, SimConfig, game_seed, stream_seed
from werewolf.sim.runner import run_chunk

Run = tuple[str, Setup]


def setups() -> list[Run]:
    """Every setup checked, by a label that names it in the report."""
    out: list[Run] = []
    for n in range(3, 11):
        out.append((f"onuw{n}", Setup("onuw", deck=f"onuw{n}")))
    for n in range(3, 8):
        out.append((f"onenight{n}", Setup("onenight", deck=f"onenight{n}")))
    out.append(("onuw default players", Setup("onuw")))
    out.append(("onenight default players", Setup("onenight")))
    customs: dict[str, tuple[str, tuple[str, ...]]] = {
        # The doppelganger with everything it can copy, and its insomniac step.
        "onuw doppel 10": ("onuw", EVERY_ROLE_DECK),
        "onuw doppel 5": ("onuw", ("doppelganger", "werewolf", "seer", "robber", "troublemaker", "insomniac",
                                   "hunter", "tanner")),
        "onuw lone wolf tanner": ("onuw", ("werewolf", "tanner", "hunter", "villager", "seer", "drunk", "minion")),
        "onuw minion no wolf": ("onuw", ("minion", "villager", "villager", "tanner", "hunter", "seer")),
        "onuw two hunters?": ("onuw", ("doppelganger", "hunter", "werewolf", "villager", "villager", "villager",
                                       "tanner")),
        "onenight one wolf": ("onenight", ("werewolf", "seer", "robber", "villager", "villager", "villager")),
        "onenight 7 villagers": ("onenight", ("werewolf", "werewolf", "villager", "villager", "villager",
                                              "villager", "seer", "robber")),
    }
    for label, (ruleset, deck) in customs.items():
        out.append((label, Setup(ruleset, deck=deck)))
    options: list[dict[str, Any]] = [
        {"allow_self_vote": True},
        {"drunk_must_swap": False, "robber_optional": False, "troublemaker_optional": False},
        {"discussion_seconds": None},
    ]
    for opts in options:
        tag = json.dumps(opts, sort_keys=True)
        out.append((f"onuw8 {tag}", Setup("onuw", deck="onuw8", options=opts)))
        out.append((f"onuw doppel 10 {tag}", Setup("onuw", deck=customs["onuw doppel 10"][1], options=opts)))
        # only the options one night werewolf accepts (the drunk and the troublemaker are onuw's)
        mine = {k: v for k, v in opts.items() if "onenight" in REGISTRY[k].rulesets}
        out.append((f"onenight5 {json.dumps(mine, sort_keys=True)}", Setup("onenight", deck="onenight5", options=mine)))
    # Fixed deals (no shuffle), as scripted games and the web set them.
    out.append(("onuw fixed deal", Setup("onuw", seats=("doppelganger", "werewolf", "robber", "troublemaker",
                                                        "insomniac", "seer"),
                                         center=("werewolf", "drunk", "villager"))))
    out.append(("onenight fixed deal", Setup("onenight", seats=("seer", "werewolf", "robber", "villager"),
                                             center=("werewolf", "villager"))))
    out.append(("onuw stop before day", Setup("onuw", deck="onuw7", stop_after_day=0)))
    return out


def play_random(setup: Setup, i: int) -> Game:
    seed = game_seed(0, i)
    game = Game(_with_seed(setup, seed))
    return play(game, {}, RandomAgent(rng=random.Random(stream_seed(seed, 1))))


def play_heuristic(setup: Setup, i: int) -> Game:
    """Every seat a heuristic bot, answered through ``Game.answer`` (moves checked), as ``play_game`` does."""
    from werewolf.agents.heuristic import HeuristicAgent
    from werewolf.agents.speech import Channel

    seed = game_seed(0, i)
    game = Game(_with_seed(setup, seed))
    seats = list(range(1, len(game.table.dealt) + 1))  # type: ignore[attr-defined]
    agent = HeuristicAgent(random.Random(stream_seed(seed, 2)), channel=Channel(), seats=seats,
                           ruleset=setup.ruleset)
    return play(game, {}, default=agent)


def _with_seed(setup: Setup, seed: int) -> Setup:
    return Setup(setup.ruleset, seats=setup.seats, center=setup.center, options=dict(setup.options), seed=seed,
                 deck=setup.deck, players=setup.players, stop_after_day=setup.stop_after_day)


# ``run_chunk`` as the bench and ``werewolf simulate`` call it: its statistics and logs are digested too.
RUNS = {
    "run_chunk onuw 5 random": SimConfig(ruleset="onuw", players=5),
    "run_chunk onenight 5 random": SimConfig(ruleset="onenight", players=5),
    "run_chunk onuw 8 wolves=heuristic": SimConfig(ruleset="onuw", deck="onuw8",
                                                   bots=BotSpec("random", (("wolves", "heuristic"),))),
}


def runner_digest(config: SimConfig) -> str:
    stats, logs = run_chunk(config, 0, 300, keep_logs=True)
    state = {k: ({repr(key) if isinstance(key, tuple) else key: x for key, x in sorted(v.items())}
                 if isinstance(v, Mapping) else v)
             for k in stats.__slots__ for v in [getattr(stats, k)]}  # (role, day) keys: as text
    text = json.dumps([state, logs], sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def play_digest(play: Callable[[Setup, int], Game], setup: Setup, i: int) -> str:
    return digest(play(setup, i))


def collect(args: argparse.Namespace) -> Iterator[tuple[str, Callable[[], str]]]:
    plays: list[tuple[str, Callable[[Setup, int], Game], int]] = [
        ("random", play_random, args.games), ("heuristic", play_heuristic, args.heuristic)]
    for label, setup in setups():
        for kind, player, n in plays:
            for i in range(n):  # game i is seed game_seed(0, i)
                yield f"{label} | {kind} | {i}", partial(play_digest, player, setup, i)
    for label, config in RUNS.items():
        yield label, partial(runner_digest, config)


def arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--games", type=int, default=2000, help="random-agent games per setup")
    ap.add_argument("--heuristic", type=int, default=200, help="heuristic-bot games per setup")


if __name__ == "__main__":
    raise SystemExit(main(__doc__ or "", collect, arguments))
