"""How ``gcbridge webhooks calls --follow`` and ``--show`` print calls (every value escaped)."""

from __future__ import annotations

from typing import Any

from gcbridge.webhooks.listen import printable

__all__ = ["follow_details", "format_attempts"]


def follow_details(call: dict[str, Any]) -> str:
    """What ``calls --follow`` adds to a table row: the error and the next attempt time."""
    attempts = call.get("attempts") or []
    last = attempts[-1] if attempts and isinstance(attempts[-1], dict) else {}
    extra = []
    error = call.get("error") or last.get("error")
    if error:
        extra.append(f"error {printable(error, 60)}")
    if call.get("status") == "pending" and call.get("next_attempt_at"):
        extra.append(f"next attempt {printable(call['next_attempt_at'], 32)}")
    return "  (" + "; ".join(extra) + ")" if extra else ""


def format_attempts(call: dict[str, Any]) -> list[str]:
    """The lines of ``calls --show``: the call, then one line per attempt (oldest first)."""
    code = call.get("response_code")
    lines = [
        f"call       {printable(call.get('id'))}",
        f"event      {printable(call.get('event_type'))}",
        f"delivery   {printable(call.get('delivery_id') or '-')}",
        f"status     {printable(call.get('status'))}"
        f"  response {printable('-' if code is None else code)}",
        f"url        {printable(call.get('url') or '-', 200)}",
        f"created    {printable(call.get('created_at') or '-')}",
    ]
    if call.get("replay_of"):
        lines.append(f"replay of  {printable(call['replay_of'])}")
    if call.get("error"):
        lines.append(f"error      {printable(call['error'], 200)}")
    if call.get("status") == "pending" and call.get("next_attempt_at"):
        lines.append(f"next       {printable(call['next_attempt_at'])}")
    attempts = call.get("attempts") or []
    lines.append(f"{'ATTEMPT':>7}  {'STARTED':<24} {'CODE':>4} {'MS':>8}  ERROR")
    for attempt in attempts:
        code = attempt.get("response_code")
        ms = attempt.get("duration_ms")
        state = "in flight" if attempt.get("in_flight") else (attempt.get("error") or "-")
        lines.append(
            f"{printable(attempt.get('number'), 7):>7}  "
            f"{printable(attempt.get('started_at') or '-', 24):<24} "
            f"{printable('-' if code is None else code, 4):>4} "
            f"{printable('-' if not isinstance(ms, int | float) else f'{ms:.0f}', 8):>8}  "
            f"{printable(state, 80)}"
        )
    if not attempts:
        lines.append("(no attempt yet)")
    return lines
