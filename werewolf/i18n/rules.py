"""The rule catalogue: every rule id the engine names, with its source and a one-line explanation.

``rules.json`` beside this module maps each rule id (the ``rule`` field of an event) to the
rule book and section it comes from, the book's sentence (Chinese, as in /shared/seeds, cleaned of
the source's stray pinyin), and a one-line explanation in each of ``LANGS``. Where the books are
silent the source is the project's digest (RULES.md) and ``proposal`` says which option or
proposal decided it. English is required; the tests check that every language has every rule.

A rule id is only as secret as the event that carries it: the engine puts on a public event
only an id the whole table may know (``peaceful_night``, never ``guard_protects``).

One rule reads differently at different tables: an entry may have ``variants``, each with an ``id``, a
``when`` (``ruleset``: the rulesets it is for; ``options``: per option, one value, a list of values, or
``{"not": [values]}``) and the fields it changes (``book``, ``section``, ``quote``, ``proposal``,
``text``). ``explain`` is given the game's
ruleset and options (``werewolf.rulesets.options.in_force``; a log's ``game_start`` records them) and shows
the first variant that fits, else the entry itself. A text may name an option in braces
(``{sheriff_vote_weight}``): it reads the value in force. ``proposal`` is one sentence per language.
An id the catalogue renamed stays readable through ``aliases``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

from werewolf.i18n.langs import DEFAULT_LANG, normalize_lang

__all__ = ["rule_catalogue", "book_catalogue", "aliases", "known", "variant", "explain", "rulings"]


@cache
def _data() -> Mapping[str, Any]:
    text = resources.files("werewolf.i18n").joinpath("rules.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("rules"), dict) or not isinstance(data.get("books"), dict):
        raise ValueError("rules.json must hold 'books' and 'rules' objects")
    return data


def aliases() -> Mapping[str, str]:
    """Former rule ids (a stored game or a script may cite them) and the ids they are now."""
    out: Mapping[str, str] = _data().get("aliases", {})
    return out


def rule_catalogue() -> Mapping[str, Mapping[str, Any]]:
    """Every rule id and its entry (``book``, ``section``, ``quote``, ``proposal``?, ``text`` per language)."""
    rules: Mapping[str, Mapping[str, Any]] = _data()["rules"]
    return rules


def book_catalogue() -> Mapping[str, Mapping[str, Any]]:
    """The sources a rule may cite: the five rule books by number, and the digest (``RULES.md``)."""
    books: Mapping[str, Mapping[str, Any]] = _data()["books"]
    return books


def known(rule: str) -> bool:
    return rule in rule_catalogue() or rule in aliases()


def _fits(when: Mapping[str, Any], ruleset: str | None, options: Mapping[str, Any] | None) -> bool:
    rulesets = when.get("ruleset")
    if rulesets is not None and ruleset not in rulesets:
        return False
    for name, wanted in (when.get("options") or {}).items():
        if options is None or name not in options:
            return False
        have = options[name]
        if isinstance(have, (set, frozenset)):
            have = sorted(have)
        if isinstance(wanted, Mapping):  # {"not": [values]}: any value but these
            if any(have == w for w in wanted.get("not", ())):
                return False
            continue
        choices = wanted if isinstance(wanted, list) and not isinstance(have, list) else [wanted]
        if not any(have == w for w in choices):
            return False
    return True


def variant(rule: str, ruleset: str | None = None, options: Mapping[str, Any] | None = None
            ) -> tuple[str | None, Mapping[str, Any]]:
    """The id of the variant of ``rule`` that fits the table (None: the entry itself) and its fields."""
    entry = rule_catalogue()[aliases().get(rule, rule)]
    for v in entry.get("variants", ()):
        if _fits(v["when"], ruleset, options):
            return str(v["id"]), {**entry, **{k: x for k, x in v.items() if k not in ("when", "id")}}
    return None, entry


def _in_lang(value: Any, lang: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(lang) or value.get(DEFAULT_LANG)
    return value


def _fill(text: str, options: Mapping[str, Any] | None) -> str:
    """``{option}`` in a text: the value in force (a whole number without its ".0")."""
    if "{" not in text or options is None:
        return text

    def value(name: str) -> str:
        v = options[name]
        return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)
    try:
        return text.format_map({k: value(k) for k in options})
    except (KeyError, ValueError, IndexError):
        return text


def explain(rule: str, lang: str = DEFAULT_LANG, ruleset: str | None = None,
            options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One rule for a reader of ``lang``: its id, the explanation, the source and the book's sentence,
    as they read at a table of ``ruleset`` playing ``options`` (every option in force, by name).

    An id the catalogue lacks is explained as unknown (the id itself), never an error: a log
    from another version of the engine still reads.
    """
    lang = normalize_lang(lang)
    if not known(rule):
        return {"rule": rule, "text": rule, "book": None, "book_title": None, "section": None, "quote": None,
                "proposal": None, "variant": None, "known": False}
    chosen, entry = variant(rule, ruleset, options)
    texts = entry["text"]
    book = str(entry["book"])
    titles = book_catalogue().get(book, {}).get("title", {})
    return {
        "rule": rule,
        "text": _fill(texts.get(lang) or texts[DEFAULT_LANG], options),
        "book": book,
        "book_title": titles.get(lang) or titles.get(DEFAULT_LANG) or book,
        "section": entry.get("section"),
        "quote": entry.get("quote"),
        "proposal": _in_lang(entry.get("proposal"), lang),
        "variant": chosen,
        "known": True,
    }


def short(rule: str, lang: str = DEFAULT_LANG, ruleset: str | None = None,
          options: Mapping[str, Any] | None = None) -> str:
    """The explanation alone, without its closing full stop (to sit inside a sentence)."""
    return str(explain(rule, lang, ruleset, options)["text"]).rstrip(".。")


def rulings(events: Iterable[Mapping[str, Any]]) -> list[tuple[int, Mapping[str, Any]]]:
    """The events of a log (JSON form) that name a rule, with their index in the log."""
    return [(i, e) for i, e in enumerate(events) if isinstance(e.get("rule"), str) and e.get("rule")]
