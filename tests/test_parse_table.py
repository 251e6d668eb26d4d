"""The speech parser on its table of sentences (tests/data/parse_table.tsv): what players type in three
languages, with their meanings (issue 27, item 11). Prints the accuracy; asserts a floor, and that no
sentence is read as an accusation it does not make (negation above all)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def scorer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("parse_accuracy", ROOT / "scripts" / "parse_accuracy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_is_large_and_in_three_languages() -> None:
    rows = scorer().rows()
    langs = {lang for lang, _, _ in rows}
    assert len(rows) >= 200 and langs == {"en", "zh-Hant", "zh-Hans"}
    assert all(sum(1 for lang, _, _ in rows if lang == x) >= 60 for x in langs)
    negated = [t for _, t, _ in rows if any(w in t.lower() for w in ("not", "n't", "不", "別", "别"))]
    assert len(negated) >= 50


def test_accuracy_floor_and_no_false_accusation() -> None:
    sc = scorer()
    total, right, misses = sc.score()
    n, k = sum(total.values()), sum(right.values())
    for lang in total:
        print(f"parser accuracy {lang}: {right[lang]}/{total[lang]} = {right[lang] / total[lang]:.1%}")
    print(f"parser accuracy, all: {k}/{n} = {k / n:.1%}")
    assert k / n >= 0.97 and all(right[x] / total[x] >= 0.95 for x in total)
    for lang, text, want, got in misses:
        false = {a for a in got - want if a.startswith("accuse")}
        assert not false, (lang, text, sorted(got))


def test_negation_never_accuses() -> None:
    sc = scorer()
    for text in ("I don't think 4 is a wolf", "4 is not a wolf", "我不覺得4號是狼", "4号不是狼", "don't vote 4 out",
                 "別出4號", "I won't vote for 4", "not sure 4 is a wolf"):
        assert not any(a.startswith(("accuse", "vote")) for a in sc.read(text)), text
    assert sc.read("I'm voting for seat 4") == {"vote 4"}
    assert sc.read("I checked 10, he's good") == {"check 10 good"}
