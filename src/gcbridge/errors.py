"""The root of every gc-bridge exception.

Each domain has one tree under :class:`GcBridgeError`, and every error carries a
string ``reason`` code so that callers and tests branch on ``exc.reason``, never
on message text.
"""

from __future__ import annotations

__all__ = ["GcBridgeError"]


class GcBridgeError(Exception):
    """Base of all gc-bridge errors; ``reason`` is a stable machine-readable code."""

    reason: str = "error"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason

    def __repr__(self) -> str:
        return f"{type(self).__name__}(reason={self.reason!r}, message={str(self)!r})"
