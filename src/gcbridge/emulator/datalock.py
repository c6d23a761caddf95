"""One emulator per data directory: ``DIR/emulator.lock``, held while it runs, names its pid.

Two emulators on one directory would share one journal and deliver each webhook twice. The
lock is an exclusive ``flock``, dropped by the OS however the holder exits (no stale lock);
a second emulator gets ``ConfigError`` ``data_dir_in_use`` naming the pid. No ``fcntl``
(Windows): no lock.
"""

from __future__ import annotations

import os
from pathlib import Path

from gcbridge.emulator.datadir import FILE_MODE, make_data_dir
from gcbridge.emulator.errors import ConfigError

__all__ = ["DataDirLock", "lock_data_dir", "LOCK_NAME"]

LOCK_NAME = "emulator.lock"


class DataDirLock:
    """The held lock of one data directory; :meth:`release` (or ``with``) lets it go."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self._fd = fd

    def release(self) -> None:
        """Let another emulator use the directory (closing the file drops the lock)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        # the holder's function returned: the directory is free again
        self.release()

    def __enter__(self) -> DataDirLock:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return "an unknown process"
    return f"pid {text}" if text.isdigit() else "another process"


def lock_data_dir(data_dir: str | Path, *, option: str = "--data-dir") -> DataDirLock:
    """Create ``data_dir`` if needed and lock it for this process, or raise ``data_dir_in_use``."""
    directory = make_data_dir(Path(data_dir), option=option)
    path = directory / LOCK_NAME
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return DataDirLock(path, None)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = _holder(fd)
        os.close(fd)
        raise ConfigError(
            f"{option} {directory}: in use by another emulator ({holder}); stop it, "
            f"or give this one another {option}",
            reason="data_dir_in_use",
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
    return DataDirLock(path, fd)
