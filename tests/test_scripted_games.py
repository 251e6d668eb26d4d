"""Every scripted game (ours in tests/scripts, the public ones in ../shared/examples) passes --check."""

from __future__ import annotations

from pathlib import Path

import pytest

from werewolf import script as sg

HERE = Path(__file__).parent
SHARED = HERE.parent.parent / "shared" / "examples"
FILES = sorted((HERE / "scripts").rglob("*.json")) + sorted(SHARED.glob("*.json"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_scripted_game(path: Path) -> None:
    doc = sg.load(str(path))
    parsed = sg.parse(doc)
    out = sg.run(parsed)
    assert parsed.expect is not None, "a test script needs an expect block"
    diffs = sg.compare(parsed.expect, out)
    assert not diffs, "\n".join(diffs + ([out.error] if out.error else []))
