"""Idempotency and replay memory for receivers, shared by every instance that uses it.

Two things are remembered:

- **delivery ids** (spec 6.1: the idempotency key). A delivery is *claimed*
  before its handler runs; the claim is a lease (``lease`` seconds): while it is
  held, a copy of the same id is ``in_flight`` (answer it 503 so the service
  retries: the first handler may still fail); when the handler succeeds the id
  is *processed* for ``retention`` seconds and copies are ``duplicate`` (answer
  200); when it fails the claim is released, and when its process died the
  lease runs out, so the service's retry is processed;
- **signatures** accepted within the tolerance window. The delivery id is *not*
  signed, so an attacker who captured a genuine request could replay it with a
  fresh id; its signature, though, is one we already accepted. The service signs
  every attempt afresh (new timestamp), so a legitimate request never repeats a
  signature.

Backends (:meth:`DeliveryLog.from_url`): SQLite (embedded, one host, the
default), PostgreSQL and Redis (instances on several machines). When the
backend cannot be reached, every method raises
:class:`~gcbridge.webhooks.errors.DeliveryLogUnavailable`: the receiver answers
503 and nothing is processed unguarded.
"""

from __future__ import annotations

import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Literal, TypeVar

from gcbridge.clock import Clock
from gcbridge.webhooks.delivery_log.base import ClaimOutcome, DeliveryStore, EntryState
from gcbridge.webhooks.delivery_log.sqlite_store import SqliteStore
from gcbridge.webhooks.errors import (
    DeliveryLogConfigError,
    DeliveryLogUnavailable,
    WebhookReplayError,
)
from gcbridge.webhooks.signature import DEFAULT_TOLERANCE

__all__ = [
    "DeliveryLog",
    "DeliveryStatus",
    "ClaimOutcome",
    "DeliveryStore",
    "DEFAULT_LEASE",
    "DEFAULT_RETENTION",
]

logger = logging.getLogger("gcbridge.webhooks")

DeliveryStatus = Literal["new", "duplicate", "in_flight"]
"""Outcome of :meth:`DeliveryLog.claim` (``in_flight`` only from ``claim``)."""

DEFAULT_LEASE = 60.0
"""Seconds a claim holds before another instance may take it over (> the service's 10 s timeout)."""
DEFAULT_RETENTION = 7 * 24 * 3600.0
"""Seconds a processed delivery id is remembered (longer than the 6-hour retry schedule)."""

_PRUNE_EVERY = 60.0  # seconds between opportunistic prunes (SQLite, PostgreSQL)
_T = TypeVar("_T")


def _store_for(url: str) -> DeliveryStore:
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if not scheme:
        return SqliteStore(url, retention=DEFAULT_RETENTION)
    if scheme == "sqlite":
        path = url[len("sqlite://") :]
        path = path[1:] if path.startswith("/") else path  # sqlite:///rel, sqlite:////abs
        return SqliteStore(path or ":memory:", retention=DEFAULT_RETENTION)
    if scheme in ("postgresql", "postgres"):
        from gcbridge.webhooks.delivery_log.postgres_store import PostgresStore, load_psycopg

        return _guarded("postgresql", lambda: PostgresStore(url), (load_psycopg().Error,))
    if scheme in ("redis", "rediss", "unix"):
        from gcbridge.webhooks.delivery_log.redis_store import RedisStore, load_redis

        return _guarded("redis", lambda: RedisStore(url), (load_redis().RedisError,))
    raise DeliveryLogConfigError(
        f"unsupported delivery log URL scheme {scheme!r}: use a file path, sqlite:///PATH, "
        "postgresql://... or redis://...",
        reason="unsupported_url",
    )


class DeliveryLog:
    """Remembers claimed and processed delivery ids and accepted signatures."""

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        retention: float = DEFAULT_RETENTION,
        tolerance: float = DEFAULT_TOLERANCE,
        lease: float = DEFAULT_LEASE,
        clock: Clock | None = None,
        store: DeliveryStore | None = None,
    ) -> None:
        if retention <= 0 or tolerance < 0 or lease <= 0:
            raise ValueError("retention and lease must be positive and tolerance not negative")
        self.retention = float(retention)
        self.tolerance = float(tolerance)
        self.lease = float(lease)
        self._clock = clock
        self._store = store if store is not None else SqliteStore(path, retention=retention)
        self._claims: dict[str, tuple[str, str, int]] = {}  # id -> token, signature, ts
        self._claims_lock = threading.Lock()
        self._last_prune = float("-inf")

    @classmethod
    def from_url(
        cls,
        url: str | os.PathLike[str],
        *,
        retention: float = DEFAULT_RETENTION,
        tolerance: float = DEFAULT_TOLERANCE,
        lease: float = DEFAULT_LEASE,
        clock: Clock | None = None,
    ) -> DeliveryLog:
        """A log on ``sqlite:///PATH`` (or a bare path), ``postgresql://...`` or ``redis://...``.

        ``clock=None`` uses the backend's clock (the database server's for
        PostgreSQL and Redis). Raises ``DeliveryLogConfigError`` (``unsupported_url``,
        ``missing_extra``) or, if the server cannot be reached, ``DeliveryLogUnavailable``.
        """
        target = os.fspath(url)
        store = _guarded("sqlite", lambda: _store_for(target), (sqlite3.Error,))
        return cls(store=store, retention=retention, tolerance=tolerance, lease=lease, clock=clock)

    def __repr__(self) -> str:
        return (
            f"DeliveryLog({self._store.kind}, retention={self.retention:g}, "
            f"tolerance={self.tolerance:g}, lease={self.lease:g})"
        )

    @property
    def backend(self) -> str:
        """``sqlite``, ``postgresql`` or ``redis``."""
        return self._store.kind

    def claim(self, delivery_id: str, signature: str, timestamp_ms: int) -> DeliveryStatus:
        """Atomically claim ``delivery_id`` for this caller's handler, with its signature.

        ``new``: the caller holds a lease and must call :meth:`complete` after
        processing or :meth:`release` if processing failed. ``duplicate``: already
        processed. ``in_flight``: another handler holds a live lease (retry later).
        Raises ``WebhookReplayError`` when the signature was already accepted
        under another delivery id.
        """
        token = secrets.token_hex(8)
        self._maybe_prune()
        sig = signature.lower()
        outcome = self._call(
            lambda now: self._store.claim(
                delivery_id,
                token,
                sig,
                timestamp_ms,
                now,
                lease=self.lease,
                tolerance=self.tolerance,
            )
        )
        if outcome == "replayed":
            raise _replayed()
        if outcome == "new":
            with self._claims_lock:
                self._claims[delivery_id] = (token, sig, int(timestamp_ms))
        return outcome

    def complete(self, delivery_id: str) -> None:
        """Mark a delivery this log claimed as processed (its copies become ``duplicate``)."""
        with self._claims_lock:
            held = self._claims.pop(delivery_id, None)
        if held is None:
            # Another handler in this process took the claim over after the lease and
            # completed it first; anything else is a caller's mistake.
            if self.state(delivery_id) == "processed":
                return
            raise KeyError(f"delivery {delivery_id!r} was not claimed through this log")
        _, signature, timestamp_ms = held
        self.record(delivery_id, signature, timestamp_ms)

    def release(self, delivery_id: str) -> None:
        """Give up this log's claim on a delivery whose processing failed (the retry gets in).

        Only a claim made through this log is dropped: another instance's live
        claim is never touched.
        """
        with self._claims_lock:
            held = self._claims.pop(delivery_id, None)
        if held is not None:
            self._call(lambda now: self._store.release(delivery_id, held[0]))

    def record(self, delivery_id: str, signature: str, timestamp: int) -> None:
        """Mark ``delivery_id`` processed; ``timestamp`` is the signed epoch ms."""
        self._maybe_prune()
        self._call(
            lambda now: self._store.complete(
                delivery_id,
                signature.lower(),
                timestamp,
                now,
                retention=self.retention,
                tolerance=self.tolerance,
            )
        )

    def check(self, delivery_id: str | None, signature: str, timestamp_ms: int) -> DeliveryStatus:
        """Without a lease: ``duplicate`` for a processed id, else claim the signature."""
        if delivery_id is not None and self.seen(delivery_id):
            return "duplicate"
        if not self.claim_signature(signature, timestamp_ms):
            raise _replayed()
        return "new"

    def seen(self, delivery_id: str) -> bool:
        """Whether ``delivery_id`` was processed (and not yet forgotten)."""
        return self.state(delivery_id) == "processed"

    def state(self, delivery_id: str) -> EntryState | None:
        """``processed``, ``in_flight`` (a live claim) or ``None``."""
        return self._call(lambda now: self._store.state(delivery_id, now))

    def signature_seen(self, signature: str) -> bool:
        """Whether ``signature`` was accepted and is still inside its window."""
        return self._call(lambda now: self._store.signature_seen(signature.lower(), now))

    def claim_signature(self, signature: str, timestamp_ms: int) -> bool:
        """Atomically remember ``signature``; ``False`` if it was already accepted."""
        self._maybe_prune()
        return self._call(
            lambda now: self._store.claim_signature(
                signature.lower(), timestamp_ms, now, tolerance=self.tolerance
            )
        )

    def prune(self) -> int:
        """Forget expired ids, claims and signatures; how many."""
        return self._call(self._store.prune)

    def close(self) -> None:
        """Close the backend's connections."""
        self._store.close()

    def _now(self) -> float | None:
        return None if self._clock is None else self._clock.now()

    def _call(self, fn: Callable[[float | None], _T]) -> _T:
        return _guarded(self._store.kind, lambda: fn(self._now()), self._store.errors)

    def _maybe_prune(self) -> None:
        if self._store.self_expiring:
            return
        now = self._now()
        mark = time.monotonic() if now is None else now
        if mark - self._last_prune >= _PRUNE_EVERY:
            self._last_prune = mark
            self._call(self._store.prune)


def _guarded(kind: str, fn: Callable[[], _T], errors: tuple[type[BaseException], ...]) -> _T:
    try:
        return fn()
    except errors + (OSError,) as exc:
        # The message names the error type only: backend messages can hold URLs.
        logger.warning("delivery log (%s) unavailable: %s", kind, type(exc).__name__)
        raise DeliveryLogUnavailable(
            f"the delivery log ({kind}) is unavailable: {type(exc).__name__}",
            reason="delivery_log_unavailable",
        ) from exc


def _replayed() -> WebhookReplayError:
    return WebhookReplayError(
        "this signature was already accepted under another delivery id "
        "(a captured request replayed)",
        reason="replayed_signature",
    )
