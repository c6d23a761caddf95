"""Reset, snapshots and restore of the emulator's whole state (contract: Emulator control)."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

from gcbridge.emulator.db import SCHEMA_VERSION
from gcbridge.sso import SsoIssuer
from tests.emulator.control.support import Client, Receiver, Reply


def test_reset_goes_back_to_the_sites_only_and_keeps_the_clock(
    client: Client, make_receiver: Callable[..., Receiver]
) -> None:
    rcv = make_receiver(Reply(500))
    client.setup(rcv.url)
    client.comment()
    client.clock(action="advance", seconds=90)
    clock_before = client.health()["clock"]

    answer = client.control("POST", "/reset")

    assert answer["clock"] == clock_before
    assert client.calls() == []
    assert client.health()["dispatcher"] == {"pending": 0, "next_due_at": None}
    config = client.http.get(
        f"/webhook/website/{client.site.website_id}/config", headers=client.account
    ).json()
    assert config.get("url") in (None, "")  # no webhook configuration any more
    # the session of before the reset is gone with its user; a new account works
    r = client.post_comment("after")
    assert r.status_code == 401
    client._session = None
    client.comment("after the reset")  # the sites are still there


def test_snapshot_and_restore_round_trip_with_pending_deliveries(
    client: Client, make_receiver: Callable[..., Receiver]
) -> None:
    rcv = make_receiver(Reply(500))
    client.setup(rcv.url)
    client.comment("kept")
    client.clock(action="advance", seconds=0)
    saved_calls = client.calls()
    assert saved_calls[0]["status"] == "pending"
    client.control("PUT", "/snapshots/one-pending")

    client.clock(action="advance", until="idle")  # the call fails for good
    client.comment("not in the snapshot")
    client.clock(action="advance", seconds=0)
    got = len(rcv.got)
    assert client.control("GET", "/snapshots") == {"snapshots": ["one-pending"]}

    client.control("POST", "/snapshots/one-pending/restore")

    restored = client.calls()
    # the same single call, with its journal of before; it was due long ago on the
    # clock (kept by a restore: time never goes back), so it runs on at once
    assert [c["id"] for c in restored] == [c["id"] for c in saved_calls]
    for key in ("delivery_id", "created_at", "first_sent_at", "event_type", "body"):
        assert restored[0][key] == saved_calls[0][key], key
    assert restored[0]["attempts"][0] == saved_calls[0]["attempts"][0]
    thread = client.http.get(
        "/api/pub/comments",
        params={"website_id": client.site.shortname, "uid": "article-1"},
    ).text
    assert "kept" in thread and "not in the snapshot" not in thread
    # the pending delivery comes back and runs on from where it was
    client.clock(action="advance", until="idle")
    assert len(rcv.got) == got + 5
    assert client.calls()[0]["retry_count"] == 5


def test_snapshot_files_are_private_and_names_are_checked(client: Client) -> None:
    client.control("PUT", "/snapshots/a_1")
    folder = client.emu.settings.data_dir / "snapshots"
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(folder / "a_1.sqlite3").st_mode) == 0o600
    for bad in ("..", "a.b", "x" * 65, "%2e%2e"):
        r = client.http.put(f"/_emulator/snapshots/{bad}", headers=client.admin)
        assert r.status_code in (400, 404), bad
    r = client.http.post("/_emulator/snapshots/nope/restore", headers=client.admin)
    assert (r.status_code, r.json()["error"]) == (404, "snapshot_not_found")


def test_a_failed_restore_leaves_the_state_as_it_was(client: Client) -> None:
    client.comment("still here")
    folder = client.emu.settings.data_dir / "snapshots"
    folder.mkdir(mode=0o700, exist_ok=True)
    (folder / "broken.sqlite3").write_bytes(b"not a database at all" * 100)
    r = client.http.post("/_emulator/snapshots/broken/restore", headers=client.admin)
    assert (r.status_code, r.json()["error"]) == (422, "snapshot_unreadable")
    r = client.http.get(
        "/api/pub/comments",
        params={"website_id": client.site.shortname, "uid": "article-1"},
    )
    assert "still here" in r.text


def _as_saved_by_an_older_version(snapshot: Path) -> None:
    """The snapshot as a version before ``username_shape``, ``meta`` and attachments saved it."""
    conn = sqlite3.connect(snapshot)
    try:
        conn.executescript(
            "DROP INDEX IF EXISTS users_username_shape;"
            " DROP INDEX IF EXISTS users_username_shape_plain;"
            " ALTER TABLE users DROP COLUMN username_shape;"
            " DROP TABLE meta; DROP TABLE attachments;"
            " PRAGMA user_version = 0;"
        )
    finally:
        conn.close()


def test_a_snapshot_of_an_older_version_is_migrated_on_restore(client: Client) -> None:
    client.comment("from an older version")
    client.control("PUT", "/snapshots/old")
    _as_saved_by_an_older_version(client.emu.settings.data_dir / "snapshots" / "old.sqlite3")
    client.control("POST", "/reset")

    client.control("POST", "/snapshots/old/restore")

    # every route that reads the users table works on the restored state
    token = SsoIssuer(client.site.sso_secret, allow_weak_secret=True).issue(
        {"id": "u-9", "username": "carol", "email": "carol@example.com"}
    )
    r = client.http.post(
        "/api/pub/sso/login", json={"api_public_key": client.site.sso_public_key, "ssoData": token}
    )
    assert r.status_code == 200, r.text
    register = {"website_id": client.site.shortname, "email": "x@example.com", "password": "p" * 8}
    r = client.http.post("/api/pub/auth/register", json={**register, "username": "bob"})
    assert r.status_code == 201, r.text
    # the look-alike keys of the restored users were computed: ALICE is alice
    r = client.http.post("/api/pub/auth/register", json={**register, "username": "ALICE"})
    assert (r.status_code, r.json()["error"]) == (409, "username_taken")
    client.comment("alice's session of the snapshot still works")
    r = client.http.get(
        "/api/pub/comments", params={"website_id": client.site.shortname, "uid": "article-1"}
    )
    assert "from an older version" in r.text
    client.control("PUT", "/snapshots/migrated")
    saved = sqlite3.connect(client.emu.settings.data_dir / "snapshots" / "migrated.sqlite3")
    try:
        assert saved.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        saved.close()


def test_a_snapshot_of_a_newer_version_is_refused_and_the_state_kept(client: Client) -> None:
    client.control("PUT", "/snapshots/newer")
    client.comment("still here")
    conn = sqlite3.connect(client.emu.settings.data_dir / "snapshots" / "newer.sqlite3")
    try:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        conn.commit()
    finally:
        conn.close()

    r = client.http.post("/_emulator/snapshots/newer/restore", headers=client.admin)

    assert (r.status_code, r.json()["error"]) == (422, "snapshot_too_new")
    assert f"schema version {SCHEMA_VERSION + 1}" in r.json()["message"]
    r = client.http.get(
        "/api/pub/comments", params={"website_id": client.site.shortname, "uid": "article-1"}
    )
    assert "still here" in r.text


def test_a_snapshot_lacking_a_table_of_its_own_version_is_refused(client: Client) -> None:
    client.control("PUT", "/snapshots/damaged")
    conn = sqlite3.connect(client.emu.settings.data_dir / "snapshots" / "damaged.sqlite3")
    try:
        conn.execute("DROP TABLE attachments")  # it says it is current, and is not
        conn.commit()
    finally:
        conn.close()
    r = client.http.post("/_emulator/snapshots/damaged/restore", headers=client.admin)
    assert (r.status_code, r.json()["error"]) == (422, "snapshot_unreadable")
    client.comment("the state was left as it was")
