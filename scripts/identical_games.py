#!/usr/bin/env python3
"""Check that engine changes leave every game identical (a tool for optimising, not a test).

    python scripts/identical_games.py record FILE   # play the games with the current code, save their digests
    python scripts/identical_games.py verify FILE   # play them again, report every game that differs

A game's digest is the sha256 of its full event log (``e.as_json()`` lines, key
order included) and its answers. The games: every classic standard deck 8–18,
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
import hashlib
import json
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from werewolf.core.game import Game, Setup
from werewolf.rulesets import get_ruleset
from werewolf.sim import SimConfig, parse_bots
from werewolf.sim.config import game_seed, stream_seed
from werewolf.sim.runner import play_game

WECHAT_A = ("werewolf", "werewolf", "wolf_father", "big_bad_wolf", "seer", "witch", "guard", "piper", "scapegoat",
            "raven", "fox", "villager")
WECHAT_B = ("werewolf", "werewolf", "white_wolf", "seer", "witch", "hunter", "idiot", "elder", "stuttering_judge",
            "devoted_servant", "half_blood", "prejudiced", "cupid", "villager", "villager", "wild_child",
            "rusty_knight", "bear_tamer", "pure_villager", "sisters", "sisters", "brothers", "brothers", "brothers",
            "thief")


def _expansions(deck: tuple[str, ...]) -> dict[str, Any]:
    from werewolf.rulesets.wechat import BASE_ROLES, EXPANSIONS

    return {"expansions": sorted({r for r in deck if r in EXPANSIONS and r not in BASE_ROLES} | {"thief"} & set(deck))}


def setups() -> Iterator[tuple[str, Setup]]:
    for ruleset in ("classic", "facetoface", "wechat"):
        for deck in get_ruleset(ruleset).decks():
            yield deck, Setup(ruleset, deck=deck)
    yield "wechat_A", Setup("wechat", deck=WECHAT_A, options=_expansions(WECHAT_A))
    yield "wechat_B", Setup("wechat", deck=WECHAT_B, options=_expansions(WECHAT_B))
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


def _json(o: Any) -> Any:
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    raise TypeError(repr(o))


def digest(game: Game, described: list[Any] | None = None) -> str:
    h = hashlib.sha256()
    for e in game.events:
        h.update(json.dumps(e.as_json(), ensure_ascii=False, default=_json).encode())
        h.update(b"\n")
    h.update(json.dumps(game.answers, default=_json).encode())
    if described is not None:
        h.update(json.dumps(described, ensure_ascii=False, default=_json).encode())
    return h.hexdigest()


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


def record_all(games: int, heuristic: int, described: int) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, setup in setups():
        config = SimConfig(ruleset=setup.ruleset, seed=7)
        heur = replace(config, bots=parse_bots("heuristic"))
        start = time.perf_counter()
        out[f"{name} random"] = [digest(play_game(config, i, setup)) for i in range(games)]
        out[f"{name} heuristic"] = [digest(play_game(heur, i, setup)) for i in range(heuristic)]
        out[f"{name} described"] = [play_described(setup, game_seed(11, i)) for i in range(described)]
        print(f"  {name:<40} {time.perf_counter() - start:6.1f} s", file=sys.stderr)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("record", "verify"))
    ap.add_argument("file")
    ap.add_argument("--games", type=int, default=300, help="random-agent games per setup")
    ap.add_argument("--heuristic", type=int, default=12, help="heuristic-bot games per setup")
    ap.add_argument("--described", type=int, default=20, help="games per setup with every request described")
    args = ap.parse_args()
    if args.mode == "record":
        data = {"games": args.games, "heuristic": args.heuristic, "described": args.described,
                "digests": record_all(args.games, args.heuristic, args.described)}
        with open(args.file, "w") as f:
            json.dump(data, f)
        print(f"recorded {sum(map(len, data['digests'].values()))} games in {args.file}")
        return 0
    with open(args.file) as f:
        data = json.load(f)
    now = record_all(data["games"], data["heuristic"], data["described"])
    bad = 0
    for key, old in data["digests"].items():
        new = now.get(key, [])
        diff = [i for i, (a, b) in enumerate(zip(old, new)) if a != b]
        if len(old) != len(new) or diff:
            bad += 1
            print(f"DIFFERS {key}: games {diff[:10]}{' ...' if len(diff) > 10 else ''} of {len(old)}")
    total = sum(map(len, data["digests"].values()))
    print(f"{'all identical' if not bad else f'{bad} setups differ'} ({total} games)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
