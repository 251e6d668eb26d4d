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
import hashlib
import json
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from werewolf.agents.heuristic import HeuristicAgent
from werewolf.agents.speech import Channel
from werewolf.core.game import Game, Setup
from werewolf.rulesets import get_ruleset
from werewolf.sim import SimConfig, parse_bots
from werewolf.sim.config import game_seed, stream_seed, team_key
from werewolf.sim.runner import base_setup, dealt_roles

BOTS = ("heuristic", "wolves=heuristic", "village=heuristic")
WECHAT_A = ("werewolf", "werewolf", "wolf_father", "big_bad_wolf", "seer", "witch", "guard", "piper", "scapegoat",
            "raven", "fox", "villager")
WECHAT_B = ("werewolf", "werewolf", "white_wolf", "seer", "witch", "hunter", "idiot", "elder", "stuttering_judge",
            "devoted_servant", "half_blood", "prejudiced", "cupid", "villager", "villager", "wild_child",
            "rusty_knight", "bear_tamer", "pure_villager", "sisters", "sisters", "brothers", "brothers", "brothers",
            "thief")
ONUW_ALL = ("doppelganger", "werewolf", "werewolf", "minion", "mason", "mason", "seer", "robber", "troublemaker",
            "drunk", "insomniac", "tanner", "hunter")


def sim_setups() -> list[tuple[str, SimConfig]]:
    """The benchmark's setups (scripts/bench.py)."""
    out = [("classic 9", SimConfig(ruleset="classic", deck="classic9")),
           ("classic 12", SimConfig(ruleset="classic", deck="classic12"))]
    out += [(f"classic {d}", SimConfig(ruleset="classic", deck=d))
            for d in get_ruleset("classic").decks() if d.startswith("c12_")]
    out += [("facetoface 12", SimConfig(ruleset="facetoface", deck="ff12_444_guard")),
            ("wechat 12", SimConfig(ruleset="wechat", players=12)),
            ("onuw 5", SimConfig(ruleset="onuw", players=5)),
            ("onenight 5", SimConfig(ruleset="onenight", players=5))]
    return out


def wechat_options(deck: tuple[str, ...]) -> dict[str, Any]:
    from werewolf.rulesets.wechat import BASE_ROLES, EXPANSIONS

    return {"expansions": sorted({r for r in deck if r in EXPANSIONS and r not in BASE_ROLES} | {"thief"} & set(deck))}


def other_setups() -> list[tuple[str, Setup]]:
    """The bigger and stranger decks of the bot tests (every seat a bot, seeded the tests' way)."""
    out = [("classic18", Setup("classic", deck="classic18"))]
    out += [(f"facetoface {d}", Setup("facetoface", deck=d)) for d in get_ruleset("facetoface").decks()]
    out += [("wechat A", Setup("wechat", deck=WECHAT_A, options=wechat_options(WECHAT_A))),
            ("wechat B", Setup("wechat", deck=WECHAT_B, options=wechat_options(WECHAT_B))),
            ("onuw all", Setup("onuw", deck=ONUW_ALL)), ("onuw 10", Setup("onuw", players=10)),
            ("onenight 7", Setup("onenight", players=7))]
    return out


def digest(game: Game, channel: Channel, said: list[str] | None = None) -> str:
    h = hashlib.sha256()
    for e in game.events:
        h.update(json.dumps(e.as_json(), sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\n")
    h.update(b"answers\n")
    h.update(json.dumps(game.answers).encode())
    h.update(b"\nacts\n")
    for a in channel.acts:
        h.update(repr(tuple(a)).encode())
        h.update(b"\n")
    if said is not None:
        h.update(b"said\n")
        h.update(json.dumps(said, ensure_ascii=False).encode())
    return h.hexdigest()


def sim_game(config: SimConfig, i: int) -> str:
    """Game ``i`` as ``werewolf.sim.runner.play_game`` plays it (same seeds, same seating), with its channel."""
    seed = game_seed(config.seed, i)
    game = Game(replace(base_setup(config), seed=seed))
    rng = random.Random(stream_seed(seed, 1))
    kinds = {s: config.bots.kind(team_key(r)) for s, r in dealt_roles(game).items()}
    seats = [s for s, k in kinds.items() if k == "heuristic"]
    channel = Channel()
    agent = HeuristicAgent(random.Random(stream_seed(seed, 2)), channel=channel, seats=seats,
                           ruleset=config.ruleset)
    while not game.over:
        for d in game.request:
            if kinds.get(d.seat) == "heuristic":
                move = agent.choose(game, d.seat, d)
                if move is None:
                    game.decline(d)
                else:
                    game.answer(d.seat, move)
            else:
                game.answer_value(d, d.random_value(rng))
    return digest(game, channel)


def bot_game(setup: Setup, seed: int, strict: bool = False, lang: str | None = None) -> str:
    """Every seat a bot (the tests' way); ``lang``: live play, with the text each bot said."""
    game = Game(replace(setup, seed=seed, live_speech=lang is not None))
    channel = Channel()
    agent = HeuristicAgent(random.Random(seed), channel=channel, strict=strict, lang=lang or "en")
    said: list[str] = []
    while not game.over:
        for d in game.request:
            move = agent.choose(game, d.seat, d)
            if move is None:
                game.decline(d)
            else:
                if move.get("act") == "speak":
                    said.append(str(move.get("text")))
                game.answer(d.seat, move)
    agent.sync(game)
    return digest(game, channel, said if lang is not None else None)


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


def fingerprints(n: int, only: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    start = time.perf_counter()
    for key, (fn, *args) in games(n):
        if only in key:
            out[key] = fn(*args)
    print(f"{len(out):,} games in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=("record", "verify"))
    ap.add_argument("file")
    ap.add_argument("--games", type=int, default=200, help="seeds per setup and bot seating (record only)")
    ap.add_argument("--only", default="", help="verify only the games whose key holds this text")
    args = ap.parse_args()
    if args.command == "record":
        prints = fingerprints(args.games)
        with open(args.file, "w", encoding="utf-8") as f:
            json.dump({"games": args.games, "fingerprints": prints}, f, indent=0)
        print(f"recorded {len(prints):,} fingerprints in {args.file}")
        return 0
    with open(args.file, encoding="utf-8") as f:
        saved = json.load(f)
    now = fingerprints(saved["games"], args.only)
    old = {k: v for k, v in saved["fingerprints"].items() if args.only in k}
    differ = [k for k in old if now.get(k) != old[k]]
    missing = [k for k in now if k not in old]
    for k in differ[:30]:
        print(f"DIFFERENT: {k}")
    if len(differ) > 30:
        print(f"... and {len(differ) - 30} more")
    for k in missing[:5]:
        print(f"not recorded: {k}")
    verdict = "" if differ else ": the bots play as before"
    print(f"{len(old) - len(differ):,} of {len(old):,} games identical{verdict}")
    return 1 if differ or missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
