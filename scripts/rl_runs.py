#!/usr/bin/env python3
"""The measured runs of docs/rl.md: one real run of each feature of the RL environments (issue 27).

    python scripts/rl_runs.py [speech|single|vector|state|pickle|baselines ...]   # all by default

Each prints what it measured; the numbers in docs/rl.md are this script's output (the time a run
takes depends on the machine and its load; the counts and rates do not: every run is seeded).
"""

from __future__ import annotations

import argparse
import pickle
import random
import time

import numpy as np

from werewolf.env import env, parallel_env, random_kind, single, unflatten, uniform, vector
from werewolf.env.encoding import state_layout


def speech() -> None:
    """Speaking seats: what the one-night voters know when they vote, with and without speech."""
    print("== speech: onuw 5 (onuw5), 500 games, every seat the uniform policy ==")
    for talk in (False, True):
        p = parallel_env("onuw", deck="onuw5", lang=None, speech=talk)
        rng = random.Random(0)
        nonzero, said, steps, votes = 0.0, 0, 0, 0
        for seed in range(500):
            obs, infos = p.reset(seed=seed)
            while p.agents:
                for a, info in infos.items():
                    if any(i.startswith("vote:") for i in info["legal"]):  # a voter, as it votes
                        f = unflatten("onuw", obs[a]["observation"])
                        nonzero += float(sum(f[k].sum() > 0 for k in ("claims", "reports", "accuse", "vouch")))
                        votes += 1
                obs, _, _, _, infos = p.step({a: uniform(o["action_mask"], rng) for a, o in obs.items()})
                steps += 1
            said += len(p.t.statements)
        print(f"  speech={talk!s:<5}: {steps / 500:5.1f} steps a game, {said / 500:4.1f} statements a game; "
              f"a voter's claims/reports/accuse/vouch fields non-zero: {nonzero / votes / 4:5.1%}")
    e = env("classic", deck="classic9", lang="en", speech=True)
    e.reset(seed=3)
    rng = random.Random(3)
    for _ in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        if len(e.t.statements) >= 3 and e.t.turn is not None and not e.t.turn.said:
            break  # a speaking turn, once a few statements were said
        e.step(uniform(obs["action_mask"], rng))
    else:
        raise AssertionError("no speaking turn after three statements in this game")
    legal = info["legal"]
    print(f"  classic9, {e.agent_selection}'s speaking turn: {len(legal)} legal speech actions, e.g. "
          f"{', '.join(legal[:3])} ... {', '.join(legal[-3:])}")
    print("  the last lines of its text view:")
    for line in info["text"].splitlines()[-5:]:
        print(f"    {line}")


def single_seat() -> None:
    print("== single: classic 9, the learner's seat played by the uniform policy, 2,000 games each ==")
    for side in ("wolves", "village"):
        for opponents in ("random", "heuristic"):
            e = single("classic", deck="classic9", seat_or_side=side, opponents=opponents)
            rng = np.random.default_rng(0)
            wins, steps, start = 0, 0, time.process_time()
            for seed in range(2000):
                _, info = e.reset(seed=seed)
                done = False
                while not done:
                    _, reward, done, _, info = e.step(uniform(info["action_mask"], rng))
                    steps += 1
                wins += reward > 0
            took = time.process_time() - start
            print(f"  {side:<7} vs {opponents:<9}: won {wins / 2000:5.1%}  ({steps / 2000:4.1f} of its steps a game,"
                  f" {2000 / took:5.0f} games per CPU second)")
    print(f"  info at the end of the last game: side={info['side']!r} seat={info['seat']} "
          f"winners={info['winners']} sides={info['sides']}")


def vectorised() -> None:
    print("== vector: classic 9, seat_or_side='wolves' vs heuristic, 8 games at once, 4,000 steps ==")
    for asynchronous in (False, True):
        v = vector(8, "classic", deck="classic9", seat_or_side="wolves", opponents="heuristic",
                   asynchronous=asynchronous)
        obs, info = v.reset(seed=0)
        rng = np.random.default_rng(0)
        ended = won = 0
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(4000):
            actions = np.array([uniform(m, rng) for m in info["action_mask"]])
            obs, rewards, terms, _, info = v.step(actions)
            ended += int(terms.sum())
            won += int((rewards > 0).sum())
        took, cpu = time.perf_counter() - start, time.process_time() - cpu
        v.close()
        speed = f"{4000 * 8 / took:,.0f} steps/s wall clock"
        if not asynchronous:  # (the workers' CPU time is not this process's)
            speed += f", {4000 * 8 / cpu:,.0f} per CPU second"
        print(f"  {'async' if asynchronous else 'sync '}: obs {obs.shape}, masks {info['action_mask'].shape}; "
              f"{ended} games ended, the wolves won {won / ended:5.1%}; {speed}")


def state() -> None:
    print("== state(): the whole hidden state, for a centralised critic ==")
    e = env("onuw", deck="onuw5", lang=None)
    e.reset(seed=4)
    rng = random.Random(4)
    for _ in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc or e.game.phase.startswith("day"):
            break
        e.step(uniform(obs["action_mask"], rng))
    s = e.state()
    lay = state_layout("onuw")
    fields = {k: s[a:b].reshape(shape) for k, (a, b, shape) in lay.items()}
    from werewolf.env import ruleset_roles

    roles = ruleset_roles("onuw")
    cards = [roles[int(np.flatnonzero(r)[0])] for r in fields["roles"][:5]]
    print(f"  onuw5 at dawn: observation {obs['observation'].shape[0]} floats, state {s.shape[0]} "
          f"(private {lay['private'][2]}, roles {lay['roles'][2]}, sides {lay['sides'][2]}, "
          f"centre {lay['center_cards'][2]})")
    print(f"  the cards now (state): {cards}")
    print(f"  the cards dealt (engine): {list(e.game.dealt)}")
    sides = [("wolves", "village", "others")[int(np.flatnonzero(r)[0])] for r in fields["sides"][:5]]
    print(f"  the sides now: {sides}")


def pickling() -> None:
    print("== pickle: an AEC env mid-game (classic 12, speech on), pickled and both copies played on ==")
    e = env("classic", deck="classic12", lang=None, speech=True)
    e.reset(seed=11)
    rng = random.Random(1)
    for _ in range(60):
        obs, *_ = e.last()
        e.step(uniform(obs["action_mask"], rng))
    start = time.perf_counter()
    data = pickle.dumps(e)
    mid = time.perf_counter()
    copy = pickle.loads(data)
    end = time.perf_counter()

    def play(x: object) -> list[bytes]:
        r, out = random.Random(7), []
        for _ in x.agent_iter():  # type: ignore[attr-defined]
            obs, _, term, trunc, _ = x.last()  # type: ignore[attr-defined]
            out.append(obs["observation"].tobytes())
            x.step(None if term or trunc else uniform(obs["action_mask"], r))  # type: ignore[attr-defined]
        return out

    a, b = play(e), play(copy)
    print(f"  {len(data):,} bytes; dumps {1000 * (mid - start):.1f} ms, loads {1000 * (end - mid):.1f} ms "
          f"(the game's rules run again on its {len(e.game._sent)} lists of answers)")
    print(f"  continued: {len(a)} observations each, identical: {a == b}; results {e.game.result} / "
          f"{copy.game.result}")


def baselines() -> None:
    print("== baselines: classic 9, every seat the same baseline, 3,000 games each: the wolves' share ==")
    for name in ("uniform", "random"):
        e = env("classic", deck="classic9", lang=None)
        rng = random.Random(0)
        won = explosions = 0
        for seed in range(3000):
            e.reset(seed=seed)
            for _ in e.agent_iter():
                obs, _, term, trunc, _ = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                e.step(uniform(obs["action_mask"], rng) if name == "uniform" else random_kind(e, rng))
            won += "wolves" in (e.game.result or ([], []))[0]
            explosions += sum(1 for ev in e.game.events if ev.type == "explode")
        print(f"  {name:<8}: wolves won {won / 3000:5.1%}; self-destructs {explosions / 3000:.2f} a game")


def train() -> None:
    """A policy learning through the vector environment: REINFORCE with a linear softmax over the legal
    actions (numpy only), classic-9 wolves against the ``random`` kind, 16 games at once."""
    from werewolf.env import layout

    print("== train: REINFORCE, linear policy, classic 9 wolves vs random, vector of 16 games ==")
    lay = layout("classic")
    parts = [lay[k] for k in ("act", "role", "alive", "phase", "day")]

    def features(obs: np.ndarray) -> np.ndarray:
        out = np.concatenate([obs[:, a:b] for a, b, _ in parts] + [np.ones((len(obs), 1), np.float32)], axis=1)
        out[:, -2] /= 5.0  # the day number, scaled
        return out

    num, lr = 16, 0.005
    v = vector(num, "classic", deck="classic9", seat_or_side="wolves", opponents="random")
    obs, info = v.reset(seed=0)
    n_actions = v.single_action_space.n
    ids = v.envs[0].action_ids  # type: ignore[attr-defined]
    explode_yes = np.array([i for i, a in enumerate(ids) if a.startswith("explode:") and ":no:" not in a])
    explode: list[float] = []
    w = np.zeros((features(obs).shape[1], n_actions), dtype=np.float64)
    rng = np.random.default_rng(0)
    trace: list[list[tuple[np.ndarray, int, np.ndarray]]] = [[] for _ in range(num)]
    won: list[float] = []
    baseline = 0.0
    start = time.process_time()
    report = 2000
    while len(won) < 16_000:
        x = features(obs)
        logits = x @ w
        masks = info["action_mask"].astype(bool)
        logits[~masks] = -np.inf
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        actions = np.array([rng.choice(n_actions, p=row) for row in p])
        for i in range(num):
            trace[i].append((x[i], int(actions[i]), p[i]))
            if masks[i, explode_yes].any():  # offered a self-destruct: the policy's chance to take it
                explode.append(float(p[i, explode_yes].sum()))
        obs, rewards, terms, _, info = v.step(actions)
        for i in np.flatnonzero(terms):
            ret = float(rewards[i])
            won.append(ret > 0)
            advantage = ret - baseline
            baseline += 0.01 * (ret - baseline)
            for xi, a, pi in trace[i]:  # grad of log softmax: x (onehot(a) - p), legal actions only
                g = -pi.copy()
                g[a] += 1.0
                nz = np.flatnonzero(g)
                w[:, nz] += lr * advantage * np.outer(xi, g[nz])
            trace[i] = []
            if len(won) % report == 0:
                print(f"  games {len(won) - report + 1:>6,}–{len(won):>6,}: the wolves' seat won "
                      f"{np.mean(won[-report:]):5.1%}; it self-destructs when it may: {np.mean(explode[-500:]):5.1%}")
    v.close()
    print(f"  ({time.process_time() - start:.0f} s of CPU; the uniform policy on that seat wins 50.8%, the "
          "random kind's wolves 62.6%)")


RUNS = {"speech": speech, "single": single_seat, "vector": vectorised, "state": state, "pickle": pickling,
        "baselines": baselines, "train": train}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="*", metavar="RUN", help=f"any of {', '.join(RUNS)} (default: all)")
    names = ap.parse_args().runs or list(RUNS)
    unknown = [n for n in names if n not in RUNS]
    if unknown:
        ap.error(f"unknown run(s) {', '.join(unknown)} (known: {', '.join(RUNS)})")
    for name in names:
        RUNS[name]()
        print()


if __name__ == "__main__":
    main()
