#!/usr/bin/env python3
"""The server's CPU time per view push, in process: no HTTP, no sockets, none of the machine's noise.

Plays all-person 12-seat classic rooms through the hub (random legal answers, nights unpaced), with a
socket per seat and a spectator's, and prints the CPU time of a push (the view made and encoded) and its
size, and the CPU time of an answer (applied and committed, pushes apart). ``--full-views``: whole
views, as sockets without ``?delta=true`` get them.

    python -m scripts.viewbench [--games 8] [--full-views]     # from the repository's root
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time

from werewolf.web.hub import Hub
from werewolf.web.state import Subscriber
from werewolf.web.store import Store


async def run(games: int, delta: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store("sqlite:///" + os.path.join(tmp, "bench.sqlite"))
        hub = Hub(store, timeout=0, timers=False)
        await hub.start()
        push_cpu = answer_cpu = 0.0
        pushes = answers = sent = 0
        try:
            for g in range(games):
                rng = random.Random(g)
                room, _ = await hub.create(ruleset="classic", deck="classic12", options={}, bots=[], seed=g,
                                           mode="online", lang="en", players=None, timeout=None,
                                           bot_kind="random", pace=[0, 0])
                for s in range(1, room.n + 1):
                    await hub.join(room, f"p{s}", s)
                subs = [Subscriber(s, False, "en", delta=delta) for s in range(1, room.n + 1)]
                subs.append(Subscriber(None, False, "en", delta=delta))
                room.subs.update(subs)
                await hub.start_game(room, fill_with_bots=False)
                while not room.over():
                    for sub in subs:
                        if sub.dirty.is_set():
                            sub.dirty.clear()
                            t = time.process_time()
                            text = await hub.push(room, sub)
                            push_cpu += time.process_time() - t
                            pushes += text is not None
                            sent += len(text.encode()) if text is not None else 0
                    asked = [s for s in range(1, room.n + 1) if room.pending(s)]
                    if not asked:
                        await hub.sweep()
                        continue
                    seat = rng.choice(asked)
                    moves = [m for d in room.pending(seat) for m in d.options()]
                    calm = [m for m in moves if m["act"] not in ("explode", "duel")] or moves
                    t = time.process_time()
                    await hub.act(room, seat, rng.choice(calm))
                    answer_cpu += time.process_time() - t
                    answers += 1
        finally:
            await hub.stop()
            store.close()
    print(f"{'deltas' if delta else 'whole views'}: {pushes} pushes, {1000 * push_cpu / max(1, pushes):.3f} ms "
          f"of CPU each, {sent / max(1, pushes) / 1000:.1f} kB each on average; {answers} answers, "
          f"{1000 * answer_cpu / max(1, answers):.3f} ms each (pushes apart)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--full-views", action="store_true")
    args = ap.parse_args()
    asyncio.run(run(min(args.games, 200), not args.full_views))


if __name__ == "__main__":
    main()
