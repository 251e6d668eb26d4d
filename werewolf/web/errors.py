"""The errors the web layer answers with: an HTTP status and a message naming what was wrong.

At the bottom of the web layer (``docs/architecture.md``): every layer may raise them, the routes
answer them as ``{"error": message}``.
"""

from __future__ import annotations


class ApiError(Exception):
    """An error answered to the client as ``{"error": message}`` with an HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Behind(ApiError):
    """A change refused because another server of the cluster wrote first (the room has caught up since)."""
