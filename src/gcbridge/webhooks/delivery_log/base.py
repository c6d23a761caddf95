"""What every delivery log backend provides: a store of delivery ids and signatures.

A store keeps two kinds of entries, each alive until its ``expires_at`` (Unix
seconds), compared with ``now``:

- a **delivery id**, either ``claimed`` (a handler is running; ``expires_at`` is
  the end of its lease, after which another instance may take it over) or
  ``processed`` (``expires_at`` is the end of the retention);
- a **signature** accepted within the tolerance window (``expires_at`` is the end
  of the window of its signed timestamp).

``now`` is ``None`` when no clock was injected: the backend then uses its own
clock (the database server's for PostgreSQL and Redis, so that instances with
skewed clocks agree). Every operation is atomic on the backend, never a read
followed by a separate write.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from typing import Any, Literal

from gcbridge.webhooks.delivery_log.claims import Claim
from gcbridge.webhooks.errors import DeliveryLogConfigError

__all__ = [
    "DeliveryStore",
    "ClaimOutcome",
    "EntryState",
    "entry_state",
    "signature_expiry",
    "load_driver",
    "DEFAULT_TIMEOUT",
]

DEFAULT_TIMEOUT = 5.0
"""Seconds one call to a PostgreSQL or Redis log may wait (connecting too) before the log
counts as unavailable; PostgreSQL's server-side bounds are this, the client allows 1 more."""

ClaimOutcome = Literal["new", "duplicate", "in_flight", "replayed"]
"""``new``: the caller holds the claim; ``duplicate``: processed already;
``in_flight``: another handler holds a live claim; ``replayed``: the signature
was already accepted under another delivery id."""

EntryState = Literal["processed", "in_flight"]
"""The state of a live delivery id."""


def entry_state(raw: object) -> EntryState | None:
    """A store's stored state of a live id (``processed``, else a claim) as an EntryState."""
    if raw is None:
        return None
    return "processed" if raw in ("processed", b"processed") else "in_flight"


def load_driver(module: str, needs: str) -> Any:
    """The backend's library ``module``, or a ``missing_extra`` error saying what it ``needs``."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise DeliveryLogConfigError(needs, reason="missing_extra") from None


def signature_expiry(timestamp_ms: int, now: float, tolerance: float) -> float:
    """Until when a signature can come back: its timestamp's window, never less than now's."""
    return max(timestamp_ms / 1000.0, now) + tolerance


class DeliveryStore(ABC):
    """One backend of :class:`~gcbridge.webhooks.DeliveryLog` (SQLite, PostgreSQL, Redis)."""

    kind: str = "store"
    """Short name shown in messages (``sqlite``, ``postgresql``, ``redis``)."""

    errors: tuple[type[BaseException], ...] = ()
    """The backend library's errors: the log turns them into ``DeliveryLogUnavailable``."""

    self_expiring: bool = False
    """Whether the backend forgets expired entries itself (no pruning needed)."""

    @abstractmethod
    def claim(
        self, claim: Claim, now: float | None, *, lease: float, tolerance: float
    ) -> ClaimOutcome:
        """Atomically take ``claim`` (its id new, or with an expired entry) and its signature."""

    @abstractmethod
    def complete(
        self, claim: Claim, now: float | None, *, retention: float, tolerance: float
    ) -> bool:
        """Mark the id processed for ``retention`` and remember its signature; ``True`` if so.

        Only if the claim's token still holds the id (live or expired) or the id is
        unknown: a stale completion touches nothing.
        """

    @abstractmethod
    def release(self, claim: Claim) -> bool:
        """Drop the claim (its token's only); processed ids stay. ``True`` if dropped."""

    @abstractmethod
    def state(self, delivery_id: str, now: float | None) -> EntryState | None:
        """The live state of a delivery id, ``None`` if unknown or expired."""

    @abstractmethod
    def claim_signature(
        self, signature: str, timestamp_ms: int, now: float | None, *, tolerance: float
    ) -> bool:
        """Atomically remember a signature; ``False`` if it is already alive."""

    @abstractmethod
    def prune(self, now: float | None) -> int:
        """Delete expired entries; how many."""

    @abstractmethod
    def close(self) -> None:
        """Release connections."""
