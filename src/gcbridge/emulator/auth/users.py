"""Row access and JSON of the service's users (SSO users and the service's own accounts).

Every function takes the connection of an open :meth:`Database.transaction` (or
:meth:`Database.read`) so that callers decide what commits together.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from gcbridge.emulator.db import new_id
from gcbridge.emulator.inputs import username_key

__all__ = [
    "get_user",
    "find_user_by_username",
    "find_user_by_external_id",
    "insert_user",
    "author_json",
    "user_json",
]


def get_user(conn: sqlite3.Connection, user_id: str) -> sqlite3.Row | None:
    """The users row ``user_id``."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM users WHERE id = ?", (user_id,)
    ).fetchone()
    return row


def find_user_by_username(conn: sqlite3.Connection, site: str, username: str) -> sqlite3.Row | None:
    """The user of ``site`` called ``username`` or a look-alike (NFKC, case-folded).

    ``Alice``, ``ALICE`` and ``Ａｌｉｃｅ`` (fullwidth) all find ``alice``.
    """
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM users WHERE site = ? AND username_key = ? ORDER BY created_at LIMIT 1",
        (site, username_key(username)),
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
        INSERT INTO users (id, site, external_id, guest, username, username_key, name, email,
                           avatar, language, bio, password_hash, created_at, updated_at)
        VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        (
            uid,
            site,
            external_id,
            username,
            username_key(username),
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


def author_json(row: sqlite3.Row, prefix: str = "") -> dict[str, Any]:
    """``data.comment.author`` from a users row (or joined columns named ``<prefix>...``)."""
    return {
        "id": row[f"{prefix}id"],
        "external_id": row[f"{prefix}external_id"],
        "guest": bool(row[f"{prefix}guest"]),
        "name": row[f"{prefix}name"],
        "email": row[f"{prefix}email"],
        "avatar": row[f"{prefix}avatar"],
    }


def user_json(row: sqlite3.Row) -> dict[str, Any]:
    """The widget API's "User JSON": the author object plus ``username``."""
    return {**author_json(row), "username": row["username"]}
