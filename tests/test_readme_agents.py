"""The README's examples of LLM seats, --agent and tournaments, run as written (LLMs: the fake server)."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from werewolf.agents.fakellm import FakeLLM
from werewolf.cli import main
from werewolf.core import Game

README = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")

# `werewolf play` keys a menu by seat number (0 none, letters for the rest; several seats typed as
# seats): answers that suit every menu sooner or later; a statement prompt takes any line.
TYPED = "".join(f"{k}\n" for k in [*map(str, range(1, 13)), "0", "a", "1 2", "5 6", "8 9"]) * 300


def section(title: str) -> str:
    start = README.index(title)
    end = re.compile(r"\n##+ ").search(README, start + len(title))
    return README[start:end.start() if end else None]


def python_block(title: str) -> str:
    code = re.search(r"```python\n(.*?)```", section(title), re.S)
    assert code is not None, title
    return code.group(1)


def commands(title: str) -> list[str]:
    """Every ``werewolf ...`` command of a section (in ``sh`` blocks or indented ones)."""
    out = []
    for line in section(title).splitlines():
        line = line.strip()
        if line.startswith("werewolf "):
            out.append(line.split("  #", 1)[0].strip())
    return out


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
    exec(compile(python_block("### LLM seats"), "README.md", "exec"), scope)  # noqa: S102 - our own README
    game, llm = scope["game"], scope["llm"]
    assert isinstance(game, Game) and game.over and llm.calls > 0
    lines = (here / "seat1.jsonl").read_text().splitlines()
    assert len(lines) == llm.calls  # every call a line (no retries: the fake answers legal ids)


@pytest.mark.parametrize("title", ["### LLM seats", "### Any agent in simulate and play", "### Tournaments"])
def test_the_commands_run(title: str, here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cmds = commands(title)
    assert cmds
    with FakeLLM(speech="I am a villager") as server:  # llm:MODEL seats talk to it, not to the network
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        for cmd in cmds:
            result = CliRunner().invoke(main, shlex.split(cmd)[1:], input=TYPED)
            assert result.exit_code == 0, (cmd, result.output[-2000:])
        if any("llm:" in c for c in cmds):
            assert server.requests
    if any("--transcripts" in c for c in cmds):
        assert any((here / "transcripts").iterdir())
