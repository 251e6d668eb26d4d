"""What a player's name may look like, beyond being printable text (``werewolf.printable``).

A name is shown beside a seat on every phone ("Seat 3 · Chen"), so it must not pass for something else:

- it must show something: a name of invisible characters only (the Hangul fillers U+3164, U+FFA0, the
  Braille blank U+2800, combining marks alone) looks blank, and an invisible character inside a name
  (any Default_Ignorable_Code_Point but the joiners of emoji and scripts) makes a twin of another;
- it must not pass for the app's own labels: a seat label in any language of the catalogues ("Seat 3",
  「3號」) or the separator of "Seat 3 · Chen", however it is spelt (by look-alikes too);
- two names of a room must not look alike: they are compared by their confusable skeleton (Unicode
  TR39's skeleton, each character replaced by its prototype in Unicode's confusables.txt, as the
  ``confusable_homoglyphs`` package ships it: "Аnn" with a Cyrillic А is "Ann", "Tom" is "Torn"),
  case- and width-insensitively. It needs no C library (ICU's spoof checker would), so that
  ``pip install '.[web]'`` works on a machine with nothing but Python.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib import resources

from werewolf.printable import TAGS, VARIATIONS, ZWJ, ZWNJ

BLANKS = frozenset("\u2800")  # drawn as nothing, yet not Default_Ignorable (a Braille cell with no dot)
KEPT = frozenset((ZWJ, ZWNJ, *VARIATIONS))  # ignorable, but placed by the printable check where they join


# Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt, unchanged since Unicode 6.1; Python's
# unicodedata does not expose the property): drawn as nothing wherever it stands.
_IGNORABLE_RANGES = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))


def _ignorable(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _IGNORABLE_RANGES)


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each character of Unicode's confusables.txt -> its prototype (what TR39's skeleton maps it to).

    The ``confusable_homoglyphs`` package ships the file as a two-way table: a source character lists its
    one prototype, a prototype lists all its sources. A pair that lists only each other is one source and
    its prototype, either way round: the lower of the two stands for both."""
    table: dict[str, list[dict[str, str]]] = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for ch, alikes in table.items():
        if len(ch) != 1 or len(alikes) != 1:
            continue  # a prototype (it has several sources) or a sequence: mapped to itself
        other = alikes[0]["c"]
        back = table.get(other, [])
        if len(back) == 1 and back[0]["c"] == ch and len(other) == 1:
            out[ch] = min(ch, other)
        else:
            out[ch] = other
    return {k: v.replace("\u200e", "").replace("\u200f", "") for k, v in out.items()}


def skeleton(text: str) -> str:
    """The confusable skeleton of ``text`` (TR39: decomposed, each character its prototype, decomposed
    again), ignorable characters left out first."""
    table = _prototypes()
    text = unicodedata.normalize("NFD", "".join(ch for ch in text if not _ignorable(ch)))
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in text))


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
