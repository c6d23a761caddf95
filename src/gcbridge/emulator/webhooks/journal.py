"""The webhook configuration and the delivery journal (the ``calls`` table), as database rows."""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gcbridge.clock import utc_iso
from gcbridge.emulator.db import first_row, new_id
from gcbridge.emulator.sites import Site
from gcbridge.webhooks.catalog import EVENT_TYPES

__all__ = [
    "CALL_STATUSES",
    "WebhookConfig",
    "new_secret",
    "get_config",
    "save_config",
    "disable_config",
    "config_json",
    "enqueue_event",
    "insert_call",
    "get_call",
    "latest_replay",
    "call_json",
    "list_calls",
]

CALL_STATUSES: tuple[str, ...] = ("pending", "succeeded", "failed")
"""The states of a call (docs/explanation/service.md#webhooks)."""


@dataclass(frozen=True)
class WebhookConfig:
    """The one webhook endpoint of a site."""

    website_id: str
    url: str
    events: tuple[str, ...]
    secret: str
    enabled: bool
    created_at: float
    updated_at: float

    def __repr__(self) -> str:  # the secret never reaches a log line
        return (
            f"WebhookConfig(website_id={self.website_id!r}, url={self.url!r}, "
            f"events={self.events!r}, enabled={self.enabled!r})"
        )


def new_secret() -> str:
    """A fresh webhook signing secret (256 random bits, hex)."""
    return secrets.token_hex(32)


def get_config(conn: sqlite3.Connection, website_id: str) -> WebhookConfig | None:
    """The webhook configuration of ``website_id``, if it was ever set up."""
    row = first_row(conn, "SELECT * FROM webhook_configs WHERE website_id = ?", (website_id,))
    if row is None:
        return None
    return WebhookConfig(
        website_id=row["website_id"],
        url=row["url"],
        events=tuple(json.loads(row["events"])),
        secret=row["secret"],
        enabled=bool(row["enabled"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def save_config(
    conn: sqlite3.Connection, *, website_id: str, url: str, events: tuple[str, ...], now: float
) -> WebhookConfig:
    """Replace the site's configuration (enabled, with a new secret); one endpoint per site."""
    conn.execute(
        """
        INSERT INTO webhook_configs
            (website_id, url, events, secret, enabled, created_at, updated_at)
        VALUES (?, ?, ?, ?, 1, ?, ?)
        ON CONFLICT (website_id) DO UPDATE
            SET url = excluded.url, events = excluded.events, secret = excluded.secret,
                enabled = 1, updated_at = excluded.updated_at
        """,
        (website_id, url, json.dumps(list(events)), new_secret(), now, now),
    )
    config = get_config(conn, website_id)
    assert config is not None
    return config


def disable_config(conn: sqlite3.Connection, website_id: str, now: float) -> WebhookConfig | None:
    """Turn the site's webhook off (idempotent); ``None`` if it was never set up.

    Calls still waiting for a retry fail with error ``webhook_disabled`` (a replay
    after a new setup delivers them); an attempt already in flight completes.
    """
    conn.execute(
        "UPDATE calls SET status = 'failed', next_attempt_at = NULL, error = 'webhook_disabled'"
        " WHERE website_id = ? AND status = 'pending'",
        (website_id,),
    )
    conn.execute(
        "UPDATE webhook_configs SET enabled = 0, updated_at = ?"
        " WHERE website_id = ? AND enabled = 1",
        (now, website_id),
    )
    return get_config(conn, website_id)


def config_json(config: WebhookConfig) -> dict[str, Any]:
    """The answer of setup and config: url, events, secret, enabled and dates."""
    return {
        "website_id": config.website_id,
        "url": config.url,
        "events": list(config.events),
        "secret": config.secret,
        "enabled": config.enabled,
        "created_at": utc_iso(config.created_at),
        "updated_at": utc_iso(config.updated_at),
    }


def insert_call(
    conn: sqlite3.Connection,
    *,
    website_id: str,
    event_type: str,
    url: str,
    body: bytes,
    now: float,
    replay_of: str | None = None,
) -> str:
    """A new pending call, due now, with a fresh id and delivery id; returns its id."""
    call_id = new_id()
    delivery_id = "dlv_" + secrets.token_hex(16)
    seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM calls").fetchone()[0]
    conn.execute(
        """
        INSERT INTO calls (id, seq, website_id, delivery_id, event_type, url, body, status,
                           retry_count, created_at, next_attempt_at, replay_of)
        VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)
        """,
        (call_id, seq, website_id, delivery_id, event_type, url, body, now, now, replay_of),
    )
    return call_id


def enqueue_event(
    conn: sqlite3.Connection,
    *,
    site: Site,
    event_type: str,
    body: Callable[[int], bytes],
    now: float,
) -> str | None:
    """Queue ``event_type`` if the site's enabled webhook subscribes to it.

    Returns the new call id, or ``None`` when the webhook is missing, disabled or
    not subscribed (events while disabled are dropped, not queued). ``body(timestamp_ms)``
    builds the delivery body, called here once and only when the event is
    queued, so every attempt sends the same bytes. The caller (the comments part)
    knows what a comment looks like; the journal does not.
    """
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type!r}")
    config = get_config(conn, site.website_id)
    if config is None or not config.enabled or event_type not in config.events:
        return None
    return insert_call(
        conn,
        website_id=site.website_id,
        event_type=event_type,
        url=config.url,
        body=body(int(now * 1000)),
        now=now,
    )


def get_call(conn: sqlite3.Connection, call_id: str) -> sqlite3.Row | None:
    """The calls row ``call_id``."""
    return first_row(conn, "SELECT * FROM calls WHERE id = ?", (call_id,))


def latest_replay(conn: sqlite3.Connection, call: sqlite3.Row) -> sqlite3.Row:
    """The end of ``call``'s replay chain: its replay's replay ... (``call`` if never replayed)."""
    latest = call
    for _ in range(10_000):  # a chain is as long as failed replays; bounded all the same
        child: sqlite3.Row | None = conn.execute(
            "SELECT * FROM calls WHERE replay_of = ? ORDER BY seq DESC LIMIT 1", (latest["id"],)
        ).fetchone()
        if child is None:
            break
        latest = child
    return latest


def _iso(ts: float | None) -> str | None:
    return None if ts is None else utc_iso(ts)


def _attempt_json(row: sqlite3.Row) -> dict[str, Any]:
    # Committed before the request leaves; a crash leaves it NULL until recovery.
    in_flight = row["duration_ms"] is None and row["error"] is None
    return {
        "number": row["number"],
        "started_at": utc_iso(row["started_at"]),
        "duration_ms": row["duration_ms"],
        "in_flight": in_flight,
        "response_code": row["response_code"],
        "error": row["error"],
        "location": row["location"],
        "response_body": row["response_body"],
        "request_headers": json.loads(row["request_headers"]),
    }


def call_json(conn: sqlite3.Connection, row: sqlite3.Row) -> dict[str, Any]:
    """A call as the API shows it, with every attempt (oldest first)."""
    attempts = conn.execute(
        "SELECT * FROM attempts WHERE call_id = ? ORDER BY number", (row["id"],)
    ).fetchall()
    return {
        "id": row["id"],
        "website_id": row["website_id"],
        "delivery_id": row["delivery_id"],
        "event_type": row["event_type"],
        "url": row["url"],
        "status": row["status"],
        "response_code": row["response_code"],
        "retry_count": row["retry_count"],
        "created_at": utc_iso(row["created_at"]),
        "next_attempt_at": _iso(row["next_attempt_at"]) if row["status"] == "pending" else None,
        "first_sent_at": _iso(row["first_sent_at"]),
        "replay_of": row["replay_of"],
        "error": row["error"],
        "body": bytes(row["body"]).decode("utf-8", "replace"),
        "attempts": [_attempt_json(a) for a in attempts],
    }


def list_calls(
    conn: sqlite3.Connection,
    website_id: str,
    *,
    limit: int,
    status: str | None = None,
    event_type: str | None = None,
    before_seq: int | None = None,
) -> tuple[list[dict[str, Any]], int | None]:
    """Newest calls first; returns the page and the ``seq`` to continue before (or ``None``)."""
    filters = {"status = ?": status, "event_type = ?": event_type, "seq < ?": before_seq}
    where = {"website_id = ?": website_id, **{k: v for k, v in filters.items() if v is not None}}
    rows = conn.execute(
        f"SELECT * FROM calls WHERE {' AND '.join(where)} ORDER BY seq DESC LIMIT ?",  # noqa: S608
        (*where.values(), limit + 1),
    ).fetchall()
    page = rows[:limit]
    next_seq = page[-1]["seq"] if len(rows) > limit else None
    return [call_json(conn, r) for r in page], next_seq
