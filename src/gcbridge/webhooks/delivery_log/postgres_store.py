# ruff: noqa: S608  (queries join constant fragments only; every value is a bound parameter)
"""The PostgreSQL backend (psycopg 3): receivers on several machines share one table pair.

A claim is one ``INSERT ... ON CONFLICT`` statement (one round trip), so two
instances claiming one delivery id at once are ordered by the database: one
wins, the other sees its live claim. Without an injected clock every expiry is
computed and pruned with the database's clock (``now()``, the statement's
transaction start), so instances whose clocks drift still agree on leases and
windows.

Tables: ``gcbridge_delivery_ids`` and ``gcbridge_signatures``, created on first
use (under an advisory lock: instances starting together do not race).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from gcbridge.webhooks.delivery_log.base import ClaimOutcome, DeliveryStore, EntryState
from gcbridge.webhooks.errors import DeliveryLogConfigError

if TYPE_CHECKING:
    import psycopg

__all__ = ["PostgresStore", "load_psycopg"]

_NOW = "COALESCE(%(now)s::float8, extract(epoch FROM now())::float8)"
_SIG_EXPIRY = f"GREATEST(%(ts)s::float8 / 1000.0, {_NOW}) + %(tolerance)s::float8"

_SCHEMA = [
    "SELECT pg_advisory_xact_lock(7220451061)",
    """CREATE TABLE IF NOT EXISTS gcbridge_delivery_ids (
        delivery_id text PRIMARY KEY,
        state text NOT NULL,
        token text,
        expires_at double precision NOT NULL,
        signature text NOT NULL,
        timestamp_ms bigint NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS gcbridge_signatures (
        signature text PRIMARY KEY,
        expires_at double precision NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS gcbridge_delivery_ids_expires_at "
    "ON gcbridge_delivery_ids (expires_at)",
    "CREATE INDEX IF NOT EXISTS gcbridge_signatures_expires_at ON gcbridge_signatures (expires_at)",
]

_CLAIM_SIGNATURE = f"""
INSERT INTO gcbridge_signatures AS s VALUES (%(sig)s, {_SIG_EXPIRY})
ON CONFLICT (signature) DO UPDATE SET expires_at = EXCLUDED.expires_at
    WHERE s.expires_at < {_NOW}
RETURNING 1"""

# One statement, one round trip: the signature first (fresh or expired), then the
# id (new or with an expired entry) only if the signature was fresh. Concurrent
# claims of one id or one signature wait on the row and then see the winner's.
_CLAIM = f"""
WITH sig AS ({_CLAIM_SIGNATURE}),
ids AS (
    INSERT INTO gcbridge_delivery_ids AS d
    SELECT %(id)s, 'claimed', %(token)s, {_NOW} + %(lease)s::float8, %(sig)s, %(ts)s::bigint
    WHERE EXISTS (SELECT 1 FROM sig)
    ON CONFLICT (delivery_id) DO UPDATE SET
        state = 'claimed', token = EXCLUDED.token, expires_at = EXCLUDED.expires_at,
        signature = EXCLUDED.signature, timestamp_ms = EXCLUDED.timestamp_ms
        WHERE d.expires_at < {_NOW}
    RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM sig), EXISTS (SELECT 1 FROM ids)"""

_STATE = f"""
SELECT state FROM gcbridge_delivery_ids WHERE delivery_id = %(id)s AND expires_at >= {_NOW}"""

_KEEP_SIGNATURE = f"""
INSERT INTO gcbridge_signatures AS s VALUES (%(sig)s, {_SIG_EXPIRY})
ON CONFLICT (signature) DO UPDATE SET expires_at = GREATEST(s.expires_at, EXCLUDED.expires_at)"""

_COMPLETE = f"""
WITH ids AS (
    INSERT INTO gcbridge_delivery_ids AS d
        VALUES (%(id)s, 'processed', NULL, {_NOW} + %(retention)s::float8, %(sig)s, %(ts)s)
    ON CONFLICT (delivery_id) DO UPDATE SET
        state = 'processed', token = NULL, expires_at = EXCLUDED.expires_at
){_KEEP_SIGNATURE}"""


def load_psycopg() -> Any:
    """The psycopg module, or a clear error naming the extra to install."""
    try:
        import psycopg
    except ImportError:
        raise DeliveryLogConfigError(
            'a PostgreSQL delivery log needs psycopg 3: pip install "gc-bridge[postgres]"',
            reason="missing_extra",
        ) from None
    return psycopg


class PostgresStore(DeliveryStore):
    """Delivery ids and signatures in PostgreSQL, one connection per log, reconnecting."""

    kind = "postgresql"

    def __init__(self, url: str, *, connect_timeout: float = 5.0) -> None:
        self._psycopg = load_psycopg()
        self.errors = (self._psycopg.Error,)
        self._url = url
        self._connect_timeout = connect_timeout
        self._lock = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None
        with self._lock:
            self._connection()  # fail early on a wrong URL; later outages reconnect

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            conn = self._psycopg.connect(
                self._url, autocommit=True, connect_timeout=max(1, int(self._connect_timeout))
            )
            with conn.transaction():
                for statement in _SCHEMA:
                    conn.execute(statement)
            self._conn = conn
        return self._conn

    def _run(self, fn: Any) -> Any:
        with self._lock:
            try:
                return fn(self._connection())
            except self._psycopg.OperationalError:
                self._drop()
                raise
            except self._psycopg.InterfaceError:
                self._drop()
                raise

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    def claim(
        self,
        delivery_id: str,
        token: str,
        signature: str,
        timestamp_ms: int,
        now: float | None,
        *,
        lease: float,
        tolerance: float,
    ) -> ClaimOutcome:
        """Claim the id (new, or expired) and then its signature, in one transaction."""
        params = {
            "id": delivery_id,
            "token": token,
            "sig": signature,
            "ts": int(timestamp_ms),
            "now": now,
            "lease": lease,
            "tolerance": tolerance,
        }

        def run(conn: psycopg.Connection[Any]) -> ClaimOutcome:
            fresh_signature, claimed = conn.execute(_CLAIM, params).fetchone() or (False, False)
            if claimed:
                return "new"
            row = conn.execute(_STATE, params).fetchone()
            if row is not None:
                if not fresh_signature:  # a copy's signature is remembered too
                    conn.execute(_KEEP_SIGNATURE, params)
                return "duplicate" if row[0] == "processed" else "in_flight"
            # No live id: the signature was taken (a replay), or the live claim we
            # met was released just now (retry later).
            return "in_flight" if fresh_signature else "replayed"

        outcome: ClaimOutcome = self._run(run)
        return outcome

    def complete(
        self,
        delivery_id: str,
        signature: str,
        timestamp_ms: int,
        now: float | None,
        *,
        retention: float,
        tolerance: float,
    ) -> None:
        """Mark processed for the retention; remember the signature."""
        params = {
            "id": delivery_id,
            "sig": signature,
            "ts": int(timestamp_ms),
            "now": now,
            "retention": retention,
            "tolerance": tolerance,
        }

        self._run(lambda conn: conn.execute(_COMPLETE, params))

    def release(self, delivery_id: str, token: str | None) -> bool:
        """Drop a claim (``token``'s only, if given)."""
        sql = (
            "DELETE FROM gcbridge_delivery_ids WHERE delivery_id = %(id)s "
            "AND state = 'claimed' AND (%(token)s::text IS NULL OR token = %(token)s) RETURNING 1"
        )
        params = {"id": delivery_id, "token": token}
        return bool(self._run(lambda conn: conn.execute(sql, params).fetchone() is not None))

    def state(self, delivery_id: str, now: float | None) -> EntryState | None:
        """``processed``, ``in_flight`` or ``None``."""
        row = self._run(lambda c: c.execute(_STATE, {"id": delivery_id, "now": now}).fetchone())
        if row is None:
            return None
        return "processed" if row[0] == "processed" else "in_flight"

    def claim_signature(
        self, signature: str, timestamp_ms: int, now: float | None, *, tolerance: float
    ) -> bool:
        """Remember a signature unless alive."""
        params = {"sig": signature, "ts": int(timestamp_ms), "now": now, "tolerance": tolerance}
        return bool(self._run(lambda c: c.execute(_CLAIM_SIGNATURE, params).fetchone()))

    def signature_seen(self, signature: str, now: float | None) -> bool:
        """Whether the signature is alive."""
        sql = (
            f"SELECT 1 FROM gcbridge_signatures WHERE signature = %(sig)s AND expires_at >= {_NOW}"
        )
        params = {"sig": signature, "now": now}
        return bool(self._run(lambda c: c.execute(sql, params).fetchone()))

    def prune(self, now: float | None) -> int:
        """Delete expired entries, by the database clock unless a clock was injected."""

        def run(conn: psycopg.Connection[Any]) -> int:
            total = 0
            with conn.transaction():
                for table in ("gcbridge_delivery_ids", "gcbridge_signatures"):
                    cur = conn.execute(
                        f"DELETE FROM {table} WHERE expires_at < {_NOW}", {"now": now}
                    )
                    total += cur.rowcount
            return total

        return int(self._run(run))

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._drop()
