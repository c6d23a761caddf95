"""``gcbridge webhooks trigger | calls | replay``: drive a running emulator's webhooks.

The account token comes from ``--token-env VAR``: it never appears in shell history or
``ps``. Exit codes: 0 done, 1 the delivery failed or the emulator refused, 2 the emulator
cannot be reached. Everything printed from the emulator is escaped (see ``printable``).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from gcbridge.cli.emulator_ready import DEFAULT_URL
from gcbridge.emulator.webhooks.journal import CALL_STATUSES
from gcbridge.errors import GcBridgeError
from gcbridge.webhooks.catalog import EVENT_TYPES
from gcbridge.webhooks.listen import printable

__all__ = [
    "register_remote",
    "format_call",
    "CALLS_HEADER",
    "DEFAULT_HTTP_TIMEOUT",
    "DEFAULT_INTERVAL",
]

DEFAULT_HTTP_TIMEOUT = 10.0
"""Seconds each request to the emulator may take in total (``--http-timeout``)."""

DEFAULT_INTERVAL = 1.0
"""Seconds between two polls of ``webhooks calls --follow`` (``--interval``)."""

CALLS_HEADER = (
    f"{'CALL':<26} {'EVENT':<17} {'STATUS':<10} {'CODE':>4} {'TRIES':>5}  {'CREATED':<24} DELIVERY"
)
"""The header line of ``gcbridge webhooks calls``."""


class TokenUnset(GcBridgeError):
    """``--token-env`` names an unset variable."""

    reason = "token_env_unset"


def _client(args: argparse.Namespace) -> Any:
    from gcbridge.cli.webhooks_remote import EmulatorClient

    token = os.environ.get(args.token_env, "")
    if not token:
        raise TokenUnset(
            f"environment variable {args.token_env} is not set "
            "(it must hold the site's account token)"
        )
    return EmulatorClient(args.emulator, args.website_id, token, timeout=args.http_timeout)


def format_call(call: dict[str, Any]) -> str:
    """One table row of a call (every value escaped)."""
    code = call.get("response_code")
    tries = len(call.get("attempts") or [])
    return (
        f"{printable(call.get('id'), 26):<26} {printable(call.get('event_type'), 17):<17} "
        f"{printable(call.get('status'), 10):<10} {printable('-' if code is None else code, 4):>4} "
        f"{tries:>5}  {printable(call.get('created_at') or '-', 24):<24} "
        f"{printable(call.get('delivery_id') or '-')}"
    )


def _outcome(call: dict[str, Any]) -> str:
    attempts = call.get("attempts") or []
    last = attempts[-1] if attempts else {}
    code = call.get("response_code")
    parts = [
        f"call {printable(call.get('id'))}",
        f"delivery {printable(call.get('delivery_id') or '-')}",
        f"status {printable(call.get('status'))}",
        f"response {printable('-' if code is None else code)}",
    ]
    error = call.get("error") or last.get("error")
    if error:
        parts.append(f"error {printable(error)}")
    if call.get("status") == "pending" and call.get("next_attempt_at"):
        parts.append(f"next attempt {printable(call['next_attempt_at'])}")
    return ", ".join(parts)


def _run(args: argparse.Namespace, action: Any) -> int:
    from gcbridge.cli.webhooks_remote import RemoteError

    try:
        with _client(args) as client:
            return int(action(client))
    except RemoteError as exc:
        print(f"gcbridge: error [{exc.reason}]: {printable(exc, 400)}", file=sys.stderr)
        return 2 if exc.reason == "unreachable" else 1


def _schema_verdict(call: dict[str, Any], event_type: str) -> str | None:
    """``None`` if the call's body matches ``event_type``'s JSON Schema, else the error line."""
    from gcbridge.webhooks.schema_check import WebhookSchemaError, check_body

    try:
        check_body(str(call.get("body") or ""), event_type)
    except WebhookSchemaError as exc:
        return f"gcbridge: error [{exc.reason}]: the delivered body: {printable(exc, 400)}"
    return None


def _trigger(args: argparse.Namespace) -> int:
    def action(client: Any) -> int:
        fired = client.fire(args.event)
        print(f"fired {fired.event_type} on comment {printable(fired.comment_id)}", flush=True)
        call = client.wait_for_call(fired, timeout=args.timeout)
        print(_outcome(call))
        # What it made the emulator send is held to the published contract, too.
        verdict = _schema_verdict(call, fired.event_type)
        if verdict is not None:
            print(verdict, file=sys.stderr)
            return 1
        print(f"body matches the {fired.event_type} JSON Schema (gcbridge webhooks schema)")
        return 0 if call.get("status") == "succeeded" else 1

    return _run(args, action)


def _calls(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= 200:
        print("gcbridge: error [usage]: --limit: from 1 to 200", file=sys.stderr)
        return 2

    def action(client: Any) -> int:
        client.site()  # reachable, and the token is this site's, before any output
        if args.show:
            from gcbridge.cli.calls_view import format_attempts

            for line in format_attempts(client.find_call(args.show)):
                print(line)
            return 0
        print(CALLS_HEADER, flush=True)
        if args.follow:
            from gcbridge.cli.calls_view import follow_details

            for call in client.follow(
                status=args.status,
                event_type=args.event,
                limit=args.limit,
                interval=args.interval,
                polls=args.polls,
            ):
                print(format_call(call) + follow_details(call), flush=True)
            return 0
        page, _ = client.calls(status=args.status, event_type=args.event, limit=args.limit)
        for call in page:
            print(format_call(call))
        if not page:
            print("(no calls)")
        return 0

    return _run(args, action)


def _calls_interrupted(args: argparse.Namespace) -> tuple[str, int] | None:
    """Ctrl-C is how ``--follow`` ends: one line, exit 0 (any other stop is the rule)."""
    if args.follow:
        return "gcbridge webhooks calls: stopped following (Ctrl-C)", 0
    return None


def _replay(args: argparse.Namespace) -> int:
    def action(client: Any) -> int:
        from gcbridge.cli.webhooks_remote import Fired, call_comment_id

        fresh, made = client.replay(args.call_id)
        verb = "replayed" if made else "already replayed (no new delivery)"
        print(
            f"{verb} {printable(args.call_id)} as call {printable(fresh.get('id'))} "
            f"(delivery {printable(fresh.get('delivery_id'))})",
            flush=True,
        )
        if args.no_wait:
            return 0
        comment_id = call_comment_id(fresh) or ""
        call = client.wait_for_call(
            Fired(str(fresh.get("event_type")), comment_id),
            call_id=str(fresh.get("id")),
            timeout=args.timeout,
        )
        print(_outcome(call))
        return 0 if call.get("status") == "succeeded" else 1

    return _run(args, action)


def register_remote(sub: Any) -> None:
    """Add ``trigger``, ``calls`` and ``replay`` to the ``webhooks`` sub-parsers."""

    def emulator_options(p: argparse.ArgumentParser, *, site_of_token: bool = False) -> None:
        p.add_argument(
            "--emulator",
            default=DEFAULT_URL,
            metavar="URL",
            help="base URL of the running emulator (default %(default)s)",
        )
        p.add_argument(
            "--website-id",
            required=not site_of_token,
            metavar="ID",
            help="the site's website_id"
            + (" (default: the account token's site)" if site_of_token else ""),
        )
        p.add_argument(
            "--token-env",
            required=True,
            metavar="VAR",
            help="environment variable holding the site's account token",
        )
        p.add_argument(
            "--http-timeout",
            type=float,
            default=DEFAULT_HTTP_TIMEOUT,
            metavar="S",
            help="seconds for each request to the emulator, in total (default %(default)g)",
        )

    trigger = sub.add_parser(
        "trigger",
        allow_abbrev=False,
        help="fire a real event through the emulator and wait for its delivery",
        description="Act as a test user (or moderator) so the emulator fires EVENT, wait for "
        "its call, print its id, status and response code, and check its body against the "
        "event's JSON Schema; exit 1 if the delivery failed or the body does not match.",
    )
    emulator_options(trigger)
    trigger.add_argument("event", metavar="EVENT", choices=EVENT_TYPES, help=", ".join(EVENT_TYPES))
    trigger.add_argument(
        "--timeout",
        type=float,
        default=30,
        help="seconds to wait for the delivery (default %(default)g)",
    )
    trigger.set_defaults(func=_trigger)

    calls = sub.add_parser(
        "calls",
        allow_abbrev=False,
        help="print the delivery journal as a table (--follow to stream it)",
    )
    emulator_options(calls)
    calls.add_argument("--status", choices=CALL_STATUSES)
    calls.add_argument("--event", choices=EVENT_TYPES, metavar="EVENT")
    calls.add_argument(
        "--limit",
        type=int,
        default=50,
        help="rows (1-200, default %(default)s); with --follow, the newest this many on each poll",
    )
    calls.add_argument(
        "--follow",
        action="store_true",
        help="keep printing calls as attempts happen, with the error and the next attempt "
        "time (Ctrl-C stops)",
    )
    calls.add_argument(
        "--show",
        metavar="CALL_ID",
        help="print one call and each of its attempts (a unique prefix of the id is enough)",
    )
    calls.add_argument(
        "--interval", type=float, default=DEFAULT_INTERVAL, help="seconds between polls"
    )
    calls.add_argument("--polls", type=int, help=argparse.SUPPRESS)  # tests: stop after N
    calls.set_defaults(func=_calls, interrupted=_calls_interrupted)

    replay = sub.add_parser(
        "replay", allow_abbrev=False, help="replay a failed call; print the new delivery"
    )
    emulator_options(replay, site_of_token=True)
    replay.add_argument(
        "call_id",
        metavar="CALL_ID",
        help="the failed call (a unique prefix of its id is enough). Replaying a call "
        "already replayed answers that replay and delivers nothing more, unless it failed",
    )
    replay.add_argument(
        "--timeout", type=float, default=30, help="seconds to wait (default %(default)g)"
    )
    replay.add_argument(
        "--no-wait", action="store_true", help="print the new call id without waiting"
    )
    replay.set_defaults(func=_replay)
