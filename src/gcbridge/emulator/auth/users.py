"""Row access and JSON of the service's users (SSO users and the service's own accounts)."""

from __future__ import annotations

import sqlite3
from typing import Any

from gcbridge.emulator.db import first_row, new_id
from gcbridge.emulator.usernames import username_keys

__all__ = [
    "get_user",
    "find_user_by_username",
    "find_username_holder",
    "set_username",
    "find_user_by_external_id",
    "insert_user",
    "author_json",
    "user_json",
]


def get_user(conn: sqlite3.Connection, user_id: str) -> sqlite3.Row | None:
    """The users row ``user_id``."""
    return first_row(conn, "SELECT * FROM users WHERE id = ?", (user_id,))


def find_user_by_username(conn: sqlite3.Connection, site: str, username: str) -> sqlite3.Row | None:
    """The user of ``site`` called ``username`` (the exact name first, else its main key).

    ``Alice``, ``ALICE`` and ``Ａｌｉｃｅ`` (fullwidth) all find ``alice``.
    """
    return first_row(
        conn,
        "SELECT * FROM users WHERE site = ? AND (username = ? OR username_key = ?)"
        " ORDER BY username = ? DESC, created_at LIMIT 1",
        (site, username, username_keys(username).fold, username),
    )


def find_username_holder(
    conn: sqlite3.Connection, site: str, username: str, *, other_than: str | None = None
) -> sqlite3.Row | None:
    """A user of ``site`` (not ``other_than``) whose name renders like ``username``, if any.

    Either key equal is a match: ``ALICE``, ``аlice`` (Cyrillic a) and ``Ａｌｉｃｅ``
    find ``alice``; ``paypaI`` (capital I) finds ``paypal``.
    """
    keys = username_keys(username)
    return first_row(
        conn,
        "SELECT * FROM users WHERE site = ? AND (username_key = ? OR username_shape = ?)"
        " AND id != ? ORDER BY created_at LIMIT 1",
        (site, keys.fold, keys.shape, other_than or ""),
    )


def set_username(conn: sqlite3.Connection, user_id: str, username: str) -> None:
    """Rename a user (its display name too), keeping both keys in step."""
    keys = username_keys(username)
    conn.execute(
        "UPDATE users SET username = ?, name = ?, username_key = ?, username_shape = ?"
        " WHERE id = ?",
        (username, username, keys.fold, keys.shape, user_id),
    )


def find_user_by_external_id(
    conn: sqlite3.Connection, site: str, external_id: str
) -> sqlite3.Row | None:
    """The SSO user of ``site`` whose SSO id is ``external_id``."""
    return first_row(
        conn, "SELECT * FROM users WHERE site = ? AND external_id = ?", (site, external_id)
    )


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
    keys = username_keys(username)
    conn.execute(
        """
        INSERT INTO users (id, site, external_id, guest, username, username_key, username_shape,
                           name, email, avatar, language, bio, password_hash, created_at,
                           updated_at)
        VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        (
            uid,
            site,
            external_id,
            username,
            keys.fold,
            keys.shape,
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
