"""The data directory's permissions: 0700 for the directory, 0600 for every file in it.

It holds webhook secrets, password hashes, session keys and site credentials; whatever the
umask, only the owner reads them (SQLite gives ``-wal`` and ``-shm`` the database file's
mode). A path that cannot be the data directory is a :class:`ConfigError`
``bad_data_dir`` saying why, never an ``OSError`` traceback.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gcbridge.emulator.errors import ConfigError

__all__ = ["DIR_MODE", "FILE_MODE", "secure_data_dir", "create_private_file", "make_data_dir"]

DIR_MODE = 0o700
FILE_MODE = 0o600


def _why(path: Path, exc: OSError) -> str:
    if isinstance(exc, FileExistsError) or (path.exists() and not path.is_dir()):
        return "it is a file, not a directory"
    if isinstance(exc, NotADirectoryError):
        return "a part of the path is a file, not a directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return exc.strerror or type(exc).__name__


def make_data_dir(path: Path, *, option: str = "--data-dir") -> Path:
    """Create ``path`` (0700) if needed, or raise ``ConfigError`` (``bad_data_dir``) saying why."""
    try:
        path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"{option} {path}: cannot use it as the data directory ({_why(path, exc)})",
            reason="bad_data_dir",
        ) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ConfigError(
            f"{option} {path}: cannot use it as the data directory (not writable)",
            reason="bad_data_dir",
        )
    return path


def secure_data_dir(path: Path) -> Path:
    """Create ``path`` (0700) if needed; make it 0700 and each file directly in it 0600."""
    make_data_dir(path)
    os.chmod(path, DIR_MODE)
    for entry in os.scandir(path):
        if (
            entry.is_file(follow_symlinks=False)
            and stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode) != FILE_MODE
        ):
            os.chmod(entry.path, FILE_MODE)
    return path


def create_private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 if it does not exist (never widens an existing one)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        os.chmod(path, FILE_MODE)
        return
    os.close(fd)
