"""The rule catalogue: every rule id the engine names, with its source and a one-line explanation.

``rules.json`` beside this module maps each rule id (the ``rule`` field of an event) to the
rule book and section it comes from, the book's sentence (Chinese, as in /shared/seeds, cleaned of
the source's stray pinyin), and a one-line explanation in each of ``LANGS``. Where the books are
silent the source is the project's digest (RULES.md) and ``proposal`` says which option or
proposal decided it. English is required; the tests check that every language has every rule.

A rule id is only as secret as the event that carries it: the engine puts on a public event
only an id the whole table may know (``peaceful_night``, never ``guard_protects``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

from werewolf.i18n import DEFAULT_LANG, normalize_lang

__all__ = ["rule_catalogue", "book_catalogue", "known", "explain", "rulings"]


@cache
def _data() -> Mapping[str, Any]:
    text = resources.files("werewolf.i18n").joinpath("rules.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("rules"), dict) or not isinstance(data.get("books"), dict):
        raise ValueError("rules.json must hold 'books' and 'rules' objects")
    return data


def rule_catalogue() -> Mapping[str, Mapping[str, Any]]:
    """Every rule id and its entry (``book``, ``section``, ``quote``, ``proposal``?, ``text`` per language)."""
    rules: Mapping[str, Mapping[str, Any]] = _data()["rules"]
    return rules


def book_catalogue() -> Mapping[str, Mapping[str, Any]]:
    """The sources a rule may cite: the five rule books by number, and the digest (``RULES.md``)."""
    books: Mapping[str, Mapping[str, Any]] = _data()["books"]
    return books


def known(rule: str) -> bool:
    return rule in rule_catalogue()


def explain(rule: str, lang: str = DEFAULT_LANG) -> dict[str, Any]:
    """One rule for a reader of ``lang``: its id, the explanation, the source and the book's sentence.

    An id the catalogue lacks is explained as unknown (the id itself), never an error: a log
    from another version of the engine still reads.
    """
    lang = normalize_lang(lang)
    entry = rule_catalogue().get(rule)
    if entry is None:
        return {"rule": rule, "text": rule, "book": None, "book_title": None, "section": None, "quote": None,
                "proposal": None, "known": False}
    texts = entry["text"]
    book = str(entry["book"])
    titles = book_catalogue().get(book, {}).get("title", {})
    return {
        "rule": rule,
        "text": texts.get(lang) or texts[DEFAULT_LANG],
        "book": book,
        "book_title": titles.get(lang) or titles.get(DEFAULT_LANG) or book,
        "section": entry.get("section"),
        "quote": entry.get("quote"),
        "proposal": entry.get("proposal"),
        "known": True,
    }


def short(rule: str, lang: str = DEFAULT_LANG) -> str:
    """The explanation alone, without its closing full stop (to sit inside a sentence)."""
    return str(explain(rule, lang)["text"]).rstrip(".。")


def rulings(events: Iterable[Mapping[str, Any]]) -> list[tuple[int, Mapping[str, Any]]]:
    """The events of a log (JSON form) that name a rule, with their index in the log."""
    return [(i, e) for i, e in enumerate(events) if isinstance(e.get("rule"), str) and e.get("rule")]
