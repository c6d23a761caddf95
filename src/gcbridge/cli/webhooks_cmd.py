"""``gcbridge webhooks listen | sign | verify | schema | trigger | calls | replay | delivery-log``.

The secret comes from ``--secret-env VAR`` (preferred: it stays out of shell
history and ``ps``) or, for ``listen`` during development, ``--secret``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from gcbridge.errors import GcBridgeError
from gcbridge.webhooks.signature import DEFAULT_TOLERANCE

__all__ = ["register", "secret_from_env"]


class CliError(GcBridgeError):
    """A usage error of the webhooks and sso sub-commands."""

    reason = "usage"


def secret_from_env(var: str, what: str = "webhook") -> str:
    """The ``what`` secret in environment variable ``var``; a clear error naming it if unset."""
    value = os.environ.get(var, "")
    if not value:
        raise CliError(
            f"environment variable {var} is not set (it must hold the {what} secret)",
            reason="secret_env_unset",
        )
    return value


def _secret(args: argparse.Namespace) -> str:
    if getattr(args, "secret", None):
        return str(args.secret)
    if args.secret_env:
        return secret_from_env(args.secret_env)
    # Name only the options this sub-command has: sign and verify take no --secret.
    plain = " (or --secret S)" if hasattr(args, "secret") else ""
    raise CliError(f"give --secret-env VAR{plain}", reason="secret_missing")


def _read_body(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}", reason="file_unreadable") from None


def _listen(args: argparse.Namespace) -> int:
    from gcbridge.cli.extras import require_extra

    require_extra("gcbridge webhooks listen", "emulator", ("fastapi", "uvicorn"))

    from gcbridge.cli.foreground import serve_foreground
    from gcbridge.cli.ports import bind_port
    from gcbridge.webhooks.listen import create_app

    secret = _secret(args)
    respond = clock = None
    if args.respond is not None:  # an empty --respond "" is refused, not ignored
        from gcbridge.webhooks.respond import Responder

        respond = Responder.parse(args.respond)
    if args.emulator:
        from gcbridge.webhooks.emulator_clock import EmulatorClock

        clock = EmulatorClock(args.emulator)
        clock.now()  # an emulator that does not answer is reported before listening
    log = None
    if args.delivery_log:
        from gcbridge.webhooks import DeliveryLog

        log = DeliveryLog.from_url(args.delivery_log, tolerance=args.tolerance)
    # closed however the command ends, a Ctrl-C before serving began included
    with bind_port(args.host, args.port) as sock:
        host, port = sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        extra: dict[str, Any] = {"respond": respond}
        if clock is not None:
            extra["clock"] = clock
        app = create_app(secret, tolerance=args.tolerance, delivery_log=log, **extra)

        def ready() -> None:
            print(f"gcbridge webhooks listening on http://{shown}:{port}/", flush=True)
            if log is not None:  # the backend only: a URL can hold a password
                print(f"de-duplicating with a {log.backend} delivery log", flush=True)
            if clock is not None:
                print(f"judging freshness on the emulator's clock ({clock.url})", flush=True)
            if respond is not None:
                steps = ",".join(str(s) for s in respond.steps)
                print(f"answering deliveries in turn: {steps} (the last repeats)", flush=True)

        return serve_foreground(
            app, sock, name="gcbridge webhooks listen", lifespan="off", on_ready=ready
        )


def _seconds_hint(timestamp: int) -> str:
    """A hint when ``--timestamp`` looks like Unix seconds (webhooks use milliseconds)."""
    if 0 < timestamp < 10**11:
        return (
            f"; --timestamp {timestamp} looks like seconds: webhook timestamps are epoch"
            " milliseconds (13 digits), exactly as in the X-Webhook-Timestamp header"
        )
    return ""


def _now_ms() -> int:
    """Now, in epoch milliseconds (taken when the command signs)."""
    import time

    return int(time.time() * 1000)


def _sign(args: argparse.Namespace) -> int:
    from gcbridge.webhooks.signature import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign

    secret = _secret(args)
    body = _read_body(args.file)
    timestamp = _now_ms() if args.timestamp is None else args.timestamp
    if _seconds_hint(timestamp):
        print(f"note{_seconds_hint(timestamp)}", file=sys.stderr)
    print(f"{TIMESTAMP_HEADER}: {timestamp}")
    print(f"{SIGNATURE_HEADER}: {sign(secret, timestamp, body)}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    import time

    from gcbridge.webhooks import WebhookError, verify_signature
    from gcbridge.webhooks.signature import SIGNATURE_HEADER, TIMESTAMP_HEADER

    secret = _secret(args)
    body = _read_body(args.file)
    headers = {TIMESTAMP_HEADER: str(args.timestamp), SIGNATURE_HEADER: args.signature}
    # A debugging tool checks old captures too: the window applies only if asked.
    now = time.time() if args.check_time else args.timestamp / 1000
    try:
        verify_signature(secret, body, headers, tolerance=args.tolerance, now=now)
    except WebhookError as exc:
        print(f"invalid: {exc.reason} ({exc}){_seconds_hint(args.timestamp)}", file=sys.stderr)
        return 1
    print("valid")
    return 0


def register(parser: argparse.ArgumentParser) -> None:
    """Add ``listen``, ``sign`` and ``verify``."""
    sub = parser.add_subparsers(dest="webhooks_command", metavar="ACTION")

    def secret_options(p: argparse.ArgumentParser, *, allow_plain: bool) -> None:
        p.add_argument(
            "--secret-env", metavar="VAR", help="environment variable holding the secret"
        )
        if allow_plain:
            p.add_argument("--secret", metavar="S", help="the secret itself (development only)")

    listen = sub.add_parser(
        "listen",
        allow_abbrev=False,
        help="run a local receiver that verifies and prints deliveries",
    )
    listen.add_argument("--port", type=int, required=True, help="TCP port (0 picks a free one)")
    listen.add_argument("--host", default="127.0.0.1", help="bind address (default %(default)s)")
    listen.add_argument(
        "--tolerance",
        type=float,
        default=DEFAULT_TOLERANCE,
        help="timestamp window, seconds (default %(default)g)",
    )
    listen.add_argument(
        "--delivery-log",
        metavar="URL",
        help="skip processed delivery ids and replays: a file, sqlite:///PATH, "
        "postgresql://... or redis://... (shared by several listeners)",
    )
    listen.add_argument(
        "--respond",
        metavar="STEPS",
        help="answer successive deliveries in this order, the last repeating: status codes,"
        " 429:retry-after=SECONDS, timeout, reset (e.g. 500,429:retry-after=120,timeout,reset,200)",
    )
    listen.add_argument(
        "--emulator",
        metavar="URL",
        help="judge freshness on this emulator's clock (GET URL/_emulator/health), not the wall",
    )
    secret_options(listen, allow_plain=True)
    listen.set_defaults(func=_listen)

    sign = sub.add_parser("sign", allow_abbrev=False, help="print the signature headers for a body")
    secret_options(sign, allow_plain=False)
    sign.add_argument(
        "--timestamp",
        type=int,
        default=None,
        metavar="MS",
        help="epoch ms (default: now, so a receiver's time window accepts it)",
    )
    sign.add_argument("file", metavar="FILE|-", help="the raw body ('-' for stdin)")
    sign.set_defaults(func=_sign)

    verify = sub.add_parser(
        "verify", allow_abbrev=False, help="check a signature; exit 1 if invalid"
    )
    secret_options(verify, allow_plain=False)
    verify.add_argument("--timestamp", type=int, required=True, metavar="MS", help="epoch ms")
    verify.add_argument("--signature", required=True, metavar="HEX")
    verify.add_argument(
        "--tolerance", type=float, default=DEFAULT_TOLERANCE, help="window, seconds"
    )
    verify.add_argument(
        "--check-time",
        action="store_true",
        help="also require the timestamp within --tolerance of now",
    )
    verify.add_argument("file", metavar="FILE|-", help="the raw body ('-' for stdin)")
    verify.set_defaults(func=_verify)

    from gcbridge.cli.webhooks_log_cmd import register_delivery_log
    from gcbridge.cli.webhooks_remote_cmd import register_remote
    from gcbridge.cli.webhooks_schema_cmd import register_schema

    register_schema(sub)
    register_remote(sub)
    register_delivery_log(sub)
