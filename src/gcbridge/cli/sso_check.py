"""``gcbridge sso check``: fetch the team's own ``/sso-data`` as the app would, judge it.

The HTTP side lives here (httpx, imported when the command runs); the judgement
is :func:`gcbridge.sso.diagnose.diagnose_answer`. Redirects are followed by hand
(at most five) so that every ``Location`` on the way is checked for a leaked token.
Exit 0: valid; 1: problems (one line each, reason first, with a fix); 2: the
endpoint cannot be reached. Neither the token nor the secret is ever printed.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from gcbridge.errors import GcBridgeError

__all__ = ["run_check", "parse_header", "fetch"]

MAX_REDIRECTS = 5


class CheckUsage(GcBridgeError):
    """A bad argument of ``sso check``."""

    reason = "usage"


class Unreachable(GcBridgeError):
    """The endpoint could not be reached (exit 2)."""

    reason = "unreachable"


def parse_header(text: str) -> tuple[str, str]:
    """``"Name: value"`` -> ``("Name", "value")``; a clear error otherwise."""
    name, sep, value = text.partition(":")
    if not sep or not name.strip() or any(c in text for c in "\r\n"):
        raise CheckUsage(f"--header must be 'Name: value', got {text[:40]!r}", reason="bad_header")
    return name.strip(), value.strip()


def fetch(
    url: str, headers: list[tuple[str, str]], *, timeout: float, transport: Any = None
) -> tuple[int, dict[str, str], bytes, list[str]]:
    """GET ``url`` following redirects by hand: status, headers, body and every Location."""
    import httpx

    locations: list[str] = []
    try:
        with httpx.Client(timeout=timeout, transport=transport) as client:
            current = httpx.URL(url)
            for _ in range(MAX_REDIRECTS + 1):
                response = client.get(current, headers=headers)
                location = response.headers.get("location")
                if not (response.is_redirect and location):
                    return response.status_code, dict(response.headers), response.content, locations
                locations.append(location)
                current = response.url.join(location)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise Unreachable(f"cannot reach {url} ({type(exc).__name__})") from None
    return response.status_code, dict(response.headers), response.content, locations


def run_check(args: argparse.Namespace, secret: str) -> int:
    """The ``sso check`` command: print the diagnosis; the exit code."""
    from gcbridge.sso.diagnose import diagnose_answer

    headers = [parse_header(h) for h in args.header or []]
    try:
        status, got, body, locations = fetch(args.url, headers, timeout=args.timeout)
    except Unreachable as exc:
        if args.json:
            print(json.dumps({"ok": False, "error": exc.reason, "message": str(exc)}))
        else:
            print(f"unreachable: {exc}; fix: check the URL and that the server runs")
        return 2
    report = diagnose_answer(
        secret=secret,
        status=status,
        headers=got,
        body=body,
        now=time.time() if args.now is None else args.now,
        redirects=locations,
        max_age=args.max_age,
        leeway=args.leeway,
    )
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False))
        return 0 if report.ok else 1
    for problem in report.problems:
        print(problem.line())
    for warning in report.warnings:
        print(f"warning {warning.line()}")
    if report.ok:
        user = report.user or {}
        skew = report.clock_skew_seconds
        print(
            f"ok: valid ssoData for id={user.get('id')!r} username={user.get('username')!r}"
            + ("" if skew is None else f" (server clock {skew:+.0f}s)")
        )
        return 0
    print(f"{len(report.problems)} problem(s) found")
    return 1
