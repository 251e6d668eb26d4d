#!/usr/bin/env python3
"""Enumerate each ruleset's action space once (werewolf/env/spaces/<ruleset>.json).

New ids are appended, existing ones keep their index: a trained policy's outputs keep their
meaning. The speech actions (``say:...``, werewolf.env.speech) are every ruleset's too. Run after
a ruleset gains a decision; tests/test_env.py checks that random games only
ask for ids in the stored spaces. Each file says the encoding version it was made for and where
its speech actions begin (``speech_from``: the ids from there on are ``say:...``, appended in
encoding version 2).

    python scripts/env_actions.py [--seeds 40] [RULESET ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from werewolf.env.actions import SPACE_VERSION, explore, max_seats, merged_ids
from werewolf.env.encoding import ENCODING_VERSION
from werewolf.env.speech import speech_ids
from werewolf.rulesets import MODULES

SPACES = Path(__file__).resolve().parent.parent / "werewolf" / "env" / "spaces"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rulesets", nargs="*", default=list(MODULES))
    ap.add_argument("--seeds", type=int, default=40)
    args = ap.parse_args()
    for ruleset in args.rulesets:
        path = SPACES / f"{ruleset}.json"
        old = json.loads(path.read_text("utf-8"))["actions"] if path.exists() else []
        ids = merged_ids(old, explore(ruleset, args.seeds) | set(speech_ids(ruleset)))
        speech = [i for i, a in enumerate(ids) if a.startswith("say:")]
        path.write_text(json.dumps({"version": SPACE_VERSION, "ruleset": ruleset, "max_seats": max_seats(ruleset),
                                    "encoding_version": ENCODING_VERSION, "speech_from": min(speech),
                                    "actions": ids}, indent=0, ensure_ascii=False) + "\n", "utf-8")
        print(f"{ruleset}: {len(ids)} actions ({len(ids) - len(old)} new)")


if __name__ == "__main__":
    main()
