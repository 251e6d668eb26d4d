"""The documentation's examples of agents, LLM seats and RL (README.md and docs/*.md), checked for what they do.

tests/test_docs.py runs every command and example of the docs; the examples here are also checked for their
effect (a finished game, one transcript line per LLM call). tests/test_agents.py and tests/test_env.py take
their examples from ``python_block``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from werewolf.core import Game

ROOT = Path(__file__).parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def section(title: str) -> str:
    """The part of the docs under a heading, found by its text at any level and up to a colon ("### LLM seats"
    finds the "# LLM seats" of docs/llm.md, "### Tournaments" its "## Tournaments: `werewolf arena`"), up to
    the next heading."""
    name = title.lstrip("#").strip()
    heading = re.compile(rf"#+ {re.escape(name)}(:.*)?")
    for page in PAGES:
        lines, fenced, start = page.read_text(encoding="utf-8").splitlines(keepends=True), False, None
        for i, line in enumerate(lines):
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and line.startswith("#"):  # a heading (a `# comment` in a code block is not)
                if start is not None:
                    return "".join(lines[start:i])
                if heading.fullmatch(line.rstrip("\n")):
                    start = i
        if start is not None:
            return "".join(lines[start:])
    raise AssertionError(f"no heading {name!r} in README.md or docs/")


def python_block(title: str) -> str:
    code = re.search(r"```python\n(.*?)```", section(title), re.S)
    assert code is not None, title
    return code.group(1)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh folder as the current one, with the README's Accuser importable as ``my_agents``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_agents.py").write_text(python_block("## Your own agent"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "my_agents", raising=False)  # this folder's, not another test's
    return tmp_path


def test_the_llm_seat_example_runs(here: Path) -> None:
    scope: dict[str, Any] = {"__name__": "readme_llm"}
    exec(compile(python_block("### LLM seats"), "docs/llm.md", "exec"), scope)  # noqa: S102 - our own docs
    game, llm = scope["game"], scope["llm"]
    assert isinstance(game, Game) and game.over and llm.calls > 0
    lines = (here / "seat1.jsonl").read_text().splitlines()
    assert len(lines) == llm.calls  # every call a line (no retries: the fake answers legal ids)
