"""The `werewolf` command, run for real in a subprocess (SCRIPTED_GAMES.md, "Running")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from werewolf.rulesets.classic import ADVANCED
from werewolf.rulesets.facetoface import PRESETS

ROOT = Path(__file__).parent.parent
NINE = ["werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "villager", "villager", "villager"]
PACK_KILLS_7 = [{"seat": s, "act": "kill", "target": 7} for s in (1, 2, 3)]


def werewolf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "werewolf.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


def write(tmp_path: Path, doc: Any, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def game(**kw: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"ruleset": "classic", "seats": list(NINE), "seed": 3}
    doc.update(kw)
    return doc


def one_line_error(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), r.stderr
    return lines[0]


INVALID = [
    # (id, file, words the one stderr line must hold)
    ("malformed json", '{"ruleset": "classic", "seats": [', ["not valid JSON", "line"]),
    ("not an object", "[1, 2, 3]", ["JSON object"]),
    ("unknown role", game(seats=NINE[:-1] + ["dragon"]), ["setup", "unknown role", "dragon"]),
    ("unknown option", game(options={"no_such_option": True}), ["setup", "no_such_option"]),
    ("bad option value", game(options={"sheriff_vote_weight": "heavy"}), ["setup", "sheriff_vote_weight"]),
    ("unknown act", game(moves={"night1": [{"seat": 1, "act": "fly", "target": 7}]}),
     ["night1", "seat 1", "'fly'", "unknown act"]),
    ("unknown phase", game(moves={"evening1": [{"seat": 1, "act": "kill", "target": 7}]}),
     ["unknown phase", "evening1"]),
    ("seat 0", game(moves={"night1": [{"seat": 0, "act": "kill", "target": 7}]}),
     ["night1", "seat 0", "'kill'", "no seat 0"]),
    ("dead player votes", game(moves={"night1": PACK_KILLS_7, "day1": [{"seat": 7, "act": "vote", "target": 1}]}),
     ["day1", "seat 7", "'vote'", "dead"]),
    ("target out of range", game(moves={"night1": [{"seat": 1, "act": "kill", "target": 12}]}),
     ["night1", "seat 1", "'kill'", "12"]),
    # the classic box: six werewolf and six villager cards, the thief's bottom cards included (RULES.md §5.1)
    ("seven werewolves", game(seats=["werewolf"] * 7 + ["seer", "witch", "hunter", "idiot", "guard"]
                              + ["villager"] * 6),
     ["setup", "classic box", "at most 6 werewolf cards", "has 7"]),
    ("seven villagers with the centre", game(
        seats=["wolf_king", "werewolf", "werewolf", "seer", "witch", "hunter", "idiot", "thief"] + ["villager"] * 6,
        center=["villager", "cupid"]), ["setup", "classic box", "at most 6 villager cards", "has 7"]),
    # a refusal names the value in force, not the ruleset's default
    ("thief bottom rule in force", {"ruleset": "wechat", "options": {"thief_bottom_rule": "ff_pairs"},
                                    "seats": NINE + ["villager"], "center": ["thief", "werewolf"]},
     ["setup", "thief_bottom_rule=ff_pairs"]),
]


@pytest.mark.parametrize("doc,words", [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
def test_invalid_file_exits_2_with_one_line(tmp_path: Path, doc: Any, words: list[str]) -> None:
    line = one_line_error(werewolf("script", write(tmp_path, doc)))
    for w in words:
        assert w in line, line


def test_missing_file(tmp_path: Path) -> None:
    line = one_line_error(werewolf("script", str(tmp_path / "nope.json")))
    assert "nope.json" in line


CHECKED = game(moves={"night1": PACK_KILLS_7, "day1": [{"seat": s, "act": "vote", "target": 1}
                                                       for s in (2, 3, 4, 5, 6, 8, 9)]},
               expect={"deaths": {"night1": [7], "day1": [1]}, "exiled": {"day1": 1}, "causes": {"7": "kill"}})


def test_script_prints_json_lines_and_check_passes(tmp_path: Path) -> None:
    path = write(tmp_path, CHECKED)
    r = werewolf("script", path, "--check")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert lines and all(isinstance(e, dict) and "type" in e and "phase" in e for e in lines)
    types = [e["type"] for e in lines]
    assert types[0] == "game_start" and types[-1] == "stopped"  # the script ends at day 1
    assert {"seat": 7, "cause": "kill", "type": "death", "phase": "night1"}.items() <= next(
        e for e in lines if e["type"] == "death").items()
    assert any({"type": "exile", "phase": "day1", "seat": 1}.items() <= e.items() for e in lines)
    # without --check the same log, exit 0
    plain = werewolf("script", path)
    assert plain.returncode == 0 and plain.stdout == r.stdout


def test_failing_check_exits_1_with_the_difference(tmp_path: Path) -> None:
    doc = dict(CHECKED, expect={"deaths": {"night1": [8], "day1": [1]}, "exiled": {"day1": 2}})
    r = werewolf("script", write(tmp_path, doc), "--check")
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    assert "differs" in r.stderr
    assert "deaths in night1: expected [8], got [7]" in r.stderr
    assert "exiled in day1: expected 2, got 1" in r.stderr
    assert "deaths in day1" not in r.stderr  # only what differs


def test_decks_lists_every_book_deck() -> None:
    r = werewolf("decks")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    ids = {line.split()[0] for line in out.splitlines() if line.startswith("  ")}
    for deck in list(ADVANCED) + list(PRESETS) + [f"classic{n}" for n in range(8, 19)]:
        assert deck in ids, deck
    for name in ("classic:", "facetoface:", "wechat:"):
        assert name in out.splitlines()


def test_engine_says_which_build_runs_and_from_where() -> None:
    from click.testing import CliRunner

    from werewolf.cli import main

    out = CliRunner().invoke(main, ["engine"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith(("python engine, from ", "compiled engine (mypyc), from ")), out.output
