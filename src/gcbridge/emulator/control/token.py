"""The admin token of the emulator's control routes (``/_emulator/...``, health aside).

Threat model: those routes reset, restore and move the clock, so anything reaching the port
could wipe a run. They need ``Authorization: Bearer <admin token>`` (constant-time check).
The token comes from ``--admin-token-env NAME`` or is generated once into
``<data-dir>/admin-token`` (0600); it is never logged nor shown by health. It must be
visible ASCII (:func:`admin_token_problem`), or no client could send it: a bad one stops
the start with ``bad_admin_token`` or ``bad_admin_token_file`` (the file is never
overwritten then).
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from gcbridge.emulator.datadir import FILE_MODE
from gcbridge.emulator.errors import ConfigError

__all__ = [
    "TOKEN_FILE",
    "MIN_LENGTH",
    "admin_token_problem",
    "load_or_create_admin_token",
    "token_matches",
]

TOKEN_FILE = "admin-token"  # noqa: S105 (a file name)
MIN_LENGTH = 16
"""The fewest characters of an admin token."""


def admin_token_problem(token: str) -> str | None:
    """What makes ``token`` unusable as the admin token, or None if it is one.

    Header values travel as bytes that clients encode as ASCII (httpx) or Latin-1 at
    most (fetch): a character outside visible ASCII could never be sent, and a space
    would be cut at the edges.
    """
    if len(token) < MIN_LENGTH:
        return f"at least {MIN_LENGTH} characters"
    if not all("!" <= ch <= "~" for ch in token):
        return "visible ASCII characters only (an HTTP header carries no others), no spaces"
    return None


def load_or_create_admin_token(data_dir: Path) -> str:
    """The token in ``<data_dir>/admin-token``, created (0600) on first use.

    Raises :class:`ConfigError` (``bad_admin_token_file``) for a file that cannot be
    read, or holds something other than a token, rather than overwrite it.
    """
    path = data_dir / TOKEN_FILE
    remedy = "remove it and a new token is generated"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raw = b""
    except OSError as exc:
        raise ConfigError(
            f"admin token file {path}: cannot be read ({exc.strerror}); {remedy}",
            reason="bad_admin_token_file",
        ) from None
    token = raw.decode("latin-1").strip()  # never fails; ASCII reads the same
    problem = admin_token_problem(token)
    if problem is None:
        os.chmod(path, FILE_MODE)
        return token
    if len(token) >= MIN_LENGTH:  # a short or empty file is replaced, as it always was
        raise ConfigError(
            f"admin token file {path}: not a token ({problem}); {remedy}",
            reason="bad_admin_token_file",
        )
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
