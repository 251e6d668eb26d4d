"""The speech parser's accuracy on its test table (tests/data/parse_table.tsv), per language and in all.

    python scripts/parse_accuracy.py [--misses]

A sentence counts as read right when the parser's statements are exactly the table's (as a set).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from werewolf.agents.parse import parse

TABLE = Path(__file__).resolve().parents[1] / "tests" / "data" / "parse_table.tsv"
SPEAKER = 2


def meaning(text: str) -> frozenset[str]:
    """The table's notation (``claim seer ; check 5 wolf``) as a set of statements."""
    parts = [p.strip() for p in text.split(";")]
    return frozenset(p for p in parts if p and p != "-")


def read(text: str) -> frozenset[str]:
    """What the parser reads from ``text`` said by seat 2, in the table's notation."""
    out = set()
    for a in parse(text, SPEAKER):
        words = [a.kind]
        if a.target is not None:
            words.append(str(a.target))
        if a.role is not None:
            words.append(a.role)
        if a.result is not None:
            words.append(a.result)
        out.add(" ".join(words))
    return frozenset(out)


def rows(path: Path = TABLE) -> list[tuple[str, str, frozenset[str]]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        lang, text, want = line.split("\t")
        out.append((lang, text, meaning(want)))
    return out


def score(path: Path = TABLE) -> tuple[Counter[str], Counter[str], list[tuple[str, str, frozenset[str],
                                                                                   frozenset[str]]]]:
    """(sentences per language, read right per language, the misses)."""
    total: Counter[str] = Counter()
    right: Counter[str] = Counter()
    misses = []
    for lang, text, want in rows(path):
        got = read(text)
        total[lang] += 1
        if got == want:
            right[lang] += 1
        else:
            misses.append((lang, text, want, got))
    return total, right, misses


def main() -> None:
    total, right, misses = score()
    for lang in total:
        print(f"{lang:8} {right[lang]:4}/{total[lang]:<4} {right[lang] / total[lang]:.1%}")
    n, k = sum(total.values()), sum(right.values())
    print(f"{'all':8} {k:4}/{n:<4} {k / n:.1%}")
    if "--misses" in sys.argv:
        for lang, text, want, got in misses:
            print(f"  {lang} {text!r}: want {sorted(want)}, got {sorted(got)}")


if __name__ == "__main__":
    main()
