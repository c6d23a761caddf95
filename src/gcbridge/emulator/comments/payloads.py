"""The webhook body's JSON (docs/reference/wire-formats.md#webhook-deliveries), from database rows.

One place builds ``data.comment`` and ``data.thread`` so that the widget API
(``/api/pub/comments``) and the webhook body carry the same objects, except that
the widget API, open to anyone, never shows an author's e-mail (:func:`public_comment`).
``event_body`` returns the bytes that are stored in the outbox and sent, signed,
on every attempt: they are produced once, at enqueue time, in the transaction of
the comment change, so a later edit never alters an already queued event.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from gcbridge.clock import utc_iso
from gcbridge.emulator.auth.users import author_json

__all__ = [
    "comment_json",
    "public_comment",
    "comment_row_json",
    "event_body",
    "thread_comments_json",
    "thread_json",
]

_COMMENT_QUERY = """
SELECT c.id, c.external_id, c.content, c.created_at, c.updated_at, c.thread_id, c.parent_id,
       c.status,
       t.uid AS thread_uid, p.external_id AS parent_external_id,
       u.id AS author_id, u.external_id AS author_external_id, u.guest AS author_guest,
       u.name AS author_name, u.email AS author_email, u.avatar AS author_avatar,
       a.name AS attachment_name, a.type AS attachment_type, a.size AS attachment_size
FROM comments c
JOIN threads t ON t.id = c.thread_id
JOIN users u ON u.id = c.author_id
LEFT JOIN comments p ON p.id = c.parent_id
LEFT JOIN attachments a ON a.comment_id = c.id
"""


def comment_row_json(row: sqlite3.Row) -> dict[str, Any]:
    """``data.comment`` from one row of the joined comment query.

    A comment that carries an attachment (the widget's file input) has ``attachment``:
    ``{"name", "type", "size"}``; any other has no such key: the body of
    docs/reference/wire-formats.md#webhook-deliveries, unchanged.
    """
    comment = {
        "id": row["id"],
        "external_id": row["external_id"],
        "content": row["content"],
        "created_at": utc_iso(row["created_at"]),
        "updated_at": utc_iso(row["updated_at"]),
        "thread_id": row["thread_id"],
        "external_thread_id": row["thread_uid"],
        "parent_id": row["parent_id"],
        "external_parent_id": row["parent_external_id"],
        "status": row["status"],
        "author": author_json(row, "author_"),
    }
    if row["attachment_name"] is not None:
        comment["attachment"] = {
            "name": row["attachment_name"],
            "type": row["attachment_type"],
            "size": row["attachment_size"],
        }
    return comment


def comment_json(conn: sqlite3.Connection, comment_id: str) -> dict[str, Any]:
    """The body's ``data.comment`` for ``comment_id``; ``KeyError`` if there is none."""
    row = conn.execute(_COMMENT_QUERY + "WHERE c.id = ?", (comment_id,)).fetchone()
    if row is None:
        raise KeyError(comment_id)
    return comment_row_json(row)


def thread_comments_json(conn: sqlite3.Connection, thread_id: str) -> list[dict[str, Any]]:
    """Every visible (not deleted) comment of a thread, oldest first."""
    rows = conn.execute(
        _COMMENT_QUERY
        + "WHERE c.thread_id = ? AND c.status != 'deleted' ORDER BY c.created_at, c.rowid",
        (thread_id,),
    ).fetchall()
    return [comment_row_json(r) for r in rows]


def public_comment(comment: dict[str, Any]) -> dict[str, Any]:
    """``comment`` as the widget API shows it to anyone: without the author's e-mail.

    E-mail addresses (also the ones customers' backends put in ssoData) go only
    to the site's own backend, in the signed webhook body.
    """
    author = {k: v for k, v in comment["author"].items() if k != "email"}
    return {**comment, "author": author}


def thread_json(conn: sqlite3.Connection, thread_id: str) -> dict[str, Any]:
    """The body's ``data.thread`` for ``thread_id``; ``KeyError`` if there is none."""
    row = conn.execute(
        "SELECT id, uid, page_title, created_at, updated_at FROM threads WHERE id = ?", (thread_id,)
    ).fetchone()
    if row is None:
        raise KeyError(thread_id)
    return {
        "id": row["id"],
        "page_title": row["page_title"],
        "created_at": utc_iso(row["created_at"]),
        "updated_at": utc_iso(row["updated_at"]),
        "external_id": row["uid"],
    }


def event_body(
    conn: sqlite3.Connection,
    *,
    website_id: str,
    event_type: str,
    comment_id: str,
    timestamp_ms: int,
) -> bytes:
    """The webhook delivery body as compact UTF-8 JSON bytes."""
    comment = comment_json(conn, comment_id)
    body = {
        "event_type": event_type,
        "timestamp": int(timestamp_ms),
        "website_id": website_id,
        "data": {"comment": comment, "thread": thread_json(conn, comment["thread_id"])},
    }
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
