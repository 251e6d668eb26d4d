"""The server's log holds no secret: every line uvicorn or the app writes is redacted.

Tokens reach the server in the ``Authorization`` header and, for WebSockets, in the
``Sec-WebSocket-Protocol`` header (the browser's way of sending a header with a
WebSocket): neither is logged. A client may still put one in a URL (``?token=``, the
old way, still accepted), and uvicorn logs every WebSocket handshake with its URL,
access log or not, so every record passes ``Redact`` on its way to a handler: a
``token=`` value, a ``Bearer`` credential and any run of 40 or more URL-safe characters
(a token is 43) become ``[redacted]``.
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

SECRET = re.compile(r"(?i)(token=|token\.|bearer\s+)[^\s&\"',;]+|[A-Za-z0-9_\-]{40,}")
REDACTED = "[redacted]"


def redact(text: str) -> str:
    return SECRET.sub(lambda m: (m.group(1) or "") + REDACTED, text)


def _clean(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class Redact(logging.Filter):
    """Removes secrets from a record's message, its arguments and its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "uvicorn.access" and isinstance(record.args, tuple):
            record.args = tuple(_clean(a) for a in record.args)  # its formatter reads the arguments
        else:  # arguments may be anything (a request's whole scope): the message as it will be written
            record.msg = redact(record.getMessage())
            record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


def log_config(level: str = "info") -> dict[str, Any]:
    """uvicorn's logging configuration with ``Redact`` on every handler, and the app's and every
    other library's records sent through the same handlers (so nothing bypasses the filter)."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact"] = {"()": "werewolf.web.logs.Redact"}
    for handler in config["handlers"].values():
        handler["filters"] = [*handler.get("filters", []), "redact"]
    config["loggers"]["werewolf"] = {"handlers": ["default"], "level": level.upper(), "propagate": False}
    config["root"] = {"handlers": ["default"], "level": "WARNING"}
    return config
