"""`werewolf explain`: a game's rulings in order, with their rules and sources, run in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from werewolf.i18n.rules import rule_catalogue

ROOT = Path(__file__).parent.parent
SAME_GUARD = ROOT / "tests" / "scripts" / "classic" / "guard_and_antidote_same_victim_dies.json"


def werewolf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "werewolf.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


def test_explain_prints_the_rulings_in_order_with_their_sources() -> None:
    r = werewolf("explain", str(SAME_GUARD))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    entry = rule_catalogue()["same_guard_save_dies"]
    # The ruling, its one-line explanation, its book and section, and the book's own sentence.
    assert "same_guard_save_dies" in out and entry["text"]["en"] in out
    assert entry["section"] in out and f"「{entry['quote']}」" in out
    assert "the moderator only" in out  # who saw it
    # In the game's order: the night's ruling, then the dawn announcement, then the day's vote.
    order = [out.index(k) for k in ("same_guard_save_dies", "night_deaths_announced", "exile_no_votes")]
    assert order == sorted(order)


def test_explain_speaks_the_chosen_language() -> None:
    hant = werewolf("explain", str(SAME_GUARD), "--lang", "zh-Hant")
    hans = werewolf("explain", str(SAME_GUARD), "--lang", "zh-Hans")
    assert hant.returncode == 0 and hans.returncode == 0
    assert rule_catalogue()["same_guard_save_dies"]["text"]["zh-Hant"] in hant.stdout
    assert rule_catalogue()["same_guard_save_dies"]["text"]["zh-Hans"] in hans.stdout
    assert "出處" in hant.stdout and "出处" in hans.stdout


def test_explain_reads_script_output_and_marks_proposals(tmp_path: Path) -> None:
    # `werewolf script` output (JSON lines) explains the same as the scripted game it came from.
    lines = werewolf("script", str(SAME_GUARD)).stdout
    path = tmp_path / "log.jsonl"
    path.write_text(lines, encoding="utf-8")
    assert werewolf("explain", str(path)).stdout == werewolf("explain", str(SAME_GUARD)).stdout
    # A rule the books are silent on says so: here the option that keeps a guarded-and-saved victim alive.
    doc = json.loads(SAME_GUARD.read_text(encoding="utf-8"))
    doc["options"] = {"same_guard_save_dies": False}
    doc.pop("expect", None)
    game = tmp_path / "game.json"
    game.write_text(json.dumps(doc), encoding="utf-8")
    r = werewolf("explain", str(game))
    assert r.returncode == 0, r.stderr
    assert "same_guard_save_lives" in r.stdout and "Where the books are silent" in r.stdout


def test_explain_refuses_what_is_not_a_game(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    r = werewolf("explain", str(bad))
    assert r.returncode == 2 and "Traceback" not in r.stderr and "holds no game" in r.stderr
    missing = werewolf("explain", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_every_scripted_game_replays_for_every_viewer() -> None:
    """Every scripted game (and example) opens as a replay for the moderator, the table and each seat,
    and a seat's replay holds only events shown to it, in the log's order."""
    from werewolf.replay import RecordError, load, replay

    paths = sorted((ROOT / "tests" / "scripts").rglob("*.json"))
    played = 0
    for path in paths:
        try:
            record = load(path)
        except RecordError:
            continue  # a file that must be rejected (its expect block says "error")
        played += 1
        for viewer in ["all", "public", *record.seats()]:
            steps = replay(record, viewer, "en")["steps"]
            indices = [s["i"] for s in steps]
            assert indices == sorted(indices), (path, viewer)
            for i in indices:
                to = record.events[i].get("to")
                assert viewer == "all" or to is None or (isinstance(viewer, int) and viewer in to), (path, viewer, i)
    assert played > 400
