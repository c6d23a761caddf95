"""A comment's attachment: what the widget's file input picked (name, media type, size)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from gcbridge.emulator.comments.payloads import comment_json
from gcbridge.emulator.control import state_store
from tests.emulator.core_support import Emu

SignIn = Callable[..., tuple[str, dict[str, Any]]]
NOTE = {"name": "receipt.pdf", "type": "application/pdf", "size": 48213}


def _post(client: httpx.Client, token: str, uid: str, **kw: Any) -> httpx.Response:
    body = {
        "website_id": "demo",
        "uid": uid,
        "url": f"https://news.example/{uid}",
        "page_title": f"Article {uid}",
        "content": "See the attached file",
        **kw,
    }
    return client.post("/api/pub/comments", json=body, headers={"Authorization": f"Bearer {token}"})


def test_a_comment_carries_its_attachment_in_answers_listing_and_webhook(
    emu: Emu, sign_in: SignIn, uniq: Callable[[str], str]
) -> None:
    token, _ = sign_in()
    uid = uniq("thread")
    created = _post(emu.http, token, uid, attachment=NOTE)
    assert created.status_code == 201, created.text
    assert created.json()["attachment"] == NOTE
    plain = _post(emu.http, token, uid).json()
    assert "attachment" not in plain  # a comment without one keeps the documented body

    listing = emu.http.get("/api/pub/comments", params={"website_id": "demo", "uid": uid}).json()
    assert [c.get("attachment") for c in listing["comments"]] == [NOTE, None]
    with emu.db.read() as conn:  # the webhook body is built from the same object
        assert comment_json(conn, created.json()["id"])["attachment"] == NOTE


@pytest.mark.parametrize(
    ("attachment", "reason"),
    [
        ({"name": "../../etc/passwd", "size": 1}, "invalid_parameter"),
        ({"name": "a\\b.txt", "size": 1}, "invalid_parameter"),
        ({"name": " ", "size": 1}, "invalid_parameter"),
        ({"name": "x.txt", "size": -1}, "invalid_request"),
        ({"name": "x.txt", "size": 26 * 1024 * 1024}, "invalid_request"),
        ({"name": "x.txt", "type": "text/plain\r\nX: y", "size": 1}, "invalid_request"),
    ],
)
def test_an_attachment_is_a_file_name_with_a_bounded_size(
    emu: Emu, sign_in: SignIn, attachment: dict[str, Any], reason: str
) -> None:
    token, _ = sign_in()
    resp = _post(emu.http, token, "t-attach", attachment=attachment)
    assert resp.status_code == 400, resp.text
    assert resp.json()["error"] == reason


def test_reset_removes_attachments_and_an_older_snapshot_still_restores(
    emu: Emu, sign_in: SignIn, uniq: Callable[[str], str], tmp_path: Path
) -> None:
    token, _ = sign_in()
    uid = uniq("thread")
    _post(emu.http, token, uid, attachment=NOTE)
    # A snapshot saved before attachments existed: the same database without that table,
    # and without a schema version (none was recorded then).
    state_store.save(emu.db, tmp_path, "before")
    older = sqlite3.connect(tmp_path / "snapshots" / "before.sqlite3")
    with older:
        older.execute("DROP TABLE attachments")
        older.execute("PRAGMA user_version = 0")
    older.close()
    state_store.reset(emu.db)
    state_store.restore(emu.db, tmp_path, "before")
    listing = emu.http.get("/api/pub/comments", params={"website_id": "demo", "uid": uid}).json()
    assert [c.get("attachment") for c in listing["comments"]] == [None]
    assert _post(emu.http, token, uid, attachment=NOTE).status_code == 201  # the table is back
