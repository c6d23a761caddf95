"""Comments and moderation; every change fires its webhook event (:mod:`gcbridge.webhooks.catalog`).

``website_id`` is the site's shortname or its internal 24-hex id, either one. Outbox rule:
the comment row and its webhook ``calls`` row are written in ONE transaction
(``enqueue_event`` inside ``state.db.transaction()``), so a crash loses neither without
the other; the dispatcher is woken only after the commit. New comments are published at
once (``approved``); a refused comment is ``deleted``, like a deleted one
(docs/explanation/service.md#webhooks).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from gcbridge.emulator.auth.accounts import bearer_token, require_user
from gcbridge.emulator.comments.openapi import LIST_COMMENTS_EXTRA
from gcbridge.emulator.comments.payloads import (
    comment_json,
    event_body,
    public_comment,
    thread_comments_json,
    thread_json,
)
from gcbridge.emulator.comments.store import find_thread, get_comment, upsert_thread
from gcbridge.emulator.comments.validate import (
    MAX_ATTACHMENT_BYTES,
    MAX_ATTACHMENT_NAME,
    MAX_CONTENT,
    check_attachment_name,
    check_content,
    check_page_title,
    check_uid,
    check_url,
    invalid,
)
from gcbridge.emulator.db import new_id
from gcbridge.emulator.errors import ApiError
from gcbridge.emulator.inputs import StrictBody
from gcbridge.emulator.openapi import error_responses
from gcbridge.emulator.sites import Site
from gcbridge.emulator.state import EmulatorState, state_of
from gcbridge.emulator.webhooks import journal
from gcbridge.webhooks.catalog import APPROVED, CREATED, DELETED, UPDATED, EventKind

__all__ = ["router"]

router = APIRouter(tags=["comments"])


class NewAttachment(StrictBody):
    """A file the author picked with the widget's file input: what the widget says of it."""

    model_config = ConfigDict(extra="ignore")
    name: str = Field(max_length=MAX_ATTACHMENT_NAME * 2, description="the file's name")
    type: str = Field(
        default="",
        max_length=127,
        pattern=r"^([A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+)?$",
        description="its media type ('' if the browser gave none)",
    )
    size: int = Field(ge=0, le=MAX_ATTACHMENT_BYTES, description="its size in bytes")


class NewComment(StrictBody):
    """Body of ``POST /api/pub/comments``."""

    model_config = ConfigDict(extra="ignore")
    website_id: str = Field(
        max_length=64,
        description="the site's shortname or its 24-hex website_id (webhook routes: 24-hex)",
    )
    uid: str
    url: str
    page_title: str
    content: str = Field(max_length=MAX_CONTENT * 2)
    parent_id: str | None = Field(default=None, max_length=64)
    attachment: NewAttachment | None = None


class CommentEdit(StrictBody):
    """Body of ``PATCH /api/pub/comments/{id}``."""

    model_config = ConfigDict(extra="ignore")
    content: str = Field(max_length=MAX_CONTENT * 2)


def _record(
    conn: sqlite3.Connection, state: EmulatorState, site: Site, event_type: str, comment_id: str
) -> None:
    # The webhook engine queues the event; the body is ours to build.
    journal.enqueue_event(
        conn,
        site=site,
        event_type=event_type,
        body=lambda timestamp_ms: event_body(
            conn,
            website_id=site.website_id,
            event_type=event_type,
            comment_id=comment_id,
            timestamp_ms=timestamp_ms,
        ),
        now=state.clock.now(),
    )


def _not_found(comment_id: str) -> ApiError:
    return ApiError(404, "comment_not_found", f"no comment {comment_id[:64]!r}")


@router.get(
    "/api/pub/comments",
    summary="A thread and its visible comments, oldest first",
    responses=error_responses(400, 404),
    openapi_extra=LIST_COMMENTS_EXTRA,
)
async def list_comments(request: Request) -> dict[str, Any]:
    """``{"thread": <thread or null>, "comments": [...]}`` (deleted comments left out)."""
    state = state_of(request)
    website_id = request.query_params.get("website_id")
    if not website_id:
        raise invalid("website_id", "required: the site's shortname or its 24-hex website_id")
    uid = check_uid(request.query_params.get("uid"))
    site = state.site(website_id)

    def read() -> dict[str, Any]:
        with state.db.read() as conn:
            thread = find_thread(conn, site.shortname, uid)
            if thread is None:
                return {"thread": None, "comments": []}
            return {
                "thread": thread_json(conn, thread["id"]),
                "comments": [public_comment(c) for c in thread_comments_json(conn, thread["id"])],
            }

    return await run_in_threadpool(read)


@router.post(
    "/api/pub/comments",
    status_code=201,
    summary=f"Post a comment (fires {CREATED.name})",
    responses=error_responses(400, 401, 403, 404),
)
async def post_comment(body: NewComment, request: Request) -> Response:
    """Create a comment by the signed-in user on the thread ``(website_id, uid)``."""
    state = state_of(request)
    user = await _signed_in_user(request)
    site = state.site(body.website_id)
    if user["site"] != site.shortname:
        raise ApiError(
            403, "wrong_site", "this session belongs to another site; sign in on this one"
        )
    uid, url, title = check_uid(body.uid), check_url(body.url), check_page_title(body.page_title)
    content = check_content(body.content)
    attachment = body.attachment
    if attachment is not None:
        check_attachment_name(attachment.name, "attachment.name")

    def write() -> dict[str, Any]:
        now = state.clock.now()
        with state.db.transaction() as conn:
            _still_signed_in(request, conn)
            thread_id = upsert_thread(
                conn, site=site.shortname, uid=uid, url=url, page_title=title, now=now
            )
            if body.parent_id is not None:
                parent = get_comment(conn, body.parent_id)
                if parent is None or parent["thread_id"] != thread_id:
                    raise invalid("parent_id", "no such comment in this thread")
                if parent["status"] == "deleted":
                    raise invalid("parent_id", "the parent comment was deleted")
            comment_id = new_id()
            conn.execute(
                """INSERT INTO comments (id, site, thread_id, parent_id, external_id, author_id,
                                         content, status, created_at, updated_at)
                   VALUES (?, ?, ?, ?, NULL, ?, ?, 'approved', ?, ?)""",
                (
                    comment_id,
                    site.shortname,
                    thread_id,
                    body.parent_id,
                    user["id"],
                    content,
                    now,
                    now,
                ),
            )
            if attachment is not None:
                conn.execute(
                    "INSERT INTO attachments (comment_id, name, type, size) VALUES (?, ?, ?, ?)",
                    (comment_id, attachment.name, attachment.type, attachment.size),
                )
            _record(conn, state, site, CREATED.name, comment_id)
            return comment_json(conn, comment_id)

    comment = await run_in_threadpool(write)
    state.dispatcher.wake()
    return JSONResponse(public_comment(comment), status_code=201)


async def _signed_in_user(request: Request) -> sqlite3.Row:
    return await run_in_threadpool(lambda: require_user(request, invalid_reason="auth_required"))


def _still_signed_in(request: Request, conn: sqlite3.Connection) -> None:
    """The session check again, in the write's transaction (a reset may have come between)."""
    require_user(request, invalid_reason="auth_required", conn=conn)


async def _change_own_comment(
    request: Request,
    user: sqlite3.Row,
    comment_id: str,
    change: Callable[[sqlite3.Connection, sqlite3.Row], str | None],
) -> Response:
    """The author's change of their comment: ``change`` returns the event it fires, or None."""
    state = state_of(request)

    def write() -> tuple[dict[str, Any], bool]:
        with state.db.transaction() as conn:
            _still_signed_in(request, conn)
            row = get_comment(conn, comment_id)
            if row is None or row["site"] != user["site"]:
                raise _not_found(comment_id)
            if row["author_id"] != user["id"]:
                raise ApiError(403, "not_author", "only the author can change this comment")
            event = change(conn, row)
            if event is not None:
                _record(conn, state, state.site(row["site"]), event, comment_id)
            return comment_json(conn, comment_id), event is not None

    comment, changed = await run_in_threadpool(write)
    if changed:
        state.dispatcher.wake()
    return JSONResponse(public_comment(comment))


@router.patch(
    "/api/pub/comments/{comment_id}",
    summary=f"Edit your comment (fires {UPDATED.name})",
    responses=error_responses(400, 401, 403, 404, 409),
)
async def edit_comment(comment_id: str, body: CommentEdit, request: Request) -> Response:
    """Replace the content of the signed-in user's comment; unchanged content fires nothing."""
    user = await _signed_in_user(request)
    content = check_content(body.content)
    now = state_of(request).clock.now

    def edit(conn: sqlite3.Connection, row: sqlite3.Row) -> str | None:
        if row["status"] == "deleted":
            raise ApiError(409, "comment_deleted", "a deleted comment cannot be edited")
        if row["content"] == content:
            return None
        conn.execute(
            "UPDATE comments SET content = ?, updated_at = ? WHERE id = ?",
            (content, now(), comment_id),
        )
        return UPDATED.name

    return await _change_own_comment(request, user, comment_id, edit)


@router.delete(
    "/api/pub/comments/{comment_id}",
    summary=f"Delete your comment (fires {DELETED.name})",
    responses=error_responses(401, 403, 404),
)
async def delete_comment(comment_id: str, request: Request) -> Response:
    """Mark the signed-in user's comment deleted; deleting twice fires once."""
    state = state_of(request)

    def delete(conn: sqlite3.Connection, row: sqlite3.Row) -> str | None:
        if row["status"] == "deleted":
            return None
        _set_status(conn, state, comment_id, "deleted")
        return DELETED.name

    return await _change_own_comment(request, await _signed_in_user(request), comment_id, delete)


def _set_status(
    conn: sqlite3.Connection, state: EmulatorState, comment_id: str, status: str
) -> None:
    conn.execute(
        "UPDATE comments SET status = ?, updated_at = ? WHERE id = ?",
        (status, state.clock.now(), comment_id),
    )


def _moderator_site(request: Request) -> Site:
    """The site whose account token is the Bearer token (each compared in constant time)."""
    token = bearer_token(request)
    if token is None:
        raise ApiError(401, "auth_required", "Authorization: Bearer <site account token> required")
    matched = state_of(request).settings.sites.by_account_token(token)
    if matched is None:
        raise ApiError(401, "invalid_account_token", "the account token is not valid")
    return matched


def _moderation_route(action: str, status: str, event: EventKind, doc: str) -> None:
    """``POST /api/moderation/comments/{id}/<action>``: set ``status``, fire ``event``."""

    async def moderate(comment_id: str, request: Request) -> Response:
        state = state_of(request)
        site = _moderator_site(request)

        def write() -> dict[str, Any]:
            with state.db.transaction() as conn:
                row = get_comment(conn, comment_id)
                # Another site's comment is "not found" for this token: ids do not leak.
                if row is None or row["site"] != site.shortname:
                    raise _not_found(comment_id)
                _set_status(conn, state, comment_id, status)
                _record(conn, state, site, event.name, comment_id)
                return comment_json(conn, comment_id)

        comment = await run_in_threadpool(write)
        state.dispatcher.wake()
        return JSONResponse(comment)

    router.post(
        f"/api/moderation/comments/{{comment_id}}/{action}",
        name=f"{action}_comment",
        summary=f"{action.capitalize()} (fires {event.name})",
        description=doc,
        responses=error_responses(401, 404),
    )(moderate)


_moderation_route(
    "approve",
    "approved",
    APPROVED,
    "Set status ``approved``; every approval is a moderator action and fires its event.",
)
_moderation_route(
    "refuse",
    "deleted",
    DELETED,
    "Set status ``deleted``: there is no refused event, a refusal fires the deleted one.",
)
