"""What a player's name may look like, beyond being printable text (``werewolf.printable``).

A name is shown beside a seat on every phone ("Seat 3 · Chen"), so it must not pass for something else:

- it must show something: a name of invisible characters only (the Hangul fillers U+3164, U+FFA0, the
  Braille blank U+2800, combining marks alone) looks blank, and an invisible character inside a name
  (any Default_Ignorable_Code_Point but the joiners of emoji and scripts) makes a twin of another;
- it must not pass for the app's own labels: a seat label in any language of the catalogues ("Seat 3",
  「3號」) or the separator of "Seat 3 · Chen", however it is spelt (by look-alikes too);
- two names of a room must not look alike: they are compared by their confusable skeleton (Unicode
  TR39, from ICU's data: "Аnn" with a Cyrillic А is "Ann"), case- and width-insensitively.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import icu

from werewolf.printable import TAGS, VARIATIONS, ZWJ, ZWNJ

BLANKS = frozenset("\u2800")  # drawn as nothing, yet not Default_Ignorable (a Braille cell with no dot)
KEPT = frozenset((ZWJ, ZWNJ, *VARIATIONS))  # ignorable, but placed by the printable check where they join


def _ignorable(ch: str) -> bool:
    return bool(icu.Char.hasBinaryProperty(ch, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT))


@functools.cache
def _checker() -> icu.SpoofChecker:
    return icu.SpoofChecker()


def skeleton(text: str) -> str:
    """The confusable skeleton of ``text`` (TR39), ignorable characters left out first."""
    text = "".join(ch for ch in text if not _ignorable(ch))
    return str(_checker().getSkeleton(0, text))


def name_key(name: str) -> str:
    """What two names of one room must not share: the skeleton, case- and width-insensitively."""
    return skeleton(skeleton(unicodedata.normalize("NFKC", name)).casefold())


@functools.cache
def _labels() -> re.Pattern[str]:
    """The app's own words that a name must not hold, as name keys: each language's seat label and the
    separator between a seat and its name."""
    from werewolf.i18n import LANGS, t

    parts = [re.escape(name_key("·"))]
    # A digit as a key may be its look-alike letter ("1" is "l"): "Seat l0" is "Seat 10" to the eye.
    digit = "(?:" + "|".join(sorted({re.escape(name_key(d)) for d in "0123456789"} | {r"\d"})) + ")"
    for lang in LANGS:
        before, _, after = t("fmt.seat", lang, n="{n}").partition("{n}") if "{n}" in t(
            "fmt.seat", lang, n="{n}") else ("", "", "")
        if not before and not after:
            continue
        parts.append(re.escape(name_key(before.strip())) + r"\s*" + digit + r"+\s*"
                     + re.escape(name_key(after.strip())))
    return re.compile("|".join(f"(?:{p})" for p in parts if p))


def check_name(name: str) -> str:
    """``name`` (already printable and folded) if it shows something of its own, else ``ValueError``."""
    for ch in name:
        if ch in BLANKS or (_ignorable(ch) and ch not in KEPT and ord(ch) not in TAGS):
            raise ValueError(f"a name may not hold invisible characters, such as U+{ord(ch):04X} "
                             f"({unicodedata.name(ch, 'an invisible character').lower()})")
    if not any(unicodedata.category(ch)[0] in "LNPS" and ch not in BLANKS and not _ignorable(ch) for ch in name):
        raise ValueError("a name must show at least one letter, digit or symbol")
    if _labels().search(name_key(name)):
        raise ValueError("a name may not look like a seat label (\"Seat 3\") or hold its separator \"·\": "
                         "the phones show each name beside its seat")
    return name
