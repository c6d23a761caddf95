"""gcbridge.emulator.auth.sessions: key file, signed tokens, expiry on the clock, revocation."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from gcbridge.clock import ManualClock
from gcbridge.emulator.auth.sessions import KEY_FILE, SessionError, SessionStore, load_or_create_key
from gcbridge.emulator.auth.users import insert_user
from gcbridge.emulator.db import Database


@pytest.fixture
def db(tmp_path: Path) -> Database:
    database = Database(tmp_path / "db.sqlite3")
    with database.transaction() as conn:
        insert_user(
            conn,
            user_id="u1",
            site="demo",
            username="ada",
            email="a@x.io",
            avatar="https://a/",
            now=1,
        )
    return database


def _store(db: Database, tmp_path: Path, clock: ManualClock, max_age: int = 3600) -> SessionStore:
    return SessionStore(db, load_or_create_key(tmp_path), clock=clock, max_age=max_age)


def _issue(store: SessionStore, db: Database) -> str:
    with db.transaction() as conn:
        return store.issue(conn, "u1")


def test_key_is_created_once_private_and_reused(tmp_path: Path) -> None:
    key = load_or_create_key(tmp_path / "data")
    path = tmp_path / "data" / KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(key) >= 32
    assert load_or_create_key(tmp_path / "data") == key
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind


def test_a_truncated_key_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / KEY_FILE).write_text("short\n")
    with pytest.raises(Exception) as info:
        load_or_create_key(tmp_path)
    assert getattr(info.value, "reason", None) == "bad_session_key"


def test_token_resolves_to_its_user_and_survives_a_new_store(db: Database, tmp_path: Path) -> None:
    clock = ManualClock()
    token = _issue(_store(db, tmp_path, clock), db)
    assert _store(db, tmp_path, clock).resolve(token)["username"] == "ada"


def test_token_expires_after_max_age_on_the_injected_clock(db: Database, tmp_path: Path) -> None:
    clock = ManualClock()
    store = _store(db, tmp_path, clock, max_age=100)
    token = _issue(store, db)
    clock.advance(100)
    assert store.resolve(token)["id"] == "u1"
    clock.advance(2)
    with pytest.raises(SessionError) as info:
        store.resolve(token)
    assert info.value.reason == "expired"


@pytest.mark.parametrize(
    "mutate", [lambda t: t[:-2] + ("AA" if not t.endswith("AA") else "BB"), lambda t: "x" + t]
)
def test_tampered_token_is_refused(db: Database, tmp_path: Path, mutate: object) -> None:
    clock = ManualClock()
    store = _store(db, tmp_path, clock)
    token = _issue(store, db)
    with pytest.raises(SessionError) as info:
        store.resolve(mutate(token))  # type: ignore[operator]
    assert info.value.reason == "bad_signature"


def test_token_of_another_data_dir_is_refused(db: Database, tmp_path: Path) -> None:
    clock = ManualClock()
    token = _issue(_store(db, tmp_path / "one", clock), db)
    with pytest.raises(SessionError) as info:
        _store(db, tmp_path / "two", clock).resolve(token)
    assert info.value.reason == "bad_signature"


@pytest.mark.parametrize("token", ["", "a" * 600, "not-a-token"])
def test_garbage_is_refused(db: Database, tmp_path: Path, token: str) -> None:
    with pytest.raises(SessionError) as info:
        _store(db, tmp_path, ManualClock()).resolve(token)
    assert info.value.reason in ("malformed", "bad_signature")


def test_revoke_signs_out_that_token_only(db: Database, tmp_path: Path) -> None:
    store = _store(db, tmp_path, ManualClock())
    first, second = _issue(store, db), _issue(store, db)
    assert store.revoke(first) is True
    assert store.revoke(first) is False  # twice: nothing to do
    with pytest.raises(SessionError) as info:
        store.resolve(first)
    assert info.value.reason == "revoked"
    assert store.resolve(second)["id"] == "u1"
    assert store.revoke("garbage") is False
