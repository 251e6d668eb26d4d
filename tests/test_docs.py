"""Every command and example of the README and of docs/ runs as written, and the site builds (mkdocs --strict).

The fenced ``sh``/``bash``/``console`` blocks are run command by command (``werewolf ...`` as
``python -m werewolf.cli ...`` of this tree, ``python ...`` with this interpreter), the ``python`` blocks as
scripts; each must exit 0, and a ``console`` block run as written must print the lines it shows (``…``
stands for lines left out). Every page runs in a fresh folder of its own, in which ``tests``, ``docs`` and
``scripts`` are the repository's, so the paths written in the docs resolve and what the commands write
stays out of the tree. A block the test cannot run says so where a reader sees it, in an HTML comment
just before it, and the test holds it to that:

- ``<!-- docs-test: skip REASON -->``: not run (it installs packages, starts a server, runs for minutes);
  the reason is required.
- ``<!-- docs-test: replace OLD => NEW -->``: run with OLD replaced by NEW (smaller arguments).
- ``<!-- docs-test: fake-llm -->``: ``llm:MODEL`` seats play against the fake chat-completions server
  (``werewolf.agents.fakellm``), which ``OPENAI_BASE_URL`` then names whatever the block exports; the
  fake server must be asked something, and every ``--transcripts DIR`` must be filled.
- ``<!-- docs-test: file NAME -->``: a python block is also saved as NAME, for the later blocks of the
  page (the agent that ``--agent 5=my_agents:Accuser`` seats).

A command of a block that is not skipped and that the test cannot run (``curl``, a pipe, ``&&``) fails
the test: no command is left out silently.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from werewolf import ruletext
from werewolf.cli import main

ROOT = Path(__file__).parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# The rule texts ship as written (the package's copies, printed by `werewolf rules`, are the same files): their
# code blocks are the digest's pseudo-code and the contract's synopsis, not examples to run here. The
# contract's commands are run by tests/test_scripted_games.py and by docs/rulings.md's examples.
RULE_TEXTS = {"rules.md": "digest", "scripted-games.md": "scripted-games"}
OURS = [p for p in PAGES if not (p.parent == ROOT / "docs" and p.name in RULE_TEXTS)]
SHELL = {"sh", "bash", "console", "shell"}
NOTE = re.compile(r"^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^ {0,3}(```+|~~~+)\s*([\w+-]*)")
# `werewolf play` keys a menu by seat number (0 none, letters for the rest; several seats typed as seats):
# answers that suit every menu sooner or later; a statement prompt takes any line.
TYPED = "".join(f"{k}\n" for k in [*map(str, range(1, 13)), "0", "a", "1 2", "5 6", "8 9"]) * 300
TIMEOUT = 180


@dataclass
class Block:
    page: str
    line: int
    lang: str
    code: str
    notes: list[tuple[str, str]] = field(default_factory=list)  # (kind, argument)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    def note(self, kind: str) -> list[str]:
        return [arg for k, arg in self.notes if k == kind]


def parse(path: Path) -> list[Block]:
    """The fenced blocks of a page, each with the docs-test notes just before it (blank lines between allowed)."""
    page = path.name if path.parent == ROOT else f"docs/{path.name}"
    blocks: list[Block] = []
    notes: list[tuple[str, str]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := NOTE.match(line):
            kind, _, arg = m[1].partition(" ")
            notes.append((kind, arg.strip()))
        elif m := FENCE.match(line):
            fence, start = m[1], i
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith(fence):
                i += 1
            blocks.append(Block(page, start + 1, m[2].lower(), "\n".join(lines[start + 1:i]) + "\n", notes))
            notes = []
        elif line.strip() and notes:
            raise AssertionError(f"{page}:{i + 1}: a docs-test note must stand just before a fenced block")
        i += 1
    assert not notes, f"{page}: a docs-test note at the end of the page, before no block"
    return blocks


def check_notes(block: Block) -> None:
    for kind, arg in block.notes:
        assert kind in {"skip", "replace", "fake-llm", "file"}, f"{block.where}: unknown docs-test note {kind!r}"
        if kind == "skip":
            assert len(arg.split()) >= 3, f"{block.where}: a skip says why, in a few words (got {arg!r})"
        if kind == "replace":
            old, sep, new = arg.partition(" => ")
            assert sep and old.strip() and new.strip(), f"{block.where}: replace OLD => NEW (got {arg!r})"
            assert old.strip() in block.code, f"{block.where}: {old.strip()!r} is not in the block"
        if kind == "file":
            assert block.lang == "python" and re.fullmatch(r"\w+\.py", arg), f"{block.where}: file NAME.py"
        if kind in {"fake-llm"}:
            assert not arg, f"{block.where}: {kind} takes no argument"


def commands(block: Block) -> list[str]:
    """The commands of a shell block: in a console block the lines after ``$ ``, else every line but comments;
    a line ending in a backslash goes on on the next one."""
    out: list[str] = []
    pending = ""
    for raw in block.code.splitlines():
        if pending:
            line = pending + " " + raw.strip()
        elif block.lang == "console":
            if not raw.startswith("$ "):
                continue
            line = raw[2:].strip()
        else:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        pending = ""
        out.append(line)
    assert not pending, f"{block.where}: a command ends in a backslash"
    return out


def argv(command: str, where: str) -> list[str] | None:
    """How the test runs one command, or None for an ``export`` (read into the environment by the caller)."""
    words = shlex.split(command, comments=True)
    unrunnable = {"&&", "||", "|", ";", ">", ">>", "<", "&"} & set(words)
    assert not unrunnable, f"{where}: {command!r}: the test runs single commands (mark the block skip, with why)"
    if words[0] == "werewolf":
        return [sys.executable, "-m", "werewolf.cli", *words[1:]]
    if words[0] in {"python", "python3"}:
        return [sys.executable, *words[1:]]
    if words[0] == "export":
        return None
    raise AssertionError(f"{where}: {command!r}: not a command the docs test runs (werewolf, python, export); "
                         "mark its block <!-- docs-test: skip REASON -->")


def run(cmd: list[str], where: str, here: Path, env: dict[str, str], stdin: str = TYPED) -> str:
    result = subprocess.run(cmd, cwd=here, env=env, input=stdin, capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, (f"{where}: {shlex.join(cmd[1:])} exited {result.returncode}\n"
                                    f"{result.stdout[-1500:]}\n{result.stderr[-3000:]}")
    return result.stdout


def shown_output(block: Block) -> list[str]:
    """The output a console block shows after its one command (an elision, ``…``, stands for lines left out)."""
    lines = block.code.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("$ "))
    while lines[end].endswith("\\"):
        end += 1
    return [line.strip() for line in lines[end + 1:] if line.strip() and line.strip() != "…"]


def run_page(path: Path, here: Path) -> int:
    """Run every block of a page in ``here``; the number of commands and scripts run."""
    from werewolf.agents.fakellm import FakeLLM

    for name in ("tests", "docs", "scripts"):
        (here / name).symlink_to(ROOT / name, target_is_directory=True)
    base = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(here)]), COLUMNS="120",
                OPENAI_BASE_URL="http://127.0.0.1:9/v1", OPENAI_API_KEY="docs-test")  # no network, ever
    ran = 0
    for block in parse(path):
        check_notes(block)
        if block.note("skip") or (block.lang not in SHELL and block.lang != "python"):
            continue
        if block.lang == "python":
            for name in block.note("file"):
                (here / name).write_text(block.code, encoding="utf-8")
            script = here / f"_block_{block.line}.py"
            script.write_text(block.code, encoding="utf-8")
            run([sys.executable, str(script)], block.where, here, base)
            ran += 1
            continue
        cmds = commands(block)
        assert cmds, f"{block.where}: a shell block without a command"
        for replace in block.note("replace"):
            old, _, new = replace.partition(" => ")
            cmds = [c.replace(old.strip(), new.strip()) for c in cmds]
        env = dict(base)
        fake = block.note("fake-llm")
        with FakeLLM(speech="I am a villager") if fake else contextlib.nullcontext() as server:
            for cmd in cmds:
                args = argv(cmd, block.where)
                if args is None:
                    env.update(w.split("=", 1) for w in shlex.split(cmd)[1:] if "=" in w)
                    continue
                if server is not None:
                    env.update(OPENAI_BASE_URL=server.base_url)
                out = run(args, block.where, here, env)
                ran += 1
                if block.lang == "console" and len(cmds) == 1 and not block.note("replace"):
                    # what the docs show is what the command prints (a replaced command prints other numbers)
                    printed = {line.strip() for line in out.splitlines()}
                    for line in shown_output(block):
                        assert line in printed, f"{block.where}: the docs show {line!r}, the command did not print it"
            if server is not None:
                assert server.requests, f"{block.where}: no LLM seat asked the fake server anything"
        for cmd in cmds:
            words = shlex.split(cmd, comments=True)
            if "--transcripts" in words:
                folder = here / words[words.index("--transcripts") + 1]
                assert folder.is_dir() and any(folder.iterdir()), f"{block.where}: {cmd}: no transcripts"
    return ran


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.name)
def test_the_commands_and_examples_run(path: Path, tmp_path: Path) -> None:
    ran = run_page(path, tmp_path)
    shown = [b for b in parse(path) if b.lang in SHELL | {"python"}]
    if any(not b.note("skip") for b in shown):
        assert ran > 0


def test_every_note_is_understood_and_every_skip_says_why() -> None:
    blocks = [b for p in OURS for b in parse(p)]
    for block in blocks:
        check_notes(block)
    runnable = [b for b in blocks if b.lang in SHELL and not b.note("skip")]
    for block in runnable:  # what a skipped block would hide: a command the test cannot run
        for cmd in commands(block):
            argv(cmd, block.where)
    assert len(runnable) >= 15, len(runnable)


def test_the_readme_stays_short_and_keeps_its_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 250
    assert "\npython3 -m pip install -e '.[web]' && werewolf serve\n" in readme
    assert "\nbash scripts/test\n" in readme


def test_every_local_link_of_the_readme_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(((?!https?:)[^)#]+)", readme):
        assert (ROOT / target).exists(), target


@pytest.mark.parametrize("name", sorted(RULE_TEXTS))
def test_the_shipped_rule_texts_are_the_docs(name: str) -> None:
    """`werewolf rules` prints the package's copy; the docs show the repository's: one text."""
    docs = (ROOT / "docs" / name).read_text(encoding="utf-8")
    assert ruletext.text(RULE_TEXTS[name]) == docs
    result = CliRunner().invoke(main, ["rules", RULE_TEXTS[name]])
    assert result.exit_code == 0 and result.output == docs
    assert Path(ruletext.path(RULE_TEXTS[name])).read_text(encoding="utf-8") == docs


def test_werewolf_rules_prints_a_section_or_says_which_there_are() -> None:
    part = CliRunner().invoke(main, ["rules", "--section", "§1.6"])
    assert part.exit_code == 0 and part.output.startswith("### 1.6 Where the sources disagree")
    assert "### 1.7" not in part.output and "| 1 | Sheriff vote weight" in part.output
    wider = CliRunner().invoke(main, ["rules", "-s", "3.2"]).output
    assert "#### 3.2.4 Exile vote" in wider and "### 3.3" not in wider
    ambiguity = CliRunner().invoke(main, ["rules", "-s", "a-57"]).output
    assert ambiguity.startswith("- **A-57 — Simultaneous win conditions") and "A-58" not in ambiguity
    acts = CliRunner().invoke(main, ["rules", "scripted-games", "-s", "Acts"]).output
    assert acts.startswith("## Acts\n") and "## The log" not in acts
    # the digest's pseudo-code has `# stage 1` comments: not headings
    night = CliRunner().invoke(main, ["rules", "-s", "3.1.1"]).output
    assert "# stage 4: dream deaths" in night and night.count("```") % 2 == 0
    missing = CliRunner().invoke(main, ["rules", "-s", "9.9"])
    assert missing.exit_code == 2 and "no section '9.9' in RULES.md" in missing.output
    assert "3.2.4" in missing.output and "A-1 to A-" in missing.output


def test_the_programs_citations_name_files_a_user_has() -> None:
    """`werewolf options` and `werewolf explain` cite RULES.md: both say where it is, and the file is there."""
    options = CliRunner().invoke(main, ["options", "--ruleset", "classic"]).output
    assert "RULES.md §" in options and "docs/rules.md" in options and "werewolf rules" in options
    explained = CliRunner().invoke(
        main, ["explain", str(ROOT / "tests/scripts/classic/exile_tie_none_option_nobody_exiled.json")]).output
    assert "RULES.md" in explained and "docs/rules.md" in explained
    assert (ROOT / "docs" / "rules.md").is_file() and (ROOT / "docs" / "scripted-games.md").is_file()
    assert "docs/scripted-games.md" in CliRunner().invoke(main, ["script", "--help"]).output


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT,
                            env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "rules" / "index.html").is_file() and (tmp_path / "index.html").is_file()


@pytest.mark.parametrize("example", sorted((ROOT / "docs" / "examples").glob("*.json")), ids=lambda p: p.stem)
def test_the_shipped_examples_pass_their_check(example: Path) -> None:
    """docs/scripted-games.md says its examples (docs/examples/) each pass `werewolf script FILE --check`."""
    result = CliRunner().invoke(main, ["script", str(example), "--check"])
    assert result.exit_code == 0, result.output[-2000:]
