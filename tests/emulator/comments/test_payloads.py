"""gcbridge.emulator.comments.payloads: the exact webhook body shapes from rows
(docs/reference/wire-formats.md#webhook-deliveries)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcbridge.emulator.auth.users import insert_user
from gcbridge.emulator.comments.payloads import comment_json, event_body, thread_json
from gcbridge.emulator.comments.store import upsert_thread
from gcbridge.emulator.db import Database

T0 = 1_767_225_600.0  # 2026-01-01T00:00:00Z


@pytest.fixture
def db(tmp_path: Path) -> Database:
    database = Database(tmp_path / "db.sqlite3")
    with database.transaction() as conn:
        insert_user(
            conn,
            user_id="a" * 24,
            site="demo",
            external_id="sso-7",
            username="ada",
            email="ada@example.com",
            avatar="https://cdn.example/ada.png",
            now=T0,
        )
        upsert_thread(
            conn,
            site="demo",
            uid="article-1",
            url="https://n.example/1",
            page_title="Title",
            now=T0,
        )
        thread_id = conn.execute("SELECT id FROM threads").fetchone()[0]
        conn.execute(
            "INSERT INTO comments VALUES"
            " ('p1', 'demo', ?, NULL, 'ext-p1', ?, 'parent', 'approved', ?, ?)",
            (thread_id, "a" * 24, T0, T0),
        )
        conn.execute(
            "INSERT INTO comments VALUES"
            " ('c1', 'demo', ?, 'p1', NULL, ?, 'Ça va ?', 'deleted', ?, ?)",
            (thread_id, "a" * 24, T0 + 1.5, T0 + 61.25),
        )
    return database


def test_comment_json_is_spec_2_4_data_comment(db: Database) -> None:
    with db.read() as conn:
        thread_id = conn.execute("SELECT id FROM threads").fetchone()[0]
        assert comment_json(conn, "c1") == {
            "id": "c1",
            "external_id": None,
            "content": "Ça va ?",
            "created_at": "2026-01-01T00:00:01.500Z",
            "updated_at": "2026-01-01T00:01:01.250Z",
            "thread_id": thread_id,
            "external_thread_id": "article-1",
            "parent_id": "p1",
            "external_parent_id": "ext-p1",
            "status": "deleted",
            "author": {
                "id": "a" * 24,
                "external_id": "sso-7",
                "guest": False,
                "name": "ada",
                "email": "ada@example.com",
                "avatar": "https://cdn.example/ada.png",
            },
        }


def test_thread_json_is_spec_2_4_data_thread(db: Database) -> None:
    with db.read() as conn:
        thread_id = conn.execute("SELECT id FROM threads").fetchone()[0]
        assert thread_json(conn, thread_id) == {
            "id": thread_id,
            "page_title": "Title",
            "created_at": "2026-01-01T00:00:00.000Z",
            "updated_at": "2026-01-01T00:00:00.000Z",
            "external_id": "article-1",
        }


def test_event_body_is_compact_utf8_json_in_spec_order(db: Database) -> None:
    with db.read() as conn:
        raw = event_body(
            conn,
            website_id="f" * 24,
            event_type="comment.deleted",
            comment_id="c1",
            timestamp_ms=1_767_225_661_250,
        )
        parsed = json.loads(raw)
        assert list(parsed) == ["event_type", "timestamp", "website_id", "data"]
        assert parsed["timestamp"] == 1_767_225_661_250
        assert parsed["data"] == {
            "comment": comment_json(conn, "c1"),
            "thread": thread_json(conn, parsed["data"]["thread"]["id"]),
        }
    assert b", " not in raw and b": " not in raw
    assert "Ça va ?".encode() in raw  # UTF-8, not \\u escapes


def test_unknown_ids_raise_key_error(db: Database) -> None:
    with db.read() as conn, pytest.raises(KeyError):
        comment_json(conn, "nope")
    with db.read() as conn, pytest.raises(KeyError):
        thread_json(conn, "nope")
