"""The emulator's state as a whole: reset to the sites, named snapshots (SQLite backup API).

The sites come from the settings, so a reset is an empty database. Saves and restores are
one backup step each, through a temporary file renamed into place, so neither a crash nor a
reader ever sees half a state; an older snapshot is migrated on a private copy, a newer one
refused (docs/reference/emulator-control.md, "Snapshots"). The caller
(:mod:`.operations`) stops the dispatcher around a reset or a restore.
"""

from __future__ import annotations

import os
import re
import secrets
import sqlite3
from pathlib import Path

from gcbridge.emulator.datadir import DIR_MODE, FILE_MODE
from gcbridge.emulator.db import SCHEMA_VERSION, Database, migrate, stored_version
from gcbridge.emulator.errors import ApiError

__all__ = ["NAME_PATTERN", "check_name", "reset", "save", "restore", "names", "snapshot_dir"]

NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")

# Children before parents (foreign keys).
_TABLES = (
    "attempts",
    "calls",
    "sessions",
    "attachments",
    "comments",
    "threads",
    "users",
    "webhook_configs",
)
# Tables added since the first snapshots: a snapshot without them restores, and gains them empty.
_ADDED_SINCE = frozenset({"attachments"})


def check_name(name: str) -> str:
    """``name`` if it is a valid snapshot name, else a 400 ``invalid_snapshot_name``."""
    if not NAME_PATTERN.fullmatch(name):
        raise ApiError(400, "invalid_snapshot_name", "snapshot names are 1-64 of A-Z a-z 0-9 _ -")
    return name


def snapshot_dir(data_dir: Path) -> Path:
    """``<data_dir>/snapshots`` (0700), created if needed."""
    path = data_dir / "snapshots"
    path.mkdir(mode=DIR_MODE, exist_ok=True)
    os.chmod(path, DIR_MODE)
    return path


def reset(db: Database) -> None:
    """Delete every row of every table in one transaction: back to the sites only."""
    with db.transaction() as conn:
        for table in _TABLES:
            conn.execute(f"DELETE FROM {table}")  # noqa: S608 (fixed names)


def save(db: Database, data_dir: Path, name: str) -> None:
    """Copy the whole database to the snapshot ``name`` (replacing one of that name)."""
    folder = snapshot_dir(data_dir)
    final = folder / f"{check_name(name)}.sqlite3"
    tmp = folder / f".{name}.{secrets.token_hex(4)}.tmp"
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))  # a new file, ours
    try:
        target = sqlite3.connect(tmp)
        try:
            with db.read() as conn:
                conn.backup(target)
        finally:
            target.close()
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def restore(db: Database, data_dir: Path, name: str) -> None:
    """Bring the snapshot ``name`` back into the live database, all of it or nothing.

    A snapshot carries its schema version (:data:`~gcbridge.emulator.db.SCHEMA_VERSION`):
    one of an older version is migrated on a private copy first, then that copy is
    restored, so the live database never holds a state this version cannot read. One
    of a newer version is refused (422 ``snapshot_too_new``).
    """
    folder = snapshot_dir(data_dir)
    path = folder / f"{check_name(name)}.sqlite3"
    if not path.is_file():
        raise ApiError(404, "snapshot_not_found", f"no snapshot named {name!r}")
    work = folder / f".{name}.{secrets.token_hex(4)}.restore"
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        try:
            version = stored_version(source)
            if version > SCHEMA_VERSION:
                raise ApiError(
                    422,
                    "snapshot_too_new",
                    f"snapshot {name!r} was saved by a newer gc-bridge (schema version"
                    f" {version}; this one reads up to {SCHEMA_VERSION}); the state is unchanged",
                )
            tables = {r[0] for r in source.execute("SELECT name FROM sqlite_master")}
            # An older version may lack the tables added since (migrate() adds them).
            required = set(_TABLES) - (_ADDED_SINCE if version < SCHEMA_VERSION else set())
            if not required <= tables:
                raise sqlite3.DatabaseError("not an emulator database of its version")
            if version == SCHEMA_VERSION:
                _copy_into(source, db)
            else:
                _copy_migrated(source, work, db)
        except sqlite3.DatabaseError as exc:
            raise ApiError(
                422, "snapshot_unreadable", f"snapshot {name!r} cannot be restored: {exc}"
            ) from None
    finally:
        source.close()
        for leftover in (work, work.with_name(work.name + "-journal")):
            leftover.unlink(missing_ok=True)


def _copy_into(source: sqlite3.Connection, db: Database) -> None:
    with db.read() as conn:
        source.backup(conn)


def _copy_migrated(source: sqlite3.Connection, work: Path, db: Database) -> None:
    """Migrate a copy of an older snapshot at ``work`` (0600), then restore that copy."""
    os.close(os.open(work, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    copy = sqlite3.connect(work, isolation_level=None)
    try:
        source.backup(copy)
        migrate(copy)
        _copy_into(copy, db)
    finally:
        copy.close()


def names(data_dir: Path) -> list[str]:
    """The saved snapshots' names, sorted."""
    folder = data_dir / "snapshots"
    if not folder.is_dir():
        return []
    found = (p.name[: -len(".sqlite3")] for p in folder.glob("*.sqlite3"))
    return sorted(n for n in found if NAME_PATTERN.fullmatch(n))
