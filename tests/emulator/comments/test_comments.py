"""Comments, moderation and their outbox rows (one transaction per change)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from gcbridge.clock import ManualClock, utc_iso
from gcbridge.emulator.testing import EXAMPLE_SITE, OTHER_SITE
from tests.emulator.core_support import Emu, bearer

COMMENT_KEYS = {
    "id",
    "external_id",
    "content",
    "created_at",
    "updated_at",
    "thread_id",
    "external_thread_id",
    "parent_id",
    "external_parent_id",
    "status",
    "author",
}
SignIn = Callable[..., tuple[str, dict[str, Any]]]


@pytest.fixture(scope="module", autouse=True)
def webhooks_on(emu: Emu) -> None:
    """Both sites subscribe to every event, so that each change queues a call."""
    for site in (EXAMPLE_SITE, OTHER_SITE):
        resp = emu.http.post(
            f"/webhook/website/{site.website_id}/setup",
            json={
                "url": "http://127.0.0.1:9/hook",
                "events": [
                    "comment.created",
                    "comment.updated",
                    "comment.approved",
                    "comment.deleted",
                ],
            },
            headers=bearer(site.account_token),
        )
        assert resp.status_code == 200 and "gcCode" not in resp.json(), resp.text


def _error(resp: httpx.Response, status: int, reason: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body: dict[str, Any] = resp.json()
    assert body["gcCode"] == status and body["error"] == reason
    return body


def _post(
    client: httpx.Client, token: str | None, uid: str, content: str = "Hello", **kw: Any
) -> httpx.Response:
    body = {
        "website_id": "demo",
        "uid": uid,
        "url": f"https://news.example/{uid}",
        "page_title": f"Article {uid}",
        "content": content,
        **kw,
    }
    return client.post("/api/pub/comments", json=body, headers=bearer(token) if token else {})


def _calls(emu: Emu, comment_id: str) -> list[dict[str, Any]]:
    """Outbox rows whose body is about ``comment_id``, oldest first."""
    with emu.db.read() as conn:
        rows = conn.execute(
            "SELECT website_id, event_type, body, status FROM calls ORDER BY seq"
        ).fetchall()
    out = []
    for row in rows:
        body = json.loads(row["body"])
        if body["data"]["comment"]["id"] == comment_id:
            out.append({**dict(row), "body": body})
    return out


def test_post_comment_answers_spec_json_and_queues_comment_created(
    emu: Emu, sign_in: SignIn, uniq: Callable[[str], str], clock: ManualClock
) -> None:
    token, user = sign_in()
    uid = uniq("thread")
    resp = _post(emu.http, token, uid, "  First!\n")
    assert resp.status_code == 201, resp.text
    comment = resp.json()
    assert set(comment) == COMMENT_KEYS
    assert comment["content"] == "First!"
    assert comment["status"] == "approved"
    assert comment["external_id"] is None
    assert comment["external_thread_id"] == uid
    assert comment["parent_id"] is None and comment["external_parent_id"] is None
    assert comment["created_at"] == comment["updated_at"] == utc_iso(clock.now())
    # The widget answer never carries the author's e-mail; the signed webhook body does.
    assert comment["author"] == {k: v for k, v in user.items() if k not in ("username", "email")}
    calls = _calls(emu, comment["id"])
    assert [c["event_type"] for c in calls] == ["comment.created"]
    assert calls[0]["website_id"] == EXAMPLE_SITE.website_id and calls[0]["status"] == "pending"
    body = calls[0]["body"]
    assert body["event_type"] == "comment.created" and body["website_id"] == EXAMPLE_SITE.website_id
    assert body["data"]["comment"]["author"]["email"] == user["email"]
    assert body["data"]["comment"] == {
        **comment,
        "author": {**comment["author"], "email": user["email"]},
    }
    assert body["data"]["thread"]["external_id"] == uid
    assert body["data"]["thread"]["page_title"] == f"Article {uid}"


def test_listing_shows_the_thread_and_visible_comments_oldest_first(
    emu: Emu, sign_in: SignIn, uniq: Callable[[str], str], clock: ManualClock
) -> None:
    token, _ = sign_in()
    uid = uniq("thread")
    assert emu.http.get("/api/pub/comments", params={"website_id": "demo", "uid": uid}).json() == {
        "thread": None,
        "comments": [],
    }
    ids = []
    for text in ("one", "two", "three"):
        ids.append(_post(emu.http, token, uid, text).json()["id"])
        clock.advance(1)
    emu.http.delete(f"/api/pub/comments/{ids[1]}", headers=bearer(token))
    listing = emu.http.get("/api/pub/comments", params={"website_id": "demo", "uid": uid}).json()
    assert [c["content"] for c in listing["comments"]] == ["one", "three"]
    assert listing["thread"]["external_id"] == uid
    _error(
        emu.http.get("/api/pub/comments", params={"website_id": "nope", "uid": uid}),
        404,
        "unknown_site",
    )
    _error(
        emu.http.get("/api/pub/comments", params={"website_id": "demo"}), 400, "invalid_parameter"
    )


def test_reply_carries_its_parent(emu: Emu, sign_in: SignIn, uniq: Callable[[str], str]) -> None:
    token, _ = sign_in()
    uid = uniq("thread")
    parent = _post(emu.http, token, uid).json()
    reply = _post(emu.http, token, uid, "Re", parent_id=parent["id"])
    assert reply.status_code == 201
    assert reply.json()["parent_id"] == parent["id"]
    assert reply.json()["external_parent_id"] is None  # the parent has no caller-side id


def test_parent_must_be_a_live_comment_of_the_same_thread(
    emu: Emu, sign_in: SignIn, uniq: Callable[[str], str]
) -> None:
    token, _ = sign_in()
    uid, elsewhere = uniq("thread"), uniq("thread")
    foreign = _post(emu.http, token, elsewhere).json()
    for parent_id in (foreign["id"], "0" * 24):
        body = _error(_post(emu.http, token, uid, parent_id=parent_id), 400, "invalid_parameter")
        assert body["message"].startswith("parent_id:")
    gone = _post(emu.http, token, uid).json()
    emu.http.delete(f"/api/pub/comments/{gone['id']}", headers=bearer(token))
    _error(_post(emu.http, token, uid, parent_id=gone["id"]), 400, "invalid_parameter")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("content", ""),
        ("content", " \n\t "),
        ("content", "x" * 10_001),
        ("uid", ""),
        ("url", "not a url"),
        ("page_title", ""),
    ],
)
def test_post_validates_its_input(emu: Emu, sign_in: SignIn, field: str, value: str) -> None:
    token, _ = sign_in()
    resp = _post(emu.http, token, **{"uid": "t-validate", field: value})
    body = _error(resp, 400, "invalid_parameter")
    assert body["message"].startswith(f"{field}:")


def test_posting_needs_a_session_of_that_site(emu: Emu, sign_in: SignIn) -> None:
    _error(_post(emu.http, None, "t-auth"), 401, "auth_required")
    _error(_post(emu.http, "forged", "t-auth"), 401, "auth_required")
    other_token, _ = sign_in(OTHER_SITE)
    _error(_post(emu.http, other_token, "t-auth"), 403, "wrong_site")
    token, _ = sign_in()
    _error(_post(emu.http, token, "t-auth", website_id="nope"), 404, "unknown_site")


def test_author_edits_and_deletes_with_events(
    emu: Emu, sign_in: SignIn, uniq: Callable[[str], str], clock: ManualClock
) -> None:
    token, _ = sign_in()
    comment = _post(emu.http, token, uniq("thread")).json()
    clock.advance(5)
    url = f"/api/pub/comments/{comment['id']}"
    edited = emu.http.patch(url, json={"content": "Edited"}, headers=bearer(token))
    assert edited.status_code == 200
    assert edited.json()["content"] == "Edited"
    assert edited.json()["updated_at"] == utc_iso(clock.now()) != edited.json()["created_at"]
    same = emu.http.patch(url, json={"content": "Edited"}, headers=bearer(token))
    assert same.status_code == 200  # no change, no event
    deleted = emu.http.delete(url, headers=bearer(token))
    assert deleted.status_code == 200 and deleted.json()["status"] == "deleted"
    assert (
        emu.http.delete(url, headers=bearer(token)).json()["status"] == "deleted"
    )  # twice: one event
    _error(
        emu.http.patch(url, json={"content": "Back"}, headers=bearer(token)), 409, "comment_deleted"
    )
    events = [c["event_type"] for c in _calls(emu, comment["id"])]
    assert events == ["comment.created", "comment.updated", "comment.deleted"]
    assert _calls(emu, comment["id"])[1]["body"]["data"]["comment"]["content"] == "Edited"


def test_only_the_author_may_edit_or_delete(
    emu: Emu, sign_in: SignIn, uniq: Callable[[str], str]
) -> None:
    author, _ = sign_in()
    intruder, _ = sign_in()
    other_site, _ = sign_in(OTHER_SITE)
    comment = _post(emu.http, author, uniq("thread")).json()
    url = f"/api/pub/comments/{comment['id']}"
    _error(
        emu.http.patch(url, json={"content": "Mine"}, headers=bearer(intruder)), 403, "not_author"
    )
    _error(emu.http.delete(url, headers=bearer(intruder)), 403, "not_author")
    _error(emu.http.delete(url, headers=bearer(other_site)), 404, "comment_not_found")
    _error(emu.http.delete(url), 401, "auth_required")
    _error(
        emu.http.patch("/api/pub/comments/nope", json={"content": "x"}, headers=bearer(author)),
        404,
        "comment_not_found",
    )
    assert [c["event_type"] for c in _calls(emu, comment["id"])] == ["comment.created"]
    listing = emu.http.get(
        "/api/pub/comments", params={"website_id": "demo", "uid": comment["external_thread_id"]}
    )
    assert listing.json()["comments"][0]["content"] == "Hello"


def test_moderation_approve_and_refuse(
    emu: Emu, sign_in: SignIn, uniq: Callable[[str], str]
) -> None:
    token, _ = sign_in()
    comment = _post(emu.http, token, uniq("thread")).json()
    mod = bearer(EXAMPLE_SITE.account_token)
    base = f"/api/moderation/comments/{comment['id']}"
    refused = emu.http.post(f"{base}/refuse", headers=mod)
    assert refused.status_code == 200 and refused.json()["status"] == "deleted"
    approved = emu.http.post(f"{base}/approve", headers=mod)
    assert approved.status_code == 200 and approved.json()["status"] == "approved"
    calls = _calls(emu, comment["id"])
    assert [c["event_type"] for c in calls] == [
        "comment.created",
        "comment.deleted",
        "comment.approved",
    ]
    assert (
        calls[1]["body"]["data"]["comment"]["status"] == "deleted"
    )  # a refusal is comment.deleted: there is no comment.refused


@pytest.mark.parametrize(
    ("headers", "status", "reason"),
    [
        ({}, 401, "auth_required"),
        (bearer("acct-wrong"), 401, "invalid_account_token"),
        (bearer(EXAMPLE_SITE.account_token + "x"), 401, "invalid_account_token"),
        (bearer(OTHER_SITE.account_token), 404, "comment_not_found"),
    ],
    ids=["none", "wrong", "longer", "other-site"],
)
def test_moderation_needs_the_comment_sites_account_token(
    emu: Emu,
    sign_in: SignIn,
    uniq: Callable[[str], str],
    headers: dict[str, str],
    status: int,
    reason: str,
) -> None:
    token, _ = sign_in()
    comment = _post(emu.http, token, uniq("thread")).json()
    for action in ("approve", "refuse"):
        _error(
            emu.http.post(f"/api/moderation/comments/{comment['id']}/{action}", headers=headers),
            status,
            reason,
        )
    assert [c["event_type"] for c in _calls(emu, comment["id"])] == ["comment.created"]


def test_without_a_webhook_changes_queue_nothing(
    make_emu: Callable[..., Emu], clock: ManualClock, uniq: Callable[[str], str]
) -> None:
    fresh = make_emu()
    token = fresh.http.post(
        "/api/pub/auth/register",
        json={
            "website_id": "demo",
            "username": uniq("u"),
            "email": "u@example.com",
            "password": "long enough",
        },
    ).json()["token"]
    assert _post(fresh.http, token, "t1").status_code == 201
    with fresh.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0] == 0


def test_if_the_outbox_write_fails_the_comment_is_not_written(
    emu: Emu, sign_in: SignIn, uniq: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gcbridge.emulator.webhooks.journal as journal

    token, _ = sign_in()
    uid = uniq("thread")
    kept = _post(emu.http, token, uid).json()

    def broken(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("disk full")

    monkeypatch.setattr(journal, "enqueue_event", broken)
    with emu.db.read() as conn:
        before = conn.execute("SELECT COUNT(*) FROM comments").fetchone()[0]
    # A fresh connection per failing request: the server drops the connection
    # after an unhandled error, and a reused keep-alive connection could race it.
    with httpx.Client(base_url=emu.url, headers={"Connection": "close"}) as once:
        assert _post(once, token, uid, "lost").status_code == 500
        edit = once.patch(
            f"/api/pub/comments/{kept['id']}", json={"content": "lost"}, headers=bearer(token)
        )
        assert edit.status_code == 500
        refuse = once.post(
            f"/api/moderation/comments/{kept['id']}/refuse",
            headers=bearer(EXAMPLE_SITE.account_token),
        )
        assert refuse.status_code == 500
    with emu.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM comments").fetchone()[0] == before
        row = conn.execute(
            "SELECT content, status FROM comments WHERE id = ?", (kept["id"],)
        ).fetchone()
    assert tuple(row) == ("Hello", "approved")


def test_the_site_is_named_by_its_shortname_or_its_24_hex_website_id(
    emu: Emu, sign_in: SignIn, uniq: Callable[[str], str]
) -> None:
    """The emulator's own widget and comment routes take either name of a site."""
    token, _ = sign_in()
    uid = uniq("thread")
    by_id = _post(emu.http, token, uid, "by id", website_id=EXAMPLE_SITE.website_id)
    assert by_id.status_code == 201, by_id.text
    by_name = _post(emu.http, token, uid, "by name", website_id=EXAMPLE_SITE.shortname)
    assert by_name.json()["thread_id"] == by_id.json()["thread_id"]
    for name in (EXAMPLE_SITE.shortname, EXAMPLE_SITE.website_id):
        listing = emu.http.get("/api/pub/comments", params={"website_id": name, "uid": uid})
        assert sorted(c["content"] for c in listing.json()["comments"]) == ["by id", "by name"]
    # A session of one site is not good for the other under either name.
    _error(_post(emu.http, token, uid, website_id=OTHER_SITE.website_id), 403, "wrong_site")
    register = emu.http.post(
        "/api/pub/auth/register",
        json={
            "website_id": EXAMPLE_SITE.website_id,
            "username": uniq("reg"),
            "email": f"{uniq('reg')}@example.com",
            "password": "a long enough password 123",
        },
    )
    assert register.status_code in (200, 201), register.text
