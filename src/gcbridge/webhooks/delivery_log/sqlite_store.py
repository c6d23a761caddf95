"""The embedded backend: one SQLite file (or ``":memory:"``), shared by processes on one host.

Files are private whatever the umask: the database and its ``-wal``/``-shm``
companions are 0600 (SQLite gives the companions the database file's mode, and
they are re-checked after opening), and a directory created for it is 0700. An
existing directory is left as it is (it may be shared, like ``/tmp``).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from gcbridge.webhooks.delivery_log.base import (
    ClaimOutcome,
    DeliveryStore,
    EntryState,
    entry_state,
    signature_expiry,
)
from gcbridge.webhooks.delivery_log.claims import Claim

__all__ = ["SqliteStore", "private_file", "DEFAULT_BUSY_TIMEOUT"]

DEFAULT_BUSY_TIMEOUT = 10.0
"""Seconds a call waits for a file locked by another process before the log is unavailable."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS delivery_ids (
    delivery_id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    token TEXT,
    expires_at REAL NOT NULL,
    signature TEXT NOT NULL,
    timestamp_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS signatures (
    signature TEXT PRIMARY KEY,
    expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS delivery_ids_expires_at ON delivery_ids (expires_at);
CREATE INDEX IF NOT EXISTS signatures_expires_at ON signatures (expires_at);
"""

# Logs written before leases existed held processed ids in "deliveries".
_MIGRATE = (
    "INSERT OR IGNORE INTO delivery_ids "
    "SELECT delivery_id, 'processed', NULL, processed_at + ?, signature, timestamp_ms "
    "FROM deliveries"
)

_STATE = "SELECT state FROM delivery_ids WHERE delivery_id = ? AND expires_at >= ?"

_REMEMBER_SIGNATURE = (
    "INSERT INTO signatures (signature, expires_at) VALUES (?, ?) "
    "ON CONFLICT (signature) DO UPDATE SET expires_at = excluded.expires_at "
    "WHERE signatures.expires_at < ?"
)

_KEEP_SIGNATURE = (
    "INSERT INTO signatures (signature, expires_at) VALUES (?, ?) "
    "ON CONFLICT (signature) DO UPDATE SET "
    "expires_at = max(signatures.expires_at, excluded.expires_at)"
)


def private_file(path: str) -> None:
    """Create ``path`` (and missing parents, 0700) as 0600, or tighten it to 0600."""
    missing = []
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.isdir(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    for directory in reversed(missing):
        os.makedirs(directory, mode=0o700, exist_ok=True)
        os.chmod(directory, 0o700)  # mkdir's mode is filtered by the umask
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    for suffix in ("-wal", "-shm", "-journal"):
        if os.path.exists(path + suffix):
            os.chmod(path + suffix, 0o600)


class SqliteStore(DeliveryStore):
    """Delivery ids and signatures in SQLite (WAL; one connection behind a lock)."""

    kind = "sqlite"
    errors = (sqlite3.Error,)

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        retention: float,
        timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> None:
        target = os.fspath(path)
        self._lock = threading.Lock()
        self._timeout = timeout
        on_disk = target != ":memory:" and not target.startswith("file:")
        if on_disk:
            private_file(target)
        # One connection behind a lock: correct for ":memory:" (which is per
        # connection) and plenty for a receiver's write rate; other processes
        # on the same file are serialised by SQLite's own locks.
        self._conn = sqlite3.connect(
            target, check_same_thread=False, isolation_level=None, timeout=timeout
        )
        if on_disk:
            _set_wal(self._conn)
            self._conn.execute("PRAGMA synchronous=NORMAL")
        with self._tx():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._conn.execute(statement)
            old = self._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'deliveries'"
            ).fetchone()
            if old is not None:
                self._conn.execute(_MIGRATE, (retention,))
                self._conn.execute("DROP TABLE deliveries")
        if on_disk:
            private_file(target)  # the -wal and -shm files exist now

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """This store's connection; waiting no longer than the timeout (a call hung on a
        locked file must not queue the others behind it)."""
        if not self._lock.acquire(timeout=self._timeout):
            raise sqlite3.OperationalError("database is locked (another call waited too long)")
        try:
            yield
        finally:
            self._lock.release()

    @contextmanager
    def _tx(self) -> Iterator[None]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def claim(
        self, claim: Claim, now: float | None, *, lease: float, tolerance: float
    ) -> ClaimOutcome:
        """Atomically claim a delivery id and its signature (one write transaction)."""
        t = time.time() if now is None else now
        sig = claim.signature
        with self._locked(), self._tx():
            row = self._conn.execute(_STATE, (claim.delivery_id, t)).fetchone()
            expiry = signature_expiry(claim.timestamp_ms, t, tolerance)
            if row is not None:
                # A copy's signature is remembered too: replayed under a new id, it is refused.
                self._conn.execute(_KEEP_SIGNATURE, (sig, expiry))
                return "duplicate" if row[0] == "processed" else "in_flight"
            if self._conn.execute(_REMEMBER_SIGNATURE, (sig, expiry, t)).rowcount != 1:
                return "replayed"
            self._conn.execute(
                "INSERT OR REPLACE INTO delivery_ids VALUES (?, 'claimed', ?, ?, ?, ?)",
                (claim.delivery_id, claim.token, t + lease, sig, claim.timestamp_ms),
            )
        return "new"

    def complete(
        self, claim: Claim, now: float | None, *, retention: float, tolerance: float
    ) -> bool:
        t = time.time() if now is None else now
        sig, ts = claim.signature, claim.timestamp_ms
        with self._locked(), self._tx():
            if claim.token is not None:
                row = self._conn.execute(
                    "SELECT state, token FROM delivery_ids WHERE delivery_id = ?",
                    (claim.delivery_id,),
                ).fetchone()
                if row is not None and tuple(row) != ("claimed", claim.token):
                    return False  # stale: another handler's claim, or processed already
            self._conn.execute(
                "INSERT OR REPLACE INTO delivery_ids VALUES (?, 'processed', NULL, ?, ?, ?)",
                (claim.delivery_id, t + retention, sig, ts),
            )
            self._conn.execute(_KEEP_SIGNATURE, (sig, signature_expiry(ts, t, tolerance)))
        return True

    def release(self, claim: Claim) -> bool:
        with self._locked():
            cur = self._conn.execute(
                "DELETE FROM delivery_ids WHERE delivery_id = ? AND state = 'claimed' "
                "AND (? IS NULL OR token = ?)",
                (claim.delivery_id, claim.token, claim.token),
            )
        return cur.rowcount == 1

    def state(self, delivery_id: str, now: float | None) -> EntryState | None:
        t = time.time() if now is None else now
        with self._locked():
            row = self._conn.execute(_STATE, (delivery_id, t)).fetchone()
        return entry_state(row[0] if row else None)

    def claim_signature(
        self, signature: str, timestamp_ms: int, now: float | None, *, tolerance: float
    ) -> bool:
        t = time.time() if now is None else now
        expiry = signature_expiry(timestamp_ms, t, tolerance)
        with self._locked(), self._tx():
            cur = self._conn.execute(_REMEMBER_SIGNATURE, (signature, expiry, t))
        return cur.rowcount == 1

    def prune(self, now: float | None) -> int:
        t = time.time() if now is None else now
        with self._locked(), self._tx():
            a = self._conn.execute("DELETE FROM delivery_ids WHERE expires_at < ?", (t,)).rowcount
            b = self._conn.execute("DELETE FROM signatures WHERE expires_at < ?", (t,)).rowcount
        return a + b

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _set_wal(conn: sqlite3.Connection, *, attempts: int = 100, pause: float = 0.05) -> None:
    """``PRAGMA journal_mode=WAL``, retried: two processes opening a new file at once race.

    Switching the journal mode needs an exclusive lock, and SQLite answers ``database is
    locked`` at once there rather than through the busy handler, so a second receiver
    starting beside the first would fail; it waits here instead (5 s at most).
    """
    for attempt in range(attempts):
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(pause)
