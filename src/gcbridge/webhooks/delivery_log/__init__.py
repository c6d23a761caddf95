"""Idempotency and replay memory for receivers, shared by every instance that uses it.

Two things are remembered: **delivery ids**, each *claimed* (a lease) before its handler
runs, then *processed* (completed) or released; and the **signatures** accepted within the
tolerance window, because the delivery id is not signed: a captured request replayed under a
fresh id still carries a signature already accepted (the service signs every attempt afresh).

:meth:`DeliveryLog.acquire` a delivery, then :meth:`~DeliveryLog.complete` the :class:`Claim`
when the handler succeeded or :meth:`~DeliveryLog.release` it when it failed; a claim's own
token keeps it from touching a later claim of the same id, and a settlement the backend could
not take is written before the log's next call (:mod:`.claims`). An unreachable or silent
backend raises :class:`~gcbridge.webhooks.errors.DeliveryLogUnavailable` from every method, so
nothing is processed unguarded. Backends, leases and outages: docs/how-to/share-delivery-log.md,
"Leases: what each instance does while a handler runs".
"""

from __future__ import annotations

import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Callable
from typing import TypedDict, TypeVar, Unpack

from gcbridge.clock import Clock
from gcbridge.webhooks.delivery_log.base import (
    DEFAULT_TIMEOUT,
    ClaimOutcome,
    DeliveryStore,
    EntryState,
)
from gcbridge.webhooks.delivery_log.claims import (
    MAX_DELIVERY_ID_LENGTH,
    Claim,
    PendingSettlements,
    Settlement,
)
from gcbridge.webhooks.delivery_log.deadline import TimedOut
from gcbridge.webhooks.delivery_log.sqlite_store import DEFAULT_BUSY_TIMEOUT, SqliteStore
from gcbridge.webhooks.errors import (
    DeliveryLogConfigError,
    DeliveryLogUnavailable,
    WebhookDeliveryIdError,
    WebhookReplayError,
)
from gcbridge.webhooks.signature import DEFAULT_TOLERANCE

__all__ = [
    "DeliveryLog",
    "LogSettings",
    "Claim",
    "MAX_DELIVERY_ID_LENGTH",
    "ClaimOutcome",
    "DeliveryStore",
    "DEFAULT_LEASE",
    "DEFAULT_RETENTION",
]

logger = logging.getLogger("gcbridge.webhooks")

DEFAULT_LEASE = 60.0
"""Seconds a claim holds before another instance may take it over (> the service's 10 s timeout)."""
DEFAULT_RETENTION = 7 * 24 * 3600.0
"""Seconds a processed delivery id is remembered (longer than the service's retry schedule)."""

_PRUNE_EVERY = 60.0  # seconds between opportunistic prunes (SQLite, PostgreSQL)
_T = TypeVar("_T")


class LogSettings(TypedDict, total=False):
    """The settings :meth:`DeliveryLog.from_url` hands to the constructor."""

    retention: float
    tolerance: float
    lease: float
    clock: Clock | None


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
        self._pending = PendingSettlements()
        self._last_prune = float("-inf")

    @classmethod
    def from_url(
        cls,
        url: str | os.PathLike[str],
        *,
        timeout: float | None = None,
        **settings: Unpack[LogSettings],
    ) -> DeliveryLog:
        """A log on ``sqlite:///PATH`` (or a bare path), ``postgresql://...`` or ``redis://...``.

        ``clock=None`` uses the backend's clock (the database server's for
        PostgreSQL and Redis). ``timeout``: seconds one call may wait for the
        backend before the log counts as unavailable (default: ``base.DEFAULT_TIMEOUT`` for
        PostgreSQL and Redis, ``sqlite_store.DEFAULT_BUSY_TIMEOUT`` for a locked SQLite file).
        """
        if timeout is not None and timeout <= 0:
            raise ValueError("timeout must be positive")
        target = os.fspath(url)
        store = _guarded("sqlite", lambda: _store_for(target, timeout), (sqlite3.Error,))
        return cls(store=store, **settings)

    def __repr__(self) -> str:
        return (
            f"DeliveryLog({self._store.kind}, retention={self.retention:g}, "
            f"tolerance={self.tolerance:g}, lease={self.lease:g})"
        )

    @property
    def backend(self) -> str:
        """``sqlite``, ``postgresql`` or ``redis``."""
        return self._store.kind

    def acquire(self, delivery_id: str | None, signature: str, timestamp_ms: int) -> Claim:
        """Atomically claim ``delivery_id`` for this caller's handler; the :class:`Claim`.

        ``status`` ``new``: the caller holds the claim (``token`` set) and must
        :meth:`complete` it after processing or :meth:`release` it if processing
        failed. ``duplicate``: already processed. ``in_flight``: another handler
        holds a live lease (retry later). A delivery without an id (``None``)
        only has its signature remembered: ``new``, with nothing to settle.
        Raises ``WebhookReplayError`` when the signature was already accepted
        under another delivery id, and ``WebhookDeliveryIdError`` for an id over
        200 characters.
        """
        self._maybe_prune()
        sig, timestamp_ms = signature.lower(), int(timestamp_ms)
        if delivery_id is None:
            tolerance = self.tolerance
            if not self._call(
                lambda now: self._store.claim_signature(sig, timestamp_ms, now, tolerance=tolerance)
            ):
                raise _replayed()
            return Claim("new", "", sig, timestamp_ms)
        _check_id(delivery_id)
        wanted = Claim("new", delivery_id, sig, timestamp_ms, secrets.token_hex(8))
        try:
            outcome = self._call(
                lambda now: self._store.claim(
                    wanted, now, lease=self.lease, tolerance=self.tolerance
                )
            )
        except DeliveryLogUnavailable:
            # The claim may still land (a server that resumes runs what it had read):
            # release it when the log is back, so it does not hold the id for a lease.
            self._pending.add("release", wanted)
            raise
        if outcome == "replayed":
            raise _replayed()
        return wanted if outcome == "new" else Claim(outcome, delivery_id, sig, timestamp_ms)

    def complete(self, claim: Claim) -> bool:
        """Mark a claimed delivery processed (its copies become ``duplicate``).

        Only while the claim's token still holds the id: a stale completion (the
        lease ran out and another handler claimed the id) touches nothing and
        returns ``False``, as does a claim not held. If the backend is down the
        completion is kept and written before this log's next call
        (``DeliveryLogUnavailable`` is still raised).
        """
        return claim.held and self._settle("complete", claim)

    def release(self, claim: Claim) -> bool:
        """Give up a claim whose processing failed (the retry gets in); ``True`` if dropped.

        Only this claim's token is released: another handler's live claim of the
        same id (this or another instance) is never touched. Kept for later like
        :meth:`complete` if the backend is down.
        """
        return claim.held and self._settle("release", claim)

    def state(self, delivery_id: str) -> EntryState | None:
        """``processed``, ``in_flight`` (a live claim) or ``None``."""
        _check_id(delivery_id)
        return self._call(lambda now: self._store.state(delivery_id, now))

    def prune(self) -> int:
        """Forget expired ids, claims and signatures; how many."""
        return self._call(self._store.prune)

    def close(self) -> None:
        """Close the backend's connections."""
        self._store.close()

    def _settle(self, what: Settlement, claim: Claim) -> bool:
        try:
            return self._call(lambda now: self._write(what, claim, now))
        except DeliveryLogUnavailable:
            self._pending.add(what, claim)
            raise

    def _write(self, what: Settlement, claim: Claim, now: float | None) -> bool:
        if what == "release":
            return self._store.release(claim)
        return self._store.complete(claim, now, retention=self.retention, tolerance=self.tolerance)

    def _flush_pending(self) -> None:
        """Write the settlements an outage held back (before anything else reaches the log)."""
        items = self._pending.take()
        for index, (what, claim) in enumerate(items):
            try:
                _guarded(
                    self._store.kind,
                    lambda w=what, c=claim: self._write(w, c, self._now()),  # type: ignore[misc]
                    self._store.errors,
                )
            except DeliveryLogUnavailable:
                self._pending.put_back(items[index:])
                raise

    def _now(self) -> float | None:
        return None if self._clock is None else self._clock.now()

    def _call(self, fn: Callable[[float | None], _T]) -> _T:
        if len(self._pending):
            self._flush_pending()
        return _guarded(self._store.kind, lambda: fn(self._now()), self._store.errors)

    def _maybe_prune(self) -> None:
        if self._store.self_expiring:
            return
        now = self._now()
        mark = time.monotonic() if now is None else now
        if mark - self._last_prune >= _PRUNE_EVERY:
            self._last_prune = mark
            self._call(self._store.prune)


def _check_id(delivery_id: str) -> None:
    if len(delivery_id) > MAX_DELIVERY_ID_LENGTH:
        raise WebhookDeliveryIdError(
            f"the delivery id has {len(delivery_id)} characters, more than "
            f"{MAX_DELIVERY_ID_LENGTH}: not a delivery of the service",
            reason="delivery_id_too_long",
        )


def _replayed() -> WebhookReplayError:
    return WebhookReplayError(
        "this signature was already accepted under another delivery id "
        "(a captured request replayed)",
        reason="replayed_signature",
    )


def _store_for(url: str, timeout: float | None = None) -> DeliveryStore:
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    busy = DEFAULT_BUSY_TIMEOUT if timeout is None else timeout
    wait = DEFAULT_TIMEOUT if timeout is None else timeout
    if not scheme:
        return SqliteStore(url, retention=DEFAULT_RETENTION, timeout=busy)
    if scheme == "sqlite":
        path = url[len("sqlite://") :]
        path = path[1:] if path.startswith("/") else path  # sqlite:///rel, sqlite:////abs
        return SqliteStore(path or ":memory:", retention=DEFAULT_RETENTION, timeout=busy)
    if scheme in ("postgresql", "postgres"):
        from gcbridge.webhooks.delivery_log.postgres_store import PostgresStore, load_psycopg

        pg_errors = (load_psycopg().Error,)
        return _guarded("postgresql", lambda: PostgresStore(url, timeout=wait), pg_errors)
    if scheme in ("redis", "rediss", "unix"):
        from gcbridge.webhooks.delivery_log.redis_store import RedisStore, load_redis

        redis_errors = (load_redis().RedisError,)
        return _guarded("redis", lambda: RedisStore(url, timeout=wait), redis_errors)
    raise DeliveryLogConfigError(
        f"unsupported delivery log URL scheme {scheme!r}: use a file path, sqlite:///PATH, "
        "postgresql://... or redis://...",
        reason="unsupported_url",
    )


def _guarded(kind: str, fn: Callable[[], _T], errors: tuple[type[BaseException], ...]) -> _T:
    """``fn()``, its backend ``errors`` (OS errors, time-outs too) as ``DeliveryLogUnavailable``."""
    try:
        return fn()
    except errors + (OSError, TimedOut) as exc:
        # The message names the error type only: backend messages can hold URLs.
        logger.warning("delivery log (%s) unavailable: %s", kind, type(exc).__name__)
        raise DeliveryLogUnavailable(
            f"the delivery log ({kind}) is unavailable: {type(exc).__name__}",
            reason="delivery_log_unavailable",
        ) from exc
