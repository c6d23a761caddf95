"""The emulator's own control routes, under ``/_emulator/`` (docs/reference/emulator-control.md).

Every route but health needs ``Authorization: Bearer <admin token>`` (401
``admin_token_required`` otherwise). Times in answers are epoch milliseconds.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Depends, Request

from gcbridge import __version__
from gcbridge.emulator.control.operations import MAX_ADVANCE, Control
from gcbridge.emulator.control.token import token_matches
from gcbridge.emulator.errors import ApiError
from gcbridge.emulator.inputs import parse_json_object
from gcbridge.emulator.openapi import error_responses, json_request_body

__all__ = ["router", "control_of", "ms"]


def control_of(request: Request) -> Control:
    """The :class:`Control` of the app serving ``request``."""
    control: Control = request.app.state.control
    return control


def ms(seconds: float | None) -> int | None:
    """Unix seconds as epoch milliseconds (``None`` stays ``None``)."""
    return None if seconds is None else int(math.floor(seconds * 1000))


def require_admin(request: Request) -> Control:
    """The dependency of every control route but health: the admin token, or 401."""
    control = control_of(request)
    if not token_matches(control.admin_token, request.headers.get("authorization")):
        raise ApiError(
            401,
            "admin_token_required",
            "this route needs Authorization: Bearer <admin token> (--admin-token-env, "
            "or the admin-token file of the data dir)",
        )
    return control


router = APIRouter(prefix="/_emulator", tags=["emulator control"])
Admin = Depends(require_admin)


def _clock(control: Control) -> dict[str, Any]:
    return {"mode": control.mode, "now": ms(control.clock.now())}


_ADMIN_ERRORS = error_responses(400, 401, 404, 409)

_CLOCK_BODY = json_request_body(
    {
        "type": "object",
        "properties": {
            "action": {"enum": ["freeze", "resume", "advance"]},
            "seconds": {"type": "number", "minimum": 0, "maximum": MAX_ADVANCE},
            "until": {"enum": ["idle"]},
        },
        "required": ["action"],
    },
    'freeze, resume, or advance by "seconds" or "until": "idle"',
    required=True,
)


@router.get("/health", summary="Readiness, clock and queue (no authentication)")
async def health(request: Request) -> dict[str, Any]:
    control = control_of(request)
    pending = control.pending()
    return {
        "status": "ok",
        "version": __version__,
        "clock": _clock(control),
        "dispatcher": {"pending": pending.count, "next_due_at": ms(pending.next_due_at)},
    }


@router.get("/clock", summary="The emulator's clock", responses=_ADMIN_ERRORS)
async def get_clock(control: Control = Admin) -> dict[str, Any]:
    return _clock(control)


@router.post(
    "/clock",
    summary="Freeze, resume or advance the clock",
    responses=_ADMIN_ERRORS,
    openapi_extra=_CLOCK_BODY,
)
async def post_clock(request: Request, control: Control = Admin) -> dict[str, Any]:
    body = parse_json_object(await request.body())
    action = body.get("action")
    attempts = 0
    if action in ("freeze", "resume"):
        await control.set_clock(frozen=action == "freeze")
    elif action == "advance":
        gone = _client_gone(request)
        if body.get("until") == "idle" and "seconds" not in body:
            attempts = await control.advance(until_idle=True, client_gone=gone)
        else:
            attempts = await control.advance(_seconds(body.get("seconds")), client_gone=gone)
    else:
        raise ApiError(
            400, "invalid_action", 'action: "freeze", "resume" or "advance" (with seconds or until)'
        )
    return {**_clock(control), "attempts": attempts}


def _client_gone(request: Request) -> Callable[[], Awaitable[None]]:
    """A wait that returns once the client of ``request`` has disconnected.

    The body was read already, so the server's next message is ``http.disconnect``:
    when the client goes, or once the answer was sent.
    """

    async def wait() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            await asyncio.sleep(0)  # never spin without yielding to the loop

    return wait


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ApiError(
            400, "invalid_parameter", 'seconds: a number, or give "until": "idle" instead'
        )
    if not 0 <= value <= MAX_ADVANCE:
        raise ApiError(
            400, "invalid_parameter", f"seconds: 0 to {int(MAX_ADVANCE)} (30 days) at a time"
        )
    return float(value)


@router.post(
    "/reset", summary="Back to the sites only (the clock is kept)", responses=_ADMIN_ERRORS
)
async def reset(control: Control = Admin) -> dict[str, Any]:
    await control.reset()
    return {"reset": True, "clock": _clock(control)}


@router.get("/snapshots", summary="Saved snapshots", responses=_ADMIN_ERRORS)
async def list_snapshots(control: Control = Admin) -> dict[str, Any]:
    return {"snapshots": control.snapshots()}


@router.put(
    "/snapshots/{name}", summary="Save the whole state under a name", responses=_ADMIN_ERRORS
)
async def save_snapshot(name: str, control: Control = Admin) -> dict[str, Any]:
    await control.save(name)
    return {"snapshot": name, "saved": True}


@router.post("/snapshots/{name}/restore", summary="Bring a snapshot back", responses=_ADMIN_ERRORS)
async def restore_snapshot(name: str, control: Control = Admin) -> dict[str, Any]:
    await control.restore(name)
    return {"snapshot": name, "restored": True, "clock": _clock(control)}
