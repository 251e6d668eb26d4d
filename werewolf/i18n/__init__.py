"""Message catalogues: every string a player reads, in every language.

One JSON file per language beside this module (``en.json``, ``zh-Hant.json``,
``zh-Hans.json``): flat keys (``role.seer``, ``event.exile.you``...) mapped to
``str.format`` templates. English is the reference catalogue: a key missing
from another language falls back to English; a key missing from English is a
bug and raises ``KeyError`` (the tests check that every language has every key,
with the same placeholders).

``narrate`` turns one log event (SCRIPTED_GAMES.md) into a sentence written for
the player who sees it: "You are exiled." for the exiled seat, "Seat 4 is
exiled." for everyone else. It renders whatever it is given; deciding which
events a seat may see is the caller's business (``werewolf.core.views``).
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

from werewolf.i18n import rules
from werewolf.i18n.langs import ALIASES as ALIASES
from werewolf.i18n.langs import DEFAULT_LANG, LANGS, normalize_lang

__all__ = ["LANGS", "DEFAULT_LANG", "catalogue", "has", "t", "template", "role_name", "role_description", "team_name",
           "faction_name", "phase_name", "placeholders", "narrate", "normalize_lang"]


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate message key {k!r}")
        out[k] = v
    return out


@cache
def catalogue(lang: str) -> Mapping[str, str]:
    """The messages of ``lang`` (one of ``LANGS``), as loaded from its JSON file."""
    if lang not in LANGS:
        raise KeyError(f"no catalogue for language {lang!r} (known: {', '.join(LANGS)})")
    text = resources.files(__name__).joinpath(f"{lang}.json").read_text(encoding="utf-8")
    data = json.loads(text, object_pairs_hook=_no_duplicates)
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ValueError(f"{lang}.json must map keys to strings")
    return data


def has(key: str, lang: str = DEFAULT_LANG) -> bool:
    """Whether ``key`` has a message (in ``lang`` or, failing that, in English)."""
    return key in catalogue(normalize_lang(lang)) or key in catalogue(DEFAULT_LANG)


def t(key: str, lang: str = DEFAULT_LANG, /, **fields: Any) -> str:
    """The message ``key`` in ``lang``, formatted with ``fields``.

    Falls back to English when ``lang`` lacks the key; raises ``KeyError`` for a
    key no catalogue has, or for a placeholder ``fields`` does not fill.
    """
    return template(key, lang).format(**fields)


def template(key: str, lang: str = DEFAULT_LANG) -> str:
    """The unformatted message ``key`` in ``lang`` (English if ``lang`` lacks it)."""
    text = catalogue(normalize_lang(lang)).get(key)
    if text is None:
        text = catalogue(DEFAULT_LANG).get(key)
        if text is None:
            raise KeyError(f"unknown message key {key!r}")
    return text


def placeholders(template: str) -> set[str]:
    """The field names a template uses (``"{seat} is {role}"`` → ``{"seat", "role"}``)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def role_name(role_id: str, lang: str = DEFAULT_LANG) -> str:
    return t(f"role.{role_id}", lang)


def role_description(role_id: str, lang: str = DEFAULT_LANG, ruleset: str | None = None) -> str:
    """What the role does, in one line (the ruleset's own line where its rules differ)."""
    if ruleset is not None and has(f"role_desc.{role_id}.{ruleset}", lang):
        return t(f"role_desc.{role_id}.{ruleset}", lang)
    return t(f"role_desc.{role_id}", lang)


def team_name(team: str, lang: str = DEFAULT_LANG) -> str:
    return t(f"team.{team}", lang)


def faction_name(faction: str, lang: str = DEFAULT_LANG) -> str:
    return t(f"faction.{faction}", lang)


_PHASE = re.compile(r"(night|day)(\d+)$")


def phase_name(phase: str, lang: str = DEFAULT_LANG) -> str:
    """``night2`` → "Night 2" / "第2夜"; other phases by name (``setup``)."""
    m = _PHASE.match(phase)
    if m:
        return t(f"phase.{m[1]}", lang, number=int(m[2]))
    return t(f"phase.{phase}", lang) if has(f"phase.{phase}", lang) else phase


# Events whose ``seats`` speak to each of those seats in the second person.
SEATS_ARE_YOU = frozenset({"announce", "lovers", "enchanted", "wolves", "masons", "siblings"})


def _slug(text: Any) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


def _num(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


class _Narrator:
    """Renders events for one viewer in one language."""

    def __init__(self, lang: str, viewer: int | None, strict: bool, ruleset: str | None = None,
                 options: Mapping[str, Any] | None = None) -> None:
        self.lang = normalize_lang(lang)
        self.viewer = viewer
        self.strict = strict
        self.ruleset = ruleset  # the table's rules, for a rule's explanation that fits them
        self.options = options

    # -- names and seats ----------------------------------------------------------
    def t(self, key: str, **fields: Any) -> str:
        return t(key, self.lang, **fields)

    def name(self, prefix: str, value: Any) -> str:
        key = f"{prefix}.{value}"
        if has(key, self.lang):
            return self.t(key)
        if self.strict:
            raise KeyError(f"unknown message key {key!r}")
        return str(value)

    def seat(self, n: Any) -> str:
        return self.t("fmt.none") if n is None else self.t("fmt.seat", n=n)

    def seats(self, ns: Iterable[Any] | None) -> str:
        ns = list(ns or [])
        if not ns:
            return self.t("fmt.none")
        if len(ns) == 1:
            return self.seat(ns[0])
        return self.t("fmt.seats", list=self.t("fmt.list_sep").join(map(str, ns)))

    def pair(self, ns: Any) -> str:
        if not ns:
            return self.t("fmt.none")
        a, b = ns
        return self.t("fmt.pair", a=self.seat(a), b=self.seat(b))

    def join(self, parts: Iterable[str]) -> str:
        return self.t("fmt.list_sep").join(parts)

    def roles(self, by_seat: Mapping[str, Any]) -> str:
        return self.join(self.t("fmt.seat_role", seat=self.seat(int(s)), role=self.name("role", r))
                         for s, r in sorted(by_seat.items(), key=lambda kv: int(kv[0])))

    # -- one event ------------------------------------------------------------------
    def narrate(self, event: Mapping[str, Any]) -> str | None:
        etype = str(event.get("type"))
        data = {k: v for k, v in event.items() if k not in ("type", "phase", "to")}
        try:
            key = self.key(etype, data)
            if key is None:
                return None
            text = template(key, self.lang)
            fields = {name: self.field(name, etype, data) for name in placeholders(text)}
            return text.format(**fields)
        except (KeyError, ValueError, TypeError, IndexError, AttributeError):
            if self.strict:
                raise
            return self.unknown(etype, data)

    def unknown(self, etype: str, data: Mapping[str, Any]) -> str:
        fields = ", ".join(f"{k}={v}" for k, v in data.items())
        return self.t("event.unknown", type=etype, fields=fields)

    def key(self, etype: str, data: Mapping[str, Any]) -> str | None:
        """The message key of an event: its variant, then the viewer's point of view."""
        if etype == "step":
            role, code = data.get("role"), data.get("step")
            if data.get("copied"):
                return "step.copied"  # a doppelganger's later step (one-night rulesets)
            for key in (f"step.{role}.{code}", f"step.{role}"):
                if has(key, self.lang):
                    return key
            return "step.open"
        base = f"event.{etype}"
        suffix = self.variant(etype, data)
        if suffix is None:
            return None
        key = base + suffix
        if not has(key, self.lang):
            if self.strict or not has(base, self.lang):
                raise KeyError(f"unknown message key {key!r}")
            key = base
        viewer = self.viewer
        raw = data.get("seats")
        seats: list[Any] = raw if isinstance(raw, list) else []
        at_you = viewer is not None and data.get("target") == viewer
        you = viewer is not None and (data.get("seat") == viewer or (etype in SEATS_ARE_YOU and viewer in seats))
        if at_you and has(key + ".at_you", self.lang):
            return key + ".at_you"
        if you and has(key + ".you", self.lang):
            return key + ".you"
        return key

    def variant(self, etype: str, data: Mapping[str, Any]) -> str | None:
        """The suffix of an event's message key; None: not worth showing to this viewer."""
        get = data.get
        if etype == "speech":
            if get("passed"):
                return ".passed"  # a turn passed: said to everyone (it is no speech)
            if get("text"):
                return ".said"  # live play: what was said
            if self.viewer is not None and get("seat") != self.viewer:
                return None  # the speaking order already says who speaks when
            return f".{get('part')}"
        if etype == "last_words_text":
            return ".passed" if get("passed") else ""
        if etype == "silent_turn":
            return f".{get('part')}"
        if etype == "discussion":
            return "" if get("seconds") is not None else ".unlimited"
        if etype in ("announce", "candidates"):
            return "" if get("seats") else ".none"
        if etype == "bear":
            return ".roar" if get("roared") else ".silent"
        if etype == "can_shoot":
            return ".yes" if get("value") else ".no"
        if etype == "check":
            if "result" in data:
                return f".{get('result')}"
            return ".role" if "role" in data else ".cards"
        if etype == "duel":
            return f".{get('result')}"
        if etype == "exile":
            return ".none" if get("seat") is None else ""
        if etype == "witch_used":
            save, poison = get("save") is not None, get("poison") is not None
            return ".both" if save and poison else ".save" if save else ".poison" if poison else ".nothing"
        if etype in ("pack_choice", "victim"):
            return ".none" if get("target") is None else ""
        if etype == "game_over":
            return "" if get("teams") else ".draw"
        if etype == "game_start":
            return ".custom" if get("custom_deck") else ""
        if etype == "lovers_linked":
            return ".mixed" if get("mixed") else ""
        if etype == "pack":
            return ".special" if get("special") else ""
        if etype in ("sheriff", "no_last_words"):
            return f".{_slug(get('reason'))}"
        if etype == "votes":
            return ".ballots" if "ballots" in data else ""
        if etype == "took":
            return "" if "card" in data else ".servant"
        if etype == "enchanted":
            return ".newly" if "seats" in data else ""
        if etype == "ban":
            return "" if get("targets") else ".none"
        if etype == "sniff":
            return ".wolf" if get("result") else ".none"
        if etype in ("wolves", "masons"):
            return ".alone" if len(get("seats") or ()) == 1 else ""
        if etype == "thumbs":
            return "" if get("wolves") else ".none"
        if etype == "silenced":
            return "" if "target" in data else ".today"
        if etype == "exchange":
            return ".center" if "card" in data else ""
        return ""

    def field(self, name: str, etype: str, data: Mapping[str, Any]) -> str:
        """The text of one placeholder of an event's message."""
        if name == "other":
            return self.seats([s for s in data["seats"] if s != self.viewer])
        if name in ("role", "copied"):
            return self.name("role", data[name])
        if name == "round":
            return self.name("round", data.get("round", "vote"))  # one-night votes have one round
        v = data[name]
        if name in ("seat", "target", "save", "poison", "by"):
            return self.seat(v)
        if isinstance(v, dict) and name == "seats":  # seat -> role (the one-night deal and dawn)
            return self.roles(v)
        if name in ("targets", "lovers") and isinstance(v, list) and len(v) == 2:
            return self.pair(v)
        if name in ("seats", "victims", "special", "targets", "wolves", "A", "B"):
            return self.seats(v)
        if name == "now":
            return self.join(self.name("role", r) for r in v)
        if name == "center" and isinstance(v, list):
            return self.join(self.t("fmt.card_role", n=i + 1, role=self.name("role", r)) for i, r in enumerate(v))
        if name == "faction":
            return self.name("team", v) if has(f"team.{v}", self.lang) else self.name("faction", v)
        if name in ("clan", "side"):
            return self.name(f"value.{name}", v)
        if name == "cause":
            return self.name("cause", v)
        if name == "result":
            return self.name("result", v)
        if name == "part":
            return self.name("part", v)
        if name == "round":
            return self.name("round", v)
        if name == "direction":
            return self.name("value.direction", v)
        if name == "ruleset":
            return self.name("ruleset", v)
        if name == "rule":
            if has(f"rule.{v}", self.lang):
                return self.name("rule", v)
            if rules.known(str(v)):
                return rules.short(str(v), self.lang, self.ruleset, self.options)
            return self.name("rule", v)
        if name == "teams":
            return self.join(self.name("team", x) for x in v)
        if name == "card":
            return self.t("fmt.card", n=v)
        if name == "cards":
            if etype == "check":  # centre cards looked at: numbers, with the roles seen
                return self.join(self.t("fmt.card_role", n=n, role=self.name("role", r))
                                 for n, r in zip(v, data["roles"]))
            return self.join(self.t("fmt.card_role", n=i + 1, role=self.name("role", r)) for i, r in enumerate(v))
        if name == "roles":
            if isinstance(v, list):  # role ids (the steps skipped), each named once
                return self.join(dict.fromkeys(self.name("role", r) for r in v))
            return self.roles(v)
        if name == "tally":
            if not v:
                return self.t("fmt.no_votes")
            return self.join(self.t("fmt.tally", seat=self.seat(int(s)), votes=_num(n)) for s, n in v.items())
        if name == "ballots":
            if not v:
                return self.t("fmt.no_votes")
            return self.join(self.t("fmt.ballot", voter=self.seat(int(s)), target=self.seat(b))
                             for s, b in sorted(v.items(), key=lambda kv: int(kv[0])))
        return _num(v)


def narrate(event: Mapping[str, Any], lang: str = DEFAULT_LANG, seat: int | None = None, *,
            strict: bool = False, ruleset: str | None = None, options: Mapping[str, Any] | None = None
            ) -> str | None:
    """One event (its JSON form: ``type``, ``phase``, fields) as a sentence for ``seat``.

    ``seat`` is the player reading (``None``: a spectator or the moderator):
    events about that seat are told in the second person. Returns ``None`` for
    events not worth showing to that player (another player's speaking turn). ``ruleset`` and ``options``
    (every option in force): the table's rules, so that a rule named in the sentence reads as at that table.
    Unknown event types and values are shown in a plain generic form, or raise
    ``KeyError`` when ``strict`` (the tests use strict).
    """
    if hasattr(event, "as_json"):
        event = event.as_json()
    return _Narrator(lang, seat, strict, ruleset, options).narrate(event)
