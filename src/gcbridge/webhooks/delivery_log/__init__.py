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
backend cannot be reached, or does not answer within ``timeout``, every method
raises :class:`~gcbridge.webhooks.errors.DeliveryLogUnavailable`: the receiver
answers 503 and nothing is processed unguarded.

A claim is a :class:`Claim` with its own token (:meth:`DeliveryLog.acquire`):
completing or releasing it never touches another handler's claim of the same
id. A settlement the backend could not take (an outage after the handler ran)
is written before the log's next call (:mod:`.claims`).

Delivery ids longer than :data:`MAX_DELIVERY_ID_LENGTH` are refused
(``WebhookDeliveryIdError``, reason ``delivery_id_too_long``) on every backend.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Literal, TypeVar

from gcbridge.clock import Clock
from gcbridge.webhooks.delivery_log.backends import DEFAULT_RETENTION
from gcbridge.webhooks.delivery_log.backends import guarded as _guarded
from gcbridge.webhooks.delivery_log.backends import store_for as _store_for
from gcbridge.webhooks.delivery_log.base import ClaimOutcome, DeliveryStore, EntryState
from gcbridge.webhooks.delivery_log.claims import (
    MAX_DELIVERY_ID_LENGTH,
    Claim,
    PendingSettlements,
    Settlement,
)
from gcbridge.webhooks.delivery_log.sqlite_store import SqliteStore
from gcbridge.webhooks.errors import (
    DeliveryLogUnavailable,
    WebhookDeliveryIdError,
    WebhookReplayError,
)
from gcbridge.webhooks.signature import DEFAULT_TOLERANCE

__all__ = [
    "DeliveryLog",
    "DeliveryStatus",
    "Claim",
    "MAX_DELIVERY_ID_LENGTH",
    "ClaimOutcome",
    "DeliveryStore",
    "DEFAULT_LEASE",
    "DEFAULT_RETENTION",
]


DeliveryStatus = Literal["new", "duplicate", "in_flight"]
"""Outcome of :meth:`DeliveryLog.claim` (``in_flight`` only from ``claim``)."""

DEFAULT_LEASE = 60.0
"""Seconds a claim holds before another instance may take it over (> the service's 10 s timeout)."""

_PRUNE_EVERY = 60.0  # seconds between opportunistic prunes (SQLite, PostgreSQL)
_T = TypeVar("_T")


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
        self._claims: dict[str, Claim] = {}  # id -> this log's latest claim (id-keyed calls)
        self._claims_lock = threading.Lock()
        self._pending = PendingSettlements()
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
        timeout: float | None = None,
    ) -> DeliveryLog:
        """A log on ``sqlite:///PATH`` (or a bare path), ``postgresql://...`` or ``redis://...``.

        ``clock=None`` uses the backend's clock (the database server's for
        PostgreSQL and Redis). ``timeout``: seconds one call may wait for the
        backend before the log counts as unavailable (default 5 for PostgreSQL
        and Redis, 10 for a locked SQLite file). Raises ``DeliveryLogConfigError``
        (``unsupported_url``, ``missing_extra``; PostgreSQL: ``schema_missing``,
        ``missing_privilege``, ``schema_too_new``) or, if the server cannot be
        reached, ``DeliveryLogUnavailable``.
        """
        if timeout is not None and timeout <= 0:
            raise ValueError("timeout must be positive")
        target = os.fspath(url)
        store = _guarded("sqlite", lambda: _store_for(target, timeout), (sqlite3.Error,))
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

    def acquire(self, delivery_id: str, signature: str, timestamp_ms: int) -> Claim:
        """Atomically claim ``delivery_id`` for this caller's handler; the :class:`Claim`.

        ``status`` ``new``: the caller holds the claim (``token`` set) and must
        :meth:`complete` it after processing or :meth:`release` it if processing
        failed. ``duplicate``: already processed. ``in_flight``: another handler
        holds a live lease (retry later). Raises ``WebhookReplayError`` when the
        signature was already accepted under another delivery id, and
        ``WebhookDeliveryIdError`` for an id over 200 characters.
        """
        _check_id(delivery_id)
        token = secrets.token_hex(8)
        self._maybe_prune()
        sig = signature.lower()
        try:
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
        except DeliveryLogUnavailable:
            # The claim may still land (a server that resumes runs what it had read):
            # release it when the log is back, so it does not hold the id for a lease.
            self._pending.add("release", Claim("new", delivery_id, sig, int(timestamp_ms), token))
            raise
        if outcome == "replayed":
            raise _replayed()
        claim = Claim(
            outcome,
            delivery_id,
            sig,
            int(timestamp_ms),
            token if outcome == "new" else None,
        )
        if claim.held:
            with self._claims_lock:
                self._claims[delivery_id] = claim
        return claim

    def claim(self, delivery_id: str, signature: str, timestamp_ms: int) -> DeliveryStatus:
        """Like :meth:`acquire`, the status only: settle it with :meth:`complete` by id."""
        return self.acquire(delivery_id, signature, timestamp_ms).status

    def complete(self, claim: Claim | str) -> bool:
        """Mark a claimed delivery processed (its copies become ``duplicate``).

        Given the :class:`Claim`, only while its token still holds the id: a
        stale completion (the lease ran out and another handler claimed the id)
        touches nothing and returns ``False``. Given an id, this log's latest
        claim of it. If the backend is down the completion is kept and written
        before this log's next call (``DeliveryLogUnavailable`` is still raised).
        """
        held = self._held(claim)
        if held is None:
            assert isinstance(claim, str)
            # Another handler in this process took the claim over after the lease and
            # completed it first; anything else is a caller's mistake.
            if self.state(claim) == "processed":
                return False
            raise KeyError(f"delivery {claim!r} was not claimed through this log")
        return self._settle("complete", held)

    def release(self, claim: Claim | str) -> bool:
        """Give up a claim whose processing failed (the retry gets in); ``True`` if dropped.

        Only this claim's token is released: another handler's live claim of the
        same id (this or another instance) is never touched. Kept for later like
        :meth:`complete` if the backend is down.
        """
        held = self._held(claim)
        if held is None:
            return False
        return self._settle("release", held)

    def _held(self, claim: Claim | str) -> Claim | None:
        with self._claims_lock:
            if isinstance(claim, str):
                _check_id(claim)
                return self._claims.pop(claim, None)
            if self._claims.get(claim.delivery_id) == claim:
                del self._claims[claim.delivery_id]
        return claim if claim.held else None

    def _settle(self, what: Settlement, claim: Claim) -> bool:
        try:
            return self._call(lambda now: self._write(what, claim, now))
        except DeliveryLogUnavailable:
            self._pending.add(what, claim)
            raise

    def _write(self, what: Settlement, claim: Claim, now: float | None) -> bool:
        if what == "release":
            return self._store.release(claim.delivery_id, claim.token)
        return self._store.complete(
            claim.delivery_id,
            claim.signature,
            claim.timestamp_ms,
            now,
            retention=self.retention,
            tolerance=self.tolerance,
            token=claim.token,
        )

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

    def record(self, delivery_id: str, signature: str, timestamp: int) -> None:
        """Mark ``delivery_id`` processed, whoever claimed it; ``timestamp``: signed epoch ms."""
        _check_id(delivery_id)
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
        if delivery_id is not None:
            _check_id(delivery_id)
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
        _check_id(delivery_id)
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
