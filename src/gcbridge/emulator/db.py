"""The emulator's SQLite store: one file, WAL, one schema.

Comments, users, threads, webhook configuration and the delivery journal live in
the same database so that a comment change and its outbox row (a ``calls`` row
in status ``pending``) commit in one transaction: if the process dies between
the two, neither happened. Every write goes through :meth:`Database.transaction`; a
function taking a ``conn`` runs in its caller's transaction, so the caller decides what
commits together.
"""

from __future__ import annotations

import logging
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gcbridge.emulator.datadir import create_private_file
from gcbridge.emulator.errors import ConfigError

log = logging.getLogger("gcbridge.emulator.db")

__all__ = [
    "new_id",
    "first_row",
    "latest_time",
    "migrate",
    "stored_version",
    "Database",
    "SCHEMA",
    "SCHEMA_VERSION",
    "TIME_COLUMNS",
]

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    id            TEXT PRIMARY KEY,
    site          TEXT NOT NULL,              -- shortname
    external_id   TEXT,                       -- SSO id, NULL for own accounts / guests
    guest         INTEGER NOT NULL DEFAULT 0,
    username      TEXT NOT NULL,
    username_key  TEXT,                       -- skeleton of NFKC + casefold (usernames.py)
    username_shape TEXT,                      -- casefolded skeleton of NFKC: I and l alike
    name          TEXT NOT NULL,
    email         TEXT NOT NULL,
    avatar        TEXT NOT NULL,
    language      TEXT,
    bio           TEXT,
    password_hash TEXT,                       -- own accounts only
    created_at    REAL NOT NULL,
    updated_at    REAL NOT NULL,
    UNIQUE (site, username)
);
CREATE UNIQUE INDEX IF NOT EXISTS users_external
    ON users(site, external_id) WHERE external_id IS NOT NULL;

CREATE TABLE IF NOT EXISTS threads (
    id          TEXT PRIMARY KEY,
    site        TEXT NOT NULL,
    uid         TEXT NOT NULL,                -- caller-side id (external_id in webhooks)
    url         TEXT NOT NULL,
    page_title  TEXT NOT NULL,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    UNIQUE (site, uid)
);

CREATE TABLE IF NOT EXISTS comments (
    id          TEXT PRIMARY KEY,
    site        TEXT NOT NULL,
    thread_id   TEXT NOT NULL REFERENCES threads(id),
    parent_id   TEXT REFERENCES comments(id),
    external_id TEXT,
    author_id   TEXT NOT NULL REFERENCES users(id),
    content     TEXT NOT NULL,
    status      TEXT NOT NULL,               -- approved | pending | deleted
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS comments_thread ON comments(thread_id, created_at);

-- A file the author attached with the widget's file input: what the widget said of it
-- (the emulator is a stand-in and keeps no file bytes). A table of its own: older data
-- directories gain it without a migration, and a comment without one is unchanged.
CREATE TABLE IF NOT EXISTS attachments (
    comment_id  TEXT PRIMARY KEY REFERENCES comments(id),
    name        TEXT NOT NULL,
    type        TEXT NOT NULL,               -- media type, '' when the browser gave none
    size        INTEGER NOT NULL             -- bytes
);

CREATE TABLE IF NOT EXISTS webhook_configs (
    website_id  TEXT PRIMARY KEY,
    url         TEXT NOT NULL,
    events      TEXT NOT NULL,               -- JSON array
    secret      TEXT NOT NULL,
    enabled     INTEGER NOT NULL,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);

-- The outbox and the journal in one: a call is one delivery of one event with
-- all its attempts.
CREATE TABLE IF NOT EXISTS calls (
    id              TEXT PRIMARY KEY,
    seq             INTEGER NOT NULL UNIQUE, -- creation order, for cursors
    website_id      TEXT NOT NULL,
    delivery_id     TEXT NOT NULL UNIQUE,
    event_type      TEXT NOT NULL,
    url             TEXT NOT NULL,           -- the configured url at enqueue time
    body            BLOB NOT NULL,           -- the exact JSON bytes sent on every attempt
    status          TEXT NOT NULL,           -- pending | succeeded | failed
    response_code   INTEGER,
    retry_count     INTEGER NOT NULL DEFAULT 0,
    created_at      REAL NOT NULL,
    next_attempt_at REAL,                    -- NULL once final
    first_sent_at   REAL,
    replay_of       TEXT REFERENCES calls(id),
    error           TEXT                     -- why it failed, e.g. ssrf:private_address
);
CREATE INDEX IF NOT EXISTS calls_due ON calls(next_attempt_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS calls_site ON calls(website_id, seq);
CREATE INDEX IF NOT EXISTS calls_replay_of ON calls(replay_of) WHERE replay_of IS NOT NULL;

CREATE TABLE IF NOT EXISTS attempts (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    call_id          TEXT NOT NULL REFERENCES calls(id),
    number           INTEGER NOT NULL,       -- 0-based: equals X-Webhook-Retry-Count
    started_at       REAL NOT NULL,
    duration_ms      REAL,
    response_code    INTEGER,
    error            TEXT,                   -- timeout, connect_error, ssrf:..., redirect
    location         TEXT,                   -- Location of a 30x
    response_body    TEXT,                   -- truncated
    request_headers  TEXT NOT NULL,          -- JSON object, exactly as sent
    UNIQUE (call_id, number)
);

-- Widget sessions: the signed token carries (user id, session id); a row here
-- lets logout revoke one token before it expires.
CREATE TABLE IF NOT EXISTS sessions (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users(id),
    created_at  REAL NOT NULL,
    revoked_at  REAL                         -- NULL while valid
);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions(user_id);

-- Versions of derived data, e.g. the username keys (recomputed when their rules change).
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


TIME_COLUMNS: tuple[tuple[str, str], ...] = (
    ("users", "created_at"),
    ("users", "updated_at"),
    ("threads", "created_at"),
    ("threads", "updated_at"),
    ("comments", "created_at"),
    ("comments", "updated_at"),
    ("webhook_configs", "created_at"),
    ("webhook_configs", "updated_at"),
    ("calls", "created_at"),
    ("calls", "first_sent_at"),
    ("attempts", "started_at"),
    ("sessions", "created_at"),
    ("sessions", "revoked_at"),
)
"""Every column that records the emulator's clock at a write (``next_attempt_at`` is a
due time, not a time passed)."""


def latest_time(conn: sqlite3.Connection) -> float | None:
    """The latest emulator time recorded in the database (Unix seconds), ``None`` if empty."""
    parts = " UNION ALL ".join(
        f"SELECT MAX({column}) AS t FROM {table}"  # noqa: S608 (fixed names)
        for table, column in TIME_COLUMNS
    )
    row = conn.execute(f"SELECT MAX(t) FROM ({parts})").fetchone()  # noqa: S608
    return None if row[0] is None else float(row[0])


_USERNAME_INDEXES = (
    "users_username_key",
    "users_username_key_plain",
    "users_username_shape",
    "users_username_shape_plain",
)


def _index_usernames(conn: sqlite3.Connection, column: str) -> None:
    """A unique index on ``(site, column)``; a plain one if older look-alikes share a key."""
    name = column.replace("username_", "users_username_")
    try:
        conn.execute(f"CREATE UNIQUE INDEX {name} ON users(site, {column})")
    except sqlite3.IntegrityError:
        # Look-alikes stored by an older version: keep them (the routes refuse new ones).
        log.warning("users: look-alike usernames from an older version kept (%s)", column)
        conn.execute(f"CREATE INDEX {name}_plain ON users(site, {column})")


SCHEMA_VERSION = 4
"""The version of :data:`SCHEMA`, kept in the file's ``PRAGMA user_version``, so that a
snapshot carries it too. 0 is a file of a version that recorded none (before the
username keys, ``meta`` and attachments): :func:`migrate` brings it up by what it lacks.
Raise it with every change of the schema, and teach :func:`migrate` the step."""


def stored_version(conn: sqlite3.Connection) -> int:
    """The schema version a database file says it holds (0: recorded by no version)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> None:
    """Bring a database of an older version up to this schema, in one transaction.

    ``conn`` is in autocommit mode (``isolation_level=None``), outside a transaction;
    the caller refused a version above :data:`SCHEMA_VERSION` first. The username keys
    are recomputed when their rules or ICU's Unicode version changed, so that a
    look-alike of a name stored by an older version is found too.
    """
    conn.executescript(SCHEMA)  # CREATE ... IF NOT EXISTS: what it lacked
    conn.execute("BEGIN IMMEDIATE")
    try:
        _migrate_users(conn)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _migrate_users(conn: sqlite3.Connection) -> None:
    # here, not at the top: the CLI reads this module's helpers without the emulator
    # extra (ICU) installed (gcbridge.emulator.webhooks.journal, for CALL_STATUSES)
    from gcbridge.emulator.usernames import KEY_VERSION, username_keys

    columns = {row[1] for row in conn.execute("PRAGMA table_info(users)")}
    for column in ("username_key", "username_shape"):
        if column not in columns:
            conn.execute(f"ALTER TABLE users ADD COLUMN {column} TEXT")
    stored = conn.execute("SELECT value FROM meta WHERE key = 'username_keys'").fetchone()
    if stored is not None and stored[0] == KEY_VERSION:
        return
    for index in _USERNAME_INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS {index}")
    for user_id, username in conn.execute("SELECT id, username FROM users").fetchall():
        keys = username_keys(username)
        conn.execute(
            "UPDATE users SET username_key = ?, username_shape = ? WHERE id = ?",
            (keys.fold, keys.shape, user_id),
        )
    for column in ("username_key", "username_shape"):
        _index_usernames(conn, column)
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('username_keys', ?)", (KEY_VERSION,)
    )


class Database:
    """A thread-safe handle on the emulator's SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            # 0600 from the first byte; SQLite gives -wal and -shm the same mode.
            create_private_file(Path(self.path))
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=30
        )
        self._conn.row_factory = sqlite3.Row
        version = stored_version(self._conn)
        if version > SCHEMA_VERSION:
            self._conn.close()
            raise ConfigError(
                f"{self.path} was written by a newer gc-bridge (schema version {version}; this"
                f" one reads up to {SCHEMA_VERSION}): upgrade, or start on another --data-dir",
                reason="data_dir_too_new",
            )
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            migrate(self._conn)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (or ``ROLLBACK`` on error)."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A connection for reads (serialised with writes; SQLite is fast enough here)."""
        with self._lock:
            yield self._conn

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._conn.close()


def first_row(conn: sqlite3.Connection, sql: str, args: tuple[object, ...]) -> sqlite3.Row | None:
    """The first row ``sql`` answers, or ``None``."""
    row: sqlite3.Row | None = conn.execute(sql, args).fetchone()
    return row


def new_id() -> str:
    """A fresh random id (24 lowercase hex characters)."""
    return secrets.token_hex(12)
