"""The one check every text a person sends passes before it is stored, and its safe twin for stored text.

``printable`` is the check: names, speeches, pack chat, any string of a move or a room's options
(``werewolf.web.requests``). A text is NFC-normalised, every run of white space (newlines and tabs
too) is folded into one space, and it is trimmed; then it is refused (``ValueError``, answered 422)
if it holds a character that is not printable: Unicode's C* categories (controls such as NUL and
the ESC of ANSI escapes, format characters such as the bidi overrides U+202A..U+202E and the
isolates U+2066..U+2069, lone surrogates, private-use and unassigned code points) and the line and
paragraph separators. Two format characters are kept where they join: the zero-width joiner inside
an emoji sequence (a family 👨‍👩‍👧, a rainbow flag 🏳️‍🌈) or between letters (Indic conjuncts), the
zero-width non-joiner between letters (Persian), and the tag characters of a subdivision flag 🏴󠁧󠁢󠁳󠁣󠁴󠁿.

``scrub`` is for text that never passed the check: rows stored by an older version, and what a
language model says. It never refuses: it folds white space, drops what is not printable and puts
U+FFFD for a lone surrogate, so that a view can always be encoded and shown.
"""

from __future__ import annotations

import unicodedata
from typing import Any

ZWJ, ZWNJ = "\u200d", "\u200c"
BLACK_FLAG = "\U0001f3f4"  # a subdivision flag: U+1F3F4, tag letters, U+E007F (cancel tag)
TAGS = range(0xE0020, 0xE0080)
VARIATIONS = "\ufe0e\ufe0f"  # text and emoji presentation selectors (category Mn: printable)
REPLACEMENT = "\ufffd"


def _emoji(ch: str) -> bool:
    # Pictographs are "other symbols" (So), skin tones "modifier symbols" (Sk); Python's unicodedata has no
    # Extended_Pictographic, and a ZWJ between two such symbols is what every emoji ZWJ sequence is.
    return unicodedata.category(ch) in ("So", "Sk")


def _letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] in ("L", "M")


def _joins(text: str, i: int) -> bool:
    """Whether the format character at ``i`` is one of the few that belong where they stand."""
    ch = text[i]
    if ord(ch) in TAGS or ch == "\U000e007f":
        j = i
        while j > 0 and (ord(text[j - 1]) in TAGS):
            j -= 1
        return j > 0 and text[j - 1] == BLACK_FLAG and (ch != "\U000e007f" or j < i)
    if ch not in (ZWJ, ZWNJ) or i == 0 or i == len(text) - 1:
        return False
    k = i - 1
    while k > 0 and text[k] in VARIATIONS:
        k -= 1
    before = text[k]
    after = text[i + 1]
    if ch == ZWJ and _emoji(before) and _emoji(after):
        return True
    return _letter(before) and unicodedata.category(after)[0] == "L"


def refused(text: str) -> tuple[int, str] | None:
    """The first character of ``text`` (already folded) that is not printable where it stands, if any."""
    for i, ch in enumerate(text):
        cat = unicodedata.category(ch)
        if (cat[0] == "C" or cat in ("Zl", "Zp")) and not (cat == "Cf" and _joins(text, i)):
            return i, ch
    return None


def fold(text: str) -> str:
    """NFC, every run of white space (newlines too) one space, trimmed."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def printable(text: str, what: str, limit: int, *, empty: bool = False) -> str:
    """``text`` as shown (a name, a speech, a chat line): folded (``fold``), at most ``limit`` characters,
    printable ones only; ``empty``: an empty text is allowed (a speech without words)."""
    text = fold(text)
    if not text and not empty:
        raise ValueError(f"a {what} must not be empty")
    if len(text) > limit:
        raise ValueError(f"a {what} must be at most {limit} characters")
    bad = refused(text)
    if bad is not None:
        ch = bad[1]
        raise ValueError(f"a {what} may hold only printable characters, not U+{ord(ch):04X} "
                         f"({unicodedata.name(ch, 'a control, format or surrogate character').lower()})")
    return text


def scrub(text: str) -> str:
    """A text that may never have passed ``printable``, made safe to store and show: lone surrogates become
    U+FFFD, what is not printable is dropped, white space folded; never empty if ``text`` was not."""
    original = text
    text = "".join(REPLACEMENT if "\ud800" <= ch <= "\udfff" else ch for ch in text)
    text = fold(text)
    while (bad := refused(text)) is not None:
        text = fold(text[:bad[0]] + text[bad[0] + 1:])
    return text if text or not original.strip() else REPLACEMENT


def scrub_json(value: Any) -> Any:
    """``scrub`` for every string in a JSON value (a stored answer, a stored chat line)."""
    if isinstance(value, str):
        return scrub(value) if value else value
    if isinstance(value, list):
        return [scrub_json(v) for v in value]
    if isinstance(value, dict):
        return {k: scrub_json(v) for k, v in value.items()}
    return value
