"""The admin token of the emulator's control routes (``/_emulator/...``, health aside).

Threat model: the control routes reset, snapshot and restore the whole state and
move the clock, so anything that can reach the port could wipe a test run or a
developer's data. They sit behind ``Authorization: Bearer <admin token>``,
compared in constant time. The token comes from ``--admin-token-env NAME``, or is
generated once (32 random bytes, URL-safe) into ``<data-dir>/admin-token`` with
mode 0600 and reused on the next start. It is never logged nor shown by
``/_emulator/health``.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from gcbridge.emulator.datadir import FILE_MODE

__all__ = ["TOKEN_FILE", "load_or_create_admin_token", "token_matches"]

TOKEN_FILE = "admin-token"  # noqa: S105 (a file name)
_MIN_LENGTH = 16


def load_or_create_admin_token(data_dir: Path) -> str:
    """The token in ``<data_dir>/admin-token``, created (0600) on first use."""
    path = data_dir / TOKEN_FILE
    try:
        token = path.read_text("ascii").strip()
    except FileNotFoundError:
        token = ""
    if len(token) >= _MIN_LENGTH:
        os.chmod(path, FILE_MODE)
        return token
    token = secrets.token_urlsafe(32)
    tmp = path.with_name(f".{TOKEN_FILE}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(token + "\n")
    os.replace(tmp, path)
    return token


def token_matches(expected: str, authorization: str | None) -> bool:
    """Whether an ``Authorization`` header carries ``Bearer <expected>`` (constant time)."""
    if not authorization or not expected:
        return False
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(value.strip().encode("utf-8"), expected.encode("utf-8"))
