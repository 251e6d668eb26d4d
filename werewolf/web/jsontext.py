"""Compact JSON text, the server's hottest output: every view pushed, every answer and pack state stored.

orjson when installed (the web extra installs it: several times faster than the standard library's
encoder), else the standard library; both give text the other reads back as the same value.
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # without the web extra: the standard library's json
    orjson = None  # type: ignore[assignment]


def dumps(value: Any) -> str:
    """``value`` as compact JSON text, UTF-8 as is."""
    if orjson is not None:
        try:
            return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
        except TypeError:  # an integer beyond 64 bits, a lone surrogate: the standard library takes what JSON can
            pass
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate past every check (werewolf.printable): escaped, it still goes out
        text = json.dumps(value, separators=(",", ":"))
    return text
