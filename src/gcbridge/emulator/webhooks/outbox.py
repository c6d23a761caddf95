"""The dispatcher's rows: which calls are due, and what one attempt writes to the journal."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from typing import Any

from gcbridge.emulator.webhooks.attempt import AttemptResult

__all__ = [
    "INTERRUPTED",
    "due_candidates",
    "next_due",
    "attempts_made",
    "begin_attempt",
    "complete_attempt",
    "record_unsent",
    "record_error",
    "finish_call",
    "mark_interrupted",
]

INTERRUPTED = "interrupted"
"""The error of an attempt cut by a crash (it does not count against the schedule)."""


def _exclusion(exclude: Collection[str]) -> tuple[str, list[str]]:
    ids = list(exclude)
    if not ids:
        return "", []
    return f" AND id NOT IN ({','.join('?' * len(ids))})", ids


def due_candidates(
    conn: sqlite3.Connection, now: float, per_site: int, exclude: Collection[str]
) -> list[tuple[str, str, str | None]]:
    """``(call id, website_id, configured url)`` of due calls, round-robin by site.

    At most ``per_site`` calls of each site, ordered by their rank within the
    site first (every site's oldest due call, then every site's second, ...), so
    one site's backlog never sits in front of another site's call.
    """
    extra, ids = _exclusion(exclude)
    rows = conn.execute(
        "SELECT id, website_id, url FROM ("  # noqa: S608
        " SELECT c.id, c.website_id, w.url, c.next_attempt_at, c.seq,"
        "  ROW_NUMBER() OVER (PARTITION BY c.website_id ORDER BY c.next_attempt_at, c.seq) AS rank"
        " FROM calls c LEFT JOIN webhook_configs w ON w.website_id = c.website_id"
        " WHERE c.status = 'pending' AND c.next_attempt_at <= ?"
        + extra.replace("id NOT IN", "c.id NOT IN")
        + ") WHERE rank <= ? ORDER BY rank, next_attempt_at, seq",
        (now, *ids, per_site),
    ).fetchall()
    return [(r["id"], r["website_id"], r["url"]) for r in rows]


def next_due(
    conn: sqlite3.Connection, exclude: Collection[str], sites: Collection[str] = ()
) -> float | None:
    """The earliest ``next_attempt_at`` of the pending calls not in ``exclude``.

    Calls of the ``sites`` given are left out too (their receiver is at its cap:
    a finishing attempt wakes the dispatcher for them).
    """
    extra, ids = _exclusion(exclude)
    site_ids = list(sites)
    if site_ids:
        extra += f" AND website_id NOT IN ({','.join('?' * len(site_ids))})"
    row = conn.execute(
        "SELECT MIN(next_attempt_at) FROM calls WHERE status = 'pending'" + extra,  # noqa: S608
        (*ids, *site_ids),
    ).fetchone()
    return None if row[0] is None else float(row[0])


def attempts_made(conn: sqlite3.Connection, call_id: str) -> tuple[int, int]:
    """(attempts made, attempts that count against the schedule)."""
    row = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(error IS NULL OR error != ?), 0) FROM attempts "
        "WHERE call_id = ?",
        (INTERRUPTED, call_id),
    ).fetchone()
    return int(row[0]), int(row[1])


def begin_attempt(
    conn: sqlite3.Connection,
    call_id: str,
    number: int,
    started: float,
    headers: dict[str, str],
    url: str,
) -> int:
    """Write attempt ``number`` as in flight (duration NULL); returns its row id."""
    cur = conn.execute(
        "INSERT INTO attempts (call_id, number, started_at, request_headers) VALUES (?, ?, ?, ?)",
        (call_id, number, started, json.dumps(headers)),
    )
    conn.execute(
        "UPDATE calls SET first_sent_at = COALESCE(first_sent_at, ?), url = ? WHERE id = ?",
        (started, url, call_id),
    )
    assert cur.lastrowid is not None
    return cur.lastrowid


def complete_attempt(conn: sqlite3.Connection, attempt_id: int, result: AttemptResult) -> None:
    """Record what the attempt got (it is no longer in flight)."""
    conn.execute(
        "UPDATE attempts SET duration_ms = ?, response_code = ?, error = ?, location = ?, "
        "response_body = ? WHERE id = ?",
        (result.duration_ms, result.status, result.error, result.location, result.body, attempt_id),
    )


def record_unsent(
    conn: sqlite3.Connection, call_id: str, number: int, now: float, error: str
) -> None:
    """An attempt that sent nothing (refused receiver, DNS failure)."""
    conn.execute(
        "INSERT INTO attempts (call_id, number, started_at, duration_ms, error, "
        "request_headers) VALUES (?, ?, ?, 0, ?, '{}')",
        (call_id, number, now, error),
    )


def record_error(conn: sqlite3.Connection, call_id: str, now: float, error: str) -> None:
    """An attempt that broke on our side: its row (in flight or new) gets ``error``; the call fails.

    The error is on an attempt, so the journal shows what happened; the call is
    failed (no retry: the same input would break the same way), a replay retries it.
    """
    row = conn.execute(
        "SELECT id FROM attempts WHERE call_id = ? AND duration_ms IS NULL AND error IS NULL",
        (call_id,),
    ).fetchone()
    if row is not None:
        conn.execute(
            "UPDATE attempts SET duration_ms = 0, error = ? WHERE id = ?", (error, row["id"])
        )
    else:
        number = conn.execute(
            "SELECT COUNT(*) FROM attempts WHERE call_id = ?", (call_id,)
        ).fetchone()[0]
        record_unsent(conn, call_id, int(number), now, error)
    conn.execute(
        "UPDATE calls SET status = 'failed', next_attempt_at = NULL, error = ? "
        "WHERE id = ? AND status = 'pending'",
        (error, call_id),
    )


def finish_call(
    conn: sqlite3.Connection,
    call_id: str,
    status: str,
    response_code: int | None,
    next_at: float | None,
    error: str | None,
    *,
    url: str | None = None,
    retries: int | None = None,
) -> None:
    """Move the call on: pending again (due at ``next_at``), succeeded or failed."""
    fields: dict[str, Any] = {
        "status": status,
        "response_code": response_code,
        "next_attempt_at": next_at if status == "pending" else None,
        "error": error,
    }
    fields.update({k: v for k, v in {"url": url, "retry_count": retries}.items() if v is not None})
    sets = ", ".join(f"{k} = ?" for k in fields)
    conn.execute(f"UPDATE calls SET {sets} WHERE id = ?", (*fields.values(), call_id))  # noqa: S608


def mark_interrupted(conn: sqlite3.Connection, now: float) -> int:
    """Attempts left in flight by a crash become ``interrupted``, their calls due at ``now``."""
    rows = conn.execute(
        "SELECT id, call_id FROM attempts WHERE duration_ms IS NULL AND error IS NULL"
    ).fetchall()
    for row in rows:
        conn.execute("UPDATE attempts SET error = ? WHERE id = ?", (INTERRUPTED, row["id"]))
        conn.execute(
            "UPDATE calls SET next_attempt_at = ? WHERE id = ? AND status = 'pending'",
            (now, row["call_id"]),
        )
    return len(rows)
