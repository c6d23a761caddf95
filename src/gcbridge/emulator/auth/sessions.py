"""Widget session tokens: itsdangerous-signed, time-limited, revocable.

Threat model: a token is a bearer credential the widget keeps in localStorage. It is
signed with a random key made once per data directory (``session.key``, 0600), so it
survives a restart but cannot be forged without the file; the ``sessions`` table lets
logout revoke it before ``max_age``; its age is measured on the injected clock.

::

    SessionError    reason: malformed | bad_signature | expired | revoked | unknown_user
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import threading
from pathlib import Path
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, TimestampSigner, URLSafeTimedSerializer

from gcbridge.clock import Clock
from gcbridge.emulator.auth.users import get_user
from gcbridge.emulator.db import Database, new_id
from gcbridge.emulator.errors import EmulatorError

__all__ = [
    "SessionError",
    "SessionStore",
    "load_or_create_key",
    "session_store",
    "KEY_FILE",
    "MAX_TOKEN_LENGTH",
]

KEY_FILE = "session.key"
MAX_TOKEN_LENGTH = 512
_SALT = "gcbridge.emulator.session"


class SessionError(EmulatorError):
    """A session token that does not resolve to a live session."""

    reason = "invalid_session"


def load_or_create_key(data_dir: Path) -> bytes:
    """The data directory's session key, created (0600, atomically) on first use."""
    path = data_dir / KEY_FILE
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = data_dir / f".{KEY_FILE}.{secrets.token_hex(6)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_hex(32) + "\n")
        # link() fails if another process won the race: then its key is the one.
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return _read_key(path)


def _read_key(path: Path) -> bytes:
    key = path.read_text(encoding="ascii").strip()
    if len(key) < 32:
        raise EmulatorError(
            f"{path} is too short to be a session key; delete it", reason="bad_session_key"
        )
    return key.encode("ascii")


class _ClockSigner(TimestampSigner):
    """A timestamp signer reading the injected clock instead of ``time.time``."""

    def __init__(self, *args: Any, clock: Clock, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clock = clock

    def get_timestamp(self) -> int:
        return int(self._clock.now())


class SessionStore:
    """Issues, resolves and revokes session tokens of one emulator."""

    def __init__(self, db: Database, key: bytes, *, clock: Clock, max_age: int) -> None:
        self._db = db
        self._clock = clock
        self._max_age = max_age
        self._serializer = URLSafeTimedSerializer(
            key, salt=_SALT, signer=_ClockSigner, signer_kwargs={"clock": clock}
        )

    def issue(self, conn: sqlite3.Connection, user_id: str) -> str:
        """A new token for ``user_id``, recorded in the open transaction ``conn``."""
        session_id = new_id()
        conn.execute(
            "INSERT INTO sessions (id, user_id, created_at) VALUES (?, ?, ?)",
            (session_id, user_id, self._clock.now()),
        )
        return str(self._serializer.dumps({"u": user_id, "s": session_id}))

    def _ids(self, token: str) -> tuple[str, str]:
        if not token or len(token) > MAX_TOKEN_LENGTH:
            raise SessionError("malformed session token", reason="malformed")
        try:
            payload = self._serializer.loads(token, max_age=self._max_age)
        except SignatureExpired:
            raise SessionError("the session has expired", reason="expired") from None
        except BadSignature:
            raise SessionError("bad session token", reason="bad_signature") from None
        fields = payload if isinstance(payload, dict) else {}
        user_id, session_id = fields.get("u"), fields.get("s")
        if not isinstance(user_id, str) or not isinstance(session_id, str):
            raise SessionError("malformed session token", reason="malformed")
        return user_id, session_id

    def resolve(self, token: str, conn: sqlite3.Connection | None = None) -> sqlite3.Row:
        """The users row of a live session; raises :class:`SessionError`.

        ``conn``: the caller's open transaction. A write guarded by a session checks
        it there, so that the check and the write commit together: a reset or a
        restore (one transaction of its own) lands before both or after both, and
        a write never outlives the user it was checked for.
        """
        user_id, session_id = self._ids(token)
        if conn is None:
            with self._db.read() as read:
                return _live_user(read, user_id, session_id)
        return _live_user(conn, user_id, session_id)

    def revoke(self, token: str) -> bool:
        """Sign a token out; ``False`` if it was not a live session (nothing to do)."""
        try:
            user_id, session_id = self._ids(token)
        except SessionError:
            return False
        with self._db.transaction() as conn:
            cur = conn.execute(
                "UPDATE sessions SET revoked_at = ?"
                " WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
                (self._clock.now(), session_id, user_id),
            )
            return cur.rowcount == 1


def _live_user(conn: sqlite3.Connection, user_id: str, session_id: str) -> sqlite3.Row:
    row = conn.execute(
        "SELECT revoked_at FROM sessions WHERE id = ? AND user_id = ?",
        (session_id, user_id),
    ).fetchone()
    if row is None or row["revoked_at"] is not None:
        raise SessionError("the session was signed out", reason="revoked")
    user = get_user(conn, user_id)
    if user is None:
        raise SessionError("the session's user no longer exists", reason="unknown_user")
    return user


_STORE_LOCK = threading.Lock()


def session_store(app_state: Any, emulator: Any) -> SessionStore:
    """The :class:`SessionStore` of an app, created on first use and kept on ``app.state``.

    ``app_state`` is ``request.app.state``; ``emulator`` its ``EmulatorState``.
    """
    with _STORE_LOCK:
        store: SessionStore | None = getattr(app_state, "gc_sessions", None)
        if store is None:
            key = load_or_create_key(emulator.settings.data_dir)
            store = SessionStore(
                emulator.db,
                key,
                clock=emulator.clock,
                max_age=emulator.settings.session_max_age,
            )
            app_state.gc_sessions = store
    return store
