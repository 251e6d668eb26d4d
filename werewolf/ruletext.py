"""The rule texts the program cites, shipped with it: the rules digest and the scripted-game contract.

The code, the option registry and the rule catalogue cite ``RULES.md`` (the project's digest of the rule
books) and ``SCRIPTED_GAMES.md`` (the scripted-game contract). Both ship in the package (``werewolf/docs``,
the same files as the repository's ``docs/rules.md`` and ``docs/scripted-games.md``), so that whoever
installed the program can read what it cites: ``werewolf rules``.
"""

from __future__ import annotations

import re
from importlib import resources

__all__ = ["TEXTS", "text", "path", "section", "section_keys"]

# topic -> (file in werewolf/docs, the name the code cites it by)
TEXTS = {"digest": ("rules.md", "RULES.md"), "scripted-games": ("scripted-games.md", "SCRIPTED_GAMES.md")}

_HEADING = re.compile(r"^(#{1,6}) +((\S+).*?)\s*$")
_AMBIGUITY = re.compile(r"^- \*\*(A-\d+)\b")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def path(topic: str) -> str:
    """Where the installed copy of a text is (a real file in a normal install)."""
    return str(resources.files("werewolf").joinpath("docs", TEXTS[topic][0]))


def text(topic: str) -> str:
    return resources.files("werewolf").joinpath("docs", TEXTS[topic][0]).read_text(encoding="utf-8")


def _marks(doc: str) -> list[tuple[int, str, int, str]]:
    """(line index, key, level, title) of every part a reader can ask for: a heading, by its number ("1.6",
    "3.2.4"; "0" for "## 0. …") or its title ("Acts"), and an ambiguity of the list ("A-57", level 7: it ends
    at the next one or the next heading).
    Lines inside code blocks are not headings (the digest's pseudo-code has ``# stage 1`` comments)."""
    marks, fenced = [], False
    for i, line in enumerate(doc.splitlines()):
        if _FENCE.match(line):
            fenced = not fenced
        if fenced:
            continue
        if m := _HEADING.match(line):
            marks.append((i, m[3].rstrip("."), len(m[1]), m[2]))
        elif m := _AMBIGUITY.match(line):
            marks.append((i, m[1], 7, m[1]))
    return marks


def section_keys(doc: str) -> list[str]:
    """What ``section`` takes: the numbers of a numbered text, else the headings' titles."""
    marks = _marks(doc)
    numbered = [key for _, key, _, _ in marks if re.fullmatch(r"\d+(\.\d+)*|A-\d+", key)]
    return numbered or [title for _, _, level, title in marks if level > 1]


def section(doc: str, key: str) -> str | None:
    """The part of ``doc`` numbered ``key`` (``1.6``, ``§3.2.4``, ``A-57``) or headed ``key`` (``acts``, any
    case): its heading and everything up to the next heading of the same or a higher level; None if none."""
    key = key.strip().lstrip("§").rstrip(".")
    key = key.upper() if key[:2].lower() == "a-" else key
    lines = doc.splitlines()
    marks = _marks(doc)
    for n, (start, k, level, title) in enumerate(marks):
        if k == key or title.casefold() == key.casefold():
            end = next((i for i, _, lv, _ in marks[n + 1:] if lv <= level), len(lines))
            return "\n".join(lines[start:end]).rstrip() + "\n"
    return None
