"""Idempotency and replay memory for receivers: which deliveries were processed.

Two things are remembered (SQLite, a file or ``":memory:"``, safe across threads):

- **delivery ids** that were processed successfully, for ``retention`` seconds,
  so a retry of an already handled delivery is acknowledged and skipped
  (spec 6.1: the delivery id is the idempotency key);
- **signatures** accepted within the tolerance window. The delivery id is *not*
  signed, so an attacker who captured a genuine request could replay it with a
  fresh id; its signature, though, is one we already accepted. The service signs
  every attempt afresh (new timestamp), so a legitimate request never repeats a
  signature. A signature is kept until its timestamp leaves the window, after
  which ``verify_signature`` refuses the request anyway.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from typing import Literal

from gcbridge.clock import SYSTEM_CLOCK, Clock
from gcbridge.webhooks.errors import WebhookReplayError
from gcbridge.webhooks.signature import DEFAULT_TOLERANCE

__all__ = ["DeliveryLog", "DeliveryStatus"]

DeliveryStatus = Literal["new", "duplicate"]
"""Outcome of :meth:`DeliveryLog.check`."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS deliveries (
    delivery_id TEXT PRIMARY KEY,
    signature TEXT NOT NULL,
    timestamp_ms INTEGER NOT NULL,
    processed_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS signatures (
    signature TEXT PRIMARY KEY,
    expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_processed_at ON deliveries (processed_at);
CREATE INDEX IF NOT EXISTS signatures_expires_at ON signatures (expires_at);
"""

_PRUNE_EVERY = 60.0  # seconds of clock time between opportunistic prunes


class DeliveryLog:
    """Remembers processed delivery ids and accepted signatures."""

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        retention: float = 7 * 24 * 3600,
        tolerance: float = DEFAULT_TOLERANCE,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        if retention <= 0 or tolerance < 0:
            raise ValueError("retention must be positive and tolerance not negative")
        self.retention = float(retention)
        self.tolerance = float(tolerance)
        self._clock = clock
        self._lock = threading.Lock()
        # One connection behind a lock: correct for ":memory:" (which is per
        # connection) and plenty for a receiver's write rate.
        self._conn = sqlite3.connect(
            os.fspath(path), check_same_thread=False, isolation_level=None, timeout=10
        )
        if os.fspath(path) != ":memory:":
            self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.executescript(_SCHEMA)
        self._last_prune = float("-inf")

    def __repr__(self) -> str:
        return f"DeliveryLog(retention={self.retention:g}, tolerance={self.tolerance:g})"

    def seen(self, delivery_id: str) -> bool:
        """Whether ``delivery_id`` was already processed (and not yet forgotten)."""
        with self._lock:
            row = self._conn.execute(
                "SELECT 1 FROM deliveries WHERE delivery_id = ?", (delivery_id,)
            ).fetchone()
        return row is not None

    def signature_seen(self, signature: str) -> bool:
        """Whether ``signature`` was accepted and is still inside its window."""
        with self._lock:
            row = self._conn.execute(
                "SELECT 1 FROM signatures WHERE signature = ? AND expires_at >= ?",
                (signature.lower(), self._clock.now()),
            ).fetchone()
        return row is not None

    def claim_signature(self, signature: str, timestamp_ms: int) -> bool:
        """Atomically remember ``signature``; ``False`` if it was already accepted."""
        now = self._clock.now()
        with self._lock:
            self._maybe_prune(now)
            cur = self._conn.execute(
                "INSERT OR IGNORE INTO signatures (signature, expires_at) VALUES (?, ?)",
                (signature.lower(), self._expiry(timestamp_ms, now)),
            )
        return cur.rowcount == 1

    def check(self, delivery_id: str | None, signature: str, timestamp_ms: int) -> DeliveryStatus:
        """``duplicate`` for a processed id; else claim the signature (``WebhookReplayError``)."""
        if delivery_id is not None and self.seen(delivery_id):
            return "duplicate"
        if not self.claim_signature(signature, timestamp_ms):
            raise WebhookReplayError(
                "this signature was already accepted under another delivery id "
                "(a captured request replayed)",
                reason="replayed_signature",
            )
        return "new"

    def claim(self, delivery_id: str, signature: str, timestamp_ms: int) -> DeliveryStatus:
        """Atomically: ``duplicate`` for a known id, else remember id and signature as ``new``.

        Raises ``WebhookReplayError`` when the signature was already accepted under
        another id. Call :meth:`release` if processing then fails, so that the
        service's retry is processed.
        """
        now = self._clock.now()
        with self._lock:
            self._maybe_prune(now)
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                known = self._conn.execute(
                    "SELECT 1 FROM deliveries WHERE delivery_id = ?", (delivery_id,)
                ).fetchone()
                if known is not None:
                    self._conn.execute("COMMIT")
                    return "duplicate"
                fresh = self._conn.execute(
                    "INSERT OR IGNORE INTO signatures (signature, expires_at) VALUES (?, ?)",
                    (signature.lower(), self._expiry(timestamp_ms, now)),
                ).rowcount
                if fresh != 1:
                    self._conn.execute("ROLLBACK")
                    raise WebhookReplayError(
                        "this signature was already accepted under another delivery id "
                        "(a captured request replayed)",
                        reason="replayed_signature",
                    )
                self._insert_delivery(delivery_id, signature, timestamp_ms, now)
                self._conn.execute("COMMIT")
            except WebhookReplayError:
                raise
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return "new"

    def release(self, delivery_id: str) -> None:
        """Forget a claimed id whose processing failed (its signature stays remembered)."""
        with self._lock:
            self._conn.execute("DELETE FROM deliveries WHERE delivery_id = ?", (delivery_id,))

    def record(self, delivery_id: str, signature: str, timestamp: int) -> None:
        """Mark ``delivery_id`` processed; ``timestamp`` is the signed epoch ms."""
        now = self._clock.now()
        with self._lock:
            self._maybe_prune(now)
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._insert_delivery(delivery_id, signature, timestamp, now)
                self._conn.execute(
                    "INSERT OR IGNORE INTO signatures (signature, expires_at) VALUES (?, ?)",
                    (signature.lower(), self._expiry(timestamp, now)),
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def prune(self) -> int:
        """Forget ids older than ``retention`` and signatures out of their window."""
        with self._lock:
            return self._prune(self._clock.now())

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._conn.close()

    def _insert_delivery(
        self, delivery_id: str, signature: str, timestamp: int, now: float
    ) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO deliveries "
            "(delivery_id, signature, timestamp_ms, processed_at) VALUES (?, ?, ?, ?)",
            (delivery_id, signature.lower(), int(timestamp), now),
        )

    def _expiry(self, timestamp_ms: int, now: float) -> float:
        # A signature can be replayed until its timestamp leaves the window;
        # never keep it shorter than the window from now (clock skew).
        return max(timestamp_ms / 1000.0, now) + self.tolerance

    def _maybe_prune(self, now: float) -> None:
        if now - self._last_prune >= _PRUNE_EVERY:
            self._prune(now)

    def _prune(self, now: float) -> int:
        self._last_prune = now
        a = self._conn.execute(
            "DELETE FROM deliveries WHERE processed_at < ?", (now - self.retention,)
        ).rowcount
        b = self._conn.execute("DELETE FROM signatures WHERE expires_at < ?", (now,)).rowcount
        return a + b
