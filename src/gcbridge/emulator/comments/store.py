"""Row access of the comments part: threads and comments."""

from __future__ import annotations

import sqlite3

from gcbridge.emulator.db import first_row, new_id

__all__ = ["upsert_thread", "find_thread", "get_comment"]


def upsert_thread(
    conn: sqlite3.Connection, *, site: str, uid: str, url: str, page_title: str, now: float
) -> str:
    """Create the thread ``(site, uid)`` or refresh its url and title; returns its id."""
    # updated_at moves only when something visible changed, so that loading a
    # page again does not look like an edit of the thread.
    conn.execute(
        """
        INSERT INTO threads (id, site, uid, url, page_title, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (site, uid) DO UPDATE
            SET url = excluded.url, page_title = excluded.page_title,
                updated_at = excluded.updated_at
            WHERE threads.url != excluded.url OR threads.page_title != excluded.page_title
        """,
        (new_id(), site, uid, url, page_title, now, now),
    )
    row = conn.execute("SELECT id FROM threads WHERE site = ? AND uid = ?", (site, uid)).fetchone()
    return str(row["id"])


def find_thread(conn: sqlite3.Connection, site: str, uid: str) -> sqlite3.Row | None:
    """The thread ``(site, uid)``, if it exists."""
    return first_row(conn, "SELECT * FROM threads WHERE site = ? AND uid = ?", (site, uid))


def get_comment(conn: sqlite3.Connection, comment_id: str) -> sqlite3.Row | None:
    """The comments row ``comment_id``."""
    return first_row(conn, "SELECT * FROM comments WHERE id = ?", (comment_id,))
