"""Row access helpers of the emulator: threads, users and comments.

Every function takes the connection of an open :meth:`Database.transaction` (or
:meth:`Database.read`) so that callers decide what commits together. Ids are 24
hexadecimal characters, the shape of the service's own ids.
"""

from __future__ import annotations

import secrets
import sqlite3

__all__ = [
    "new_id",
    "upsert_thread",
    "find_thread",
    "get_user",
    "find_user_by_username",
    "find_user_by_external_id",
    "insert_user",
    "get_comment",
]


def new_id() -> str:
    """A fresh random id (24 lowercase hex characters)."""
    return secrets.token_hex(12)


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
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM threads WHERE site = ? AND uid = ?", (site, uid)
    ).fetchone()
    return row


def get_user(conn: sqlite3.Connection, user_id: str) -> sqlite3.Row | None:
    """The users row ``user_id``."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM users WHERE id = ?", (user_id,)
    ).fetchone()
    return row


def find_user_by_username(conn: sqlite3.Connection, site: str, username: str) -> sqlite3.Row | None:
    """The user of ``site`` called ``username``, ignoring case (``Alice`` holds ``alice``)."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM users WHERE site = ? AND username = ? COLLATE NOCASE", (site, username)
    ).fetchone()
    return row


def find_user_by_external_id(
    conn: sqlite3.Connection, site: str, external_id: str
) -> sqlite3.Row | None:
    """The SSO user of ``site`` whose SSO id is ``external_id``."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM users WHERE site = ? AND external_id = ?", (site, external_id)
    ).fetchone()
    return row


def insert_user(
    conn: sqlite3.Connection,
    *,
    site: str,
    username: str,
    email: str,
    avatar: str,
    now: float,
    external_id: str | None = None,
    language: str | None = None,
    bio: str | None = None,
    password_hash: str | None = None,
    user_id: str | None = None,
) -> str:
    """Insert a user (display name = username); returns its id."""
    uid = user_id or new_id()
    conn.execute(
        """
        INSERT INTO users (id, site, external_id, guest, username, name, email, avatar,
                           language, bio, password_hash, created_at, updated_at)
        VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        (
            uid,
            site,
            external_id,
            username,
            username,
            email,
            avatar,
            language,
            bio,
            password_hash,
            now,
            now,
        ),
    )
    return uid


def get_comment(conn: sqlite3.Connection, comment_id: str) -> sqlite3.Row | None:
    """The comments row ``comment_id``."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM comments WHERE id = ?", (comment_id,)
    ).fetchone()
    return row
