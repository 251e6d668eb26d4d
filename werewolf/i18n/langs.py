"""The languages of the catalogues, and the spellings of them a caller may send."""

from __future__ import annotations

LANGS: tuple[str, ...] = ("en", "zh-Hant", "zh-Hans")
DEFAULT_LANG = "en"

# Common spellings of the three languages, for callers that get a locale.
ALIASES = {
    "en-us": "en", "en-gb": "en", "english": "en",
    "zh-tw": "zh-Hant", "zh-hk": "zh-Hant", "zh-mo": "zh-Hant", "zh-hant": "zh-Hant",
    "zh-cn": "zh-Hans", "zh-sg": "zh-Hans", "zh-hans": "zh-Hans", "zh": "zh-Hans",
}

__all__ = ["ALIASES", "DEFAULT_LANG", "LANGS", "normalize_lang"]


def normalize_lang(lang: str | None) -> str:
    """One of ``LANGS`` (unknown languages fall back to English)."""
    if not lang:
        return DEFAULT_LANG
    if lang in LANGS:
        return lang
    return ALIASES.get(lang.lower().replace("_", "-"), DEFAULT_LANG)
