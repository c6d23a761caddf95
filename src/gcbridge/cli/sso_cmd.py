"""``gcbridge sso issue | verify | check``: mint and check ssoData, and a live endpoint.

Credentials stay out of argv, where ``ps`` and the shell history show them: the secret
only from ``--secret-env VAR``, the token from ``--token-env VAR`` or stdin (as an
argument with a warning), the app's session from ``--header-env VAR`` or
``--headers-stdin`` (a credential header in ``--header`` is ``credential_in_argv``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from gcbridge.cli.webhooks_cmd import CliError, secret_from_env
from gcbridge.sso.policy import DEFAULT_LEEWAY, DEFAULT_MAX_AGE

__all__ = ["register"]


def _secret(var: str) -> str:
    return secret_from_env(var, "SSO")


def _issue(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from gcbridge.sso import SsoIssuer

    user = {
        key: getattr(args, key)
        for key in ("id", "username", "email", "language", "bio", "picture")
        if getattr(args, key) is not None
    }
    secret = _secret(args.secret_env)
    try:
        token = SsoIssuer(secret).issue(user, now=args.now)
    except ValidationError as exc:
        from gcbridge.sso.fields import describe_errors

        problems = "; ".join(p.message for p in describe_errors(exc.errors()))
        raise CliError(f"invalid user: {problems}", reason="bad_user") from None
    print(token)
    return 0


def _timestamp_hint(token: str) -> str:
    """A hint when the token's last field is a timestamp in the wrong unit."""
    fields = token.split()
    stamp = fields[-1] if len(fields) == 3 else ""
    if stamp.isdigit() and len(stamp) >= 12:
        return (
            f"; the timestamp {stamp} looks like milliseconds: ssoData carries Unix seconds"
            " (10 digits), issue it with int(time.time())"
        )
    return ""


def _token(args: argparse.Namespace) -> str:
    """The token to verify: ``--token-env``, stdin (no TOKEN or ``-``), or TOKEN (warned)."""
    if args.token_env:
        if args.token not in (None, "-"):
            raise CliError("give the token once: --token-env or TOKEN", reason="usage")
        value = os.environ.get(args.token_env, "")
        if not value.strip():
            raise CliError(
                f"environment variable {args.token_env} is not set (it must hold the ssoData)",
                reason="token_env_unset",
            )
        return value.strip()
    if args.token in (None, "-"):
        if sys.stdin.isatty():
            print("reading the ssoData from stdin (one line)...", file=sys.stderr)
        return sys.stdin.readline().strip()
    return str(args.token)


_ARGV_WARNING = (
    "warning [credential_in_argv]: the token was visible to `ps` and is kept in shell history; "
    "pipe it in (`... | gcbridge sso verify --secret-env VAR`) or use --token-env VAR"
)


def _verify(args: argparse.Namespace) -> int:
    from gcbridge.sso import SsoError, SsoVerifier

    verifier = SsoVerifier(_secret(args.secret_env), max_age=args.max_age, leeway=args.leeway)
    token = _token(args)
    in_argv = args.token not in (None, "-") and not args.token_env
    try:
        try:
            user = verifier.verify(token, now=args.now)
        except SsoError as exc:
            print(f"invalid: {exc.reason} ({exc}){_timestamp_hint(token)}", file=sys.stderr)
            return 1
    finally:
        if in_argv:  # after the verdict, so that the verdict stays the first line
            print(_ARGV_WARNING, file=sys.stderr)
    print(json.dumps(user.claims(), ensure_ascii=False))
    return 0


def _check(args: argparse.Namespace) -> int:
    from gcbridge.cli.sso_check import run_check

    return run_check(args, _secret(args.secret_env))


def _add_secret_option(parser: argparse.ArgumentParser, what: str = "the SSO secret") -> None:
    parser.add_argument(
        "--secret-env", required=True, metavar="VAR", help=f"environment variable holding {what}"
    )


def _add_age_options(parser: argparse.ArgumentParser) -> None:
    # The SDK's own defaults (gcbridge.sso.policy), printed from them.
    parser.add_argument(
        "--max-age",
        type=float,
        default=DEFAULT_MAX_AGE,
        metavar="S",
        help="token lifetime in seconds: older tokens are expired (default %(default)g, "
        "as the service)",
    )
    parser.add_argument(
        "--leeway",
        type=float,
        default=DEFAULT_LEEWAY,
        metavar="S",
        help="clock skew tolerated both ways, seconds: accepted when"
        " -leeway <= now - issued <= max-age + leeway (default %(default)g)",
    )
    parser.add_argument("--now", type=float, help=argparse.SUPPRESS)


def register(parser: argparse.ArgumentParser) -> None:
    """Add ``issue``, ``verify`` and ``check``."""
    sub = parser.add_subparsers(dest="sso_command", metavar="ACTION")

    issue = sub.add_parser("issue", allow_abbrev=False, help="print ssoData for a user")
    _add_secret_option(issue)
    issue.add_argument("--id", required=True)
    issue.add_argument("--username", required=True)
    issue.add_argument("--email", required=True)
    issue.add_argument("--language")
    issue.add_argument("--bio")
    issue.add_argument("--picture", help="avatar http(s) URL")
    issue.add_argument("--now", type=float, help=argparse.SUPPRESS)  # for tests and vectors
    issue.set_defaults(func=_issue)

    verify = sub.add_parser(
        "verify",
        allow_abbrev=False,
        help="check ssoData; print the user or the reason (exit 1)",
        description="Check one ssoData token. The token is a credential (anyone holding it "
        "signs in as the user until it expires), so give it on stdin or in an environment "
        "variable (options below) rather than as an argument, which the process list and "
        "the shell history show.",
    )
    _add_secret_option(verify)
    _add_age_options(verify)
    verify.add_argument(
        "--token-env",
        metavar="VAR",
        help="environment variable holding the ssoData (instead of stdin)",
    )
    verify.add_argument(
        "token",
        metavar="TOKEN",
        nargs="?",
        help="the ssoData; default: read one line from stdin (a TOKEN argument works, "
        "with a warning: ps shows it). It has spaces: quote it",
    )
    verify.set_defaults(func=_verify)

    check = sub.add_parser(
        "check",
        allow_abbrev=False,
        help="GET your /sso-data endpoint and check the answer as the service would",
        description="Fetch URL as the app would and check the answer: HTTP 200, "
        "Cache-Control: no-store, no ssoData in a redirect, format, signature with the "
        "site's secret, age (and the server's clock from its Date header), user fields. "
        "Exit 0 valid, 1 problems (one line each: reason, what, fix), 2 unreachable. "
        "Never prints the token or the secret. The app's session is a credential: give "
        "it in an environment variable or on stdin (options below), not as a plain header "
        "argument, which the process list and the shell history would show (such an "
        "argument is refused). It is sent to the URL's own origin only, never to another "
        "origin a redirect points at.",
    )
    check.add_argument("--url", required=True, help="the ssoData endpoint, e.g. .../sso-data")
    _add_secret_option(check, "the site's SSO secret")
    check.add_argument(
        "--header",
        action="append",
        metavar="'Name: value'",
        help="a request header without a credential (repeat), e.g. 'Accept: application/json'",
    )
    check.add_argument(
        "--header-env",
        action="append",
        metavar="VAR",
        help="environment variable holding 'Name: value' lines (repeat), e.g. the app's "
        "session: GC_SESSION='Authorization: Bearer ...'",
    )
    check.add_argument(
        "--headers-stdin",
        action="store_true",
        help="read 'Name: value' lines from stdin (e.g. the session cookie)",
    )
    check.add_argument(
        "--emulator",
        metavar="URL",
        help="also sign the token in on the emulator at URL (POST /api/pub/sso/login), "
        "as the widget would",
    )
    check.add_argument(
        "--public-key",
        default=os.environ.get("GC_SSO_PUBLIC_KEY"),
        metavar="KEY",
        help="the site's api_public_key for --emulator (default: $GC_SSO_PUBLIC_KEY)",
    )
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.add_argument(
        "--timeout",
        type=float,
        default=10,
        help="seconds for each request in total (default %(default)s)",
    )
    _add_age_options(check)
    check.set_defaults(func=_check)
