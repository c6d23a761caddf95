# ruff: noqa: S608  (queries join constant fragments only; every value is a bound parameter)
"""The PostgreSQL backend (psycopg 3): receivers on several machines share one table pair.

A claim is one ``INSERT ... ON CONFLICT`` statement (one round trip), so two
instances claiming one delivery id at once are ordered by the database: one
wins, the other sees its live claim. Without an injected clock every expiry is
computed and pruned with the database's clock (``now()``, the statement's
transaction start), so instances whose clocks drift still agree on leases and
windows.

Tables: ``gcbridge_delivery_ids`` and ``gcbridge_signatures``
(:mod:`~gcbridge.webhooks.delivery_log.postgres_schema`): checked when the log
opens, created there once if missing and allowed, never on a reconnect.

Every call is bounded: by the server's and TCP's own timeouts, and by a client-side
deadline and breaker (:mod:`~gcbridge.webhooks.delivery_log.deadline`). The pool's lock is
never held across a call, so one hung call does not queue the others. A deadlock (or a
serialization failure) is retried on the same connection: it is not a lost connection.
"""

from __future__ import annotations

import contextlib
import math
import secrets
import threading
import time
from typing import TYPE_CHECKING, Any

from gcbridge.webhooks.delivery_log.base import (
    DEFAULT_TIMEOUT,
    ClaimOutcome,
    DeliveryStore,
    EntryState,
    entry_state,
    load_driver,
)
from gcbridge.webhooks.delivery_log.claims import Claim
from gcbridge.webhooks.delivery_log.deadline import Breaker, TimedOut, Watchdog
from gcbridge.webhooks.delivery_log.postgres_schema import ensure_schema

if TYPE_CHECKING:
    import psycopg

__all__ = ["PostgresStore", "load_psycopg", "DEFAULT_TIMEOUT"]

_CLIENT_MARGIN = 1.0  # the server's own timeouts fire first while it still answers
_DEADLOCK_RETRIES = 3
_RETRYABLE = ("40P01", "40001")  # deadlock, serialization failure: the transaction may run again

_NOW = "COALESCE(%(now)s::float8, extract(epoch FROM now())::float8)"
_SIG_EXPIRY = f"GREATEST(%(ts)s::float8 / 1000.0, {_NOW}) + %(tolerance)s::float8"

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

# With a token, only that token's claim (live or expired) or an unknown id becomes
# processed: a stale completion touches nothing.
_COMPLETE = f"""
WITH ids AS (
    INSERT INTO gcbridge_delivery_ids AS d
        VALUES (%(id)s, 'processed', NULL, {_NOW} + %(retention)s::float8, %(sig)s, %(ts)s)
    ON CONFLICT (delivery_id) DO UPDATE SET
        state = 'processed', token = NULL, expires_at = EXCLUDED.expires_at
        WHERE %(token)s::text IS NULL OR (d.state = 'claimed' AND d.token = %(token)s::text)
    RETURNING 1
), sig AS (
    INSERT INTO gcbridge_signatures AS s SELECT %(sig)s, {_SIG_EXPIRY}
    WHERE EXISTS (SELECT 1 FROM ids)
    ON CONFLICT (signature) DO UPDATE SET expires_at = GREATEST(s.expires_at, EXCLUDED.expires_at)
)
SELECT EXISTS (SELECT 1 FROM ids)"""


def load_psycopg() -> Any:
    """The psycopg module, or a clear error naming the extra to install."""
    return load_driver(
        "psycopg", 'a PostgreSQL delivery log needs psycopg 3: pip install "gc-bridge[postgres]"'
    )


def _claim_params(claim: Claim, now: float | None, **more: float) -> dict[str, Any]:
    fields = {"id": claim.delivery_id, "token": claim.token, "sig": claim.signature}
    return {**fields, "ts": claim.timestamp_ms, "now": now, **more}


class PostgresStore(DeliveryStore):
    """Delivery ids and signatures in PostgreSQL: a small connection pool, every call bounded."""

    kind = "postgresql"

    def __init__(
        self,
        url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_connections: int = 4,
        create_schema: bool = True,
    ) -> None:
        if timeout <= 0 or max_connections < 1:
            raise ValueError("timeout must be positive and max_connections at least 1")
        self._psycopg = load_psycopg()
        self.errors = (self._psycopg.Error, TimedOut)
        self.timeout = float(timeout)
        self._params = _connection_params(self._psycopg, url, self.timeout)
        self._connect_timeout = int(
            self._params.get("connect_timeout") or max(2, math.ceil(self.timeout))
        )
        self._max = max_connections
        self._create = create_schema
        self._cond = threading.Condition()
        self._idle: list[psycopg.Connection[Any]] = []
        self._open = 0
        self._watchdog = Watchdog()
        self._breaker = Breaker(retry_interval=min(1.0, self.timeout))
        # Fail early on a wrong URL, a missing schema or privilege; later outages reconnect.
        conn = self._connect(time.monotonic() + self.timeout)
        try:
            with self._watchdog.guard(conn.pgconn.socket, time.monotonic() + self.timeout + 1):
                ensure_schema(conn, create=create_schema, psycopg=self._psycopg)
        except BaseException:
            conn.close()
            raise
        with self._cond:
            self._open += 1
            self._idle.append(conn)

    def _connect(self, deadline: float) -> psycopg.Connection[Any]:
        left = max(1, math.ceil(deadline - time.monotonic()))
        params = {**self._params, "connect_timeout": str(min(left, self._connect_timeout))}
        conn: psycopg.Connection[Any] = self._psycopg.connect(autocommit=True, **params)
        return conn

    def _acquire(self, deadline: float) -> psycopg.Connection[Any] | None:
        """An idle connection, or ``None`` when this call may open a new one."""
        with self._cond:
            while True:
                if self._idle:
                    return self._idle.pop()
                if self._open < self._max:
                    self._open += 1
                    return None
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimedOut("no delivery log connection became free in time")
                self._cond.wait(left)

    def _give_back(self, conn: psycopg.Connection[Any] | None) -> None:
        with self._cond:
            if conn is not None and not conn.closed and not conn.broken:
                self._idle.append(conn)
            else:
                self._open -= 1
                if conn is not None:
                    _close_quietly(conn)
            self._cond.notify()

    def _drop_idle(self) -> None:
        """Close the idle connections (after a hang: they lead to the same server)."""
        with self._cond:
            idle, self._idle = self._idle, []
            self._open -= len(idle)
            self._cond.notify_all()
        for conn in idle:
            _close_quietly(conn)

    def _run(self, fn: Any) -> Any:
        """``fn(conn)`` within the deadline; deadlocks retried; a hung server trips the breaker."""
        if not self._breaker.allow():
            raise TimedOut("the delivery log did not answer lately; not retried yet")
        deadline = time.monotonic() + self.timeout + _CLIENT_MARGIN
        conn = self._acquire(deadline)
        try:
            if conn is None:
                conn = self._connect(deadline)
            for attempt in range(_DEADLOCK_RETRIES + 1):
                with self._watchdog.guard(conn.pgconn.socket, deadline) as fired:
                    try:
                        result = fn(conn)
                    except self._psycopg.Error as exc:
                        if fired():
                            raise TimedOut("the delivery log did not answer in time") from exc
                        if _sqlstate(exc) in _RETRYABLE and attempt < _DEADLOCK_RETRIES:
                            time.sleep(0.01 * (attempt + 1) * (1 + secrets.randbelow(100) / 100))
                            continue
                        if _sqlstate(exc) == "42P01" and attempt < _DEADLOCK_RETRIES:
                            # The tables went away (a database restored empty): set the
                            # schema up again, once, as when the log opened.
                            ensure_schema(conn, create=self._create, psycopg=self._psycopg)
                            continue
                        raise
                self._breaker.reset()
                return result
        except (TimedOut, self._psycopg.OperationalError) as exc:
            if isinstance(exc, (TimedOut, self._psycopg.errors.ConnectionTimeout)):
                self._breaker.trip()  # a server that hangs: fail fast for a while
            if isinstance(exc, TimedOut) or conn is None or conn.broken or conn.closed:
                self._drop_idle()  # the other connections lead to the same server
            raise
        finally:
            self._give_back(conn)

    def claim(
        self, claim: Claim, now: float | None, *, lease: float, tolerance: float
    ) -> ClaimOutcome:
        """Claim the id (new, or expired) and then its signature, in one transaction."""
        params = _claim_params(claim, now, lease=lease, tolerance=tolerance)

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
        self, claim: Claim, now: float | None, *, retention: float, tolerance: float
    ) -> bool:
        params = _claim_params(claim, now, retention=retention, tolerance=tolerance)
        row = self._run(lambda conn: conn.execute(_COMPLETE, params).fetchone())
        return bool(row and row[0])

    def release(self, claim: Claim) -> bool:
        sql = (
            "DELETE FROM gcbridge_delivery_ids WHERE delivery_id = %(id)s "
            "AND state = 'claimed' AND (%(token)s::text IS NULL OR token = %(token)s) RETURNING 1"
        )
        params = _claim_params(claim, None)
        return bool(self._run(lambda conn: conn.execute(sql, params).fetchone() is not None))

    def state(self, delivery_id: str, now: float | None) -> EntryState | None:
        row = self._run(lambda c: c.execute(_STATE, {"id": delivery_id, "now": now}).fetchone())
        return entry_state(row[0] if row else None)

    def claim_signature(
        self, signature: str, timestamp_ms: int, now: float | None, *, tolerance: float
    ) -> bool:
        params = {"sig": signature, "ts": int(timestamp_ms), "now": now, "tolerance": tolerance}
        return bool(self._run(lambda c: c.execute(_CLAIM_SIGNATURE, params).fetchone()))

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
        self._drop_idle()
        self._watchdog.close()


def _sqlstate(exc: Exception) -> str | None:
    return getattr(exc, "sqlstate", None)


def _close_quietly(conn: Any) -> None:
    with contextlib.suppress(Exception):
        conn.close()


def _connection_params(psycopg: Any, url: str, timeout: float) -> dict[str, Any]:
    """The URL's parameters, with bounds added where the URL sets none."""
    params: dict[str, Any] = dict(psycopg.conninfo.conninfo_to_dict(url))
    ms = str(max(1, int(timeout * 1000)))
    defaults = {
        "keepalives": "1",
        "keepalives_idle": str(max(1, math.ceil(timeout))),
        "keepalives_interval": "1",
        "keepalives_count": "3",
        "tcp_user_timeout": ms,  # unacknowledged data: the peer is gone
        "application_name": "gcbridge-delivery-log",
    }
    for key, value in defaults.items():
        params.setdefault(key, value)
    # Server-side bounds the URL's own options do not set already.
    bounds = {
        "statement_timeout": ms,
        "lock_timeout": ms,
        "idle_in_transaction_session_timeout": str(max(1000, 2 * int(ms))),
    }
    given = str(params.get("options") or "")
    added = " ".join(f"-c {name}={value}" for name, value in bounds.items() if name not in given)
    params["options"] = " ".join(part for part in (given, added) if part)
    return params
