"""``gcbridge sso check``: fetch the team's own ``/sso-data`` as the app would, judge it.

Redirects are followed by hand (at most five) so that every ``Location`` on the way is
checked for a leaked token, and the request headers (the app's session: credentials) are
sent only to the checked URL's own origin, never to the origin a redirect points at.
Neither the token, the secret nor a header value is ever printed; everything the server
supplied is escaped, in the text and in the ``--json`` output alike.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from gcbridge.errors import GcBridgeError

__all__ = ["run_check", "parse_header", "fetch", "request_headers", "escaped_json", "Fetched"]

MAX_REDIRECTS = 5
MAX_ANSWER_BYTES = 1024 * 1024
"""An ssoData answer is a few hundred bytes; 1 MiB is generous."""

# Header names that carry a credential: refused on the command line (ps, shell history).
_CREDENTIAL = re.compile(r"auth|cookie|token|secret|session|key|password|credential", re.I)


class CheckUsage(GcBridgeError):
    """A bad argument of ``sso check`` (exit 2)."""

    reason = "usage"
    exit_code = 2


class Unreachable(GcBridgeError):
    """The endpoint could not be reached, in time or within the size cap (exit 2)."""

    reason = "unreachable"


def parse_header(text: str) -> tuple[str, str]:
    """``"Name: value"`` -> ``("Name", "value")``; a clear error otherwise."""
    name, sep, value = text.partition(":")
    if not sep or not name.strip() or any(c in text for c in "\r\n"):
        raise CheckUsage(f"a header must be 'Name: value', got {text[:40]!r}", reason="bad_header")
    return name.strip(), value.strip()


def request_headers(
    argv_headers: list[str], env_vars: list[str], stdin_text: str | None
) -> list[tuple[str, str]]:
    """The headers to send: ``--header`` (no credentials), ``--header-env``, ``--headers-stdin``.

    A credential (``Authorization``, ``Cookie``, ``X-Api-Key``, ...) given with
    ``--header`` is refused (reason ``credential_in_argv``): every local user can
    read a process's arguments with ``ps``, and the shell keeps them in its history.
    """
    headers = []
    for text in argv_headers:
        name, value = parse_header(text)
        if _CREDENTIAL.search(name):
            raise CheckUsage(
                f"--header {name!r} carries a credential, which the process list (ps) and "
                f"shell history would show: put '{name}: ...' in an environment variable "
                "and pass --header-env VAR, or pipe it in with --headers-stdin",
                reason="credential_in_argv",
            )
        headers.append((name, value))
    for var in env_vars:
        text = os.environ.get(var, "")
        if not text:
            raise CheckUsage(
                f"environment variable {var} is not set (it must hold 'Name: value')",
                reason="header_env_unset",
            )
        headers.extend(parse_header(line) for line in text.splitlines() if line.strip())
    if stdin_text is not None:
        headers.extend(parse_header(line) for line in stdin_text.splitlines() if line.strip())
    return headers


@dataclass
class Fetched:
    """The final answer and the way to it: each ``Location`` and whether it left the origin."""

    status: int
    headers: dict[str, str]
    body: bytes
    locations: list[str] = field(default_factory=list)
    left_origin: bool = False


def _origin(url: Any) -> tuple[str, str, int | None]:
    return (url.scheme, url.host, url.port)


def fetch(
    url: str,
    headers: list[tuple[str, str]],
    *,
    timeout: float,
    transport: Any = None,
    max_bytes: int = MAX_ANSWER_BYTES,
) -> Fetched:
    """GET ``url`` following redirects by hand; ``headers`` only to ``url``'s own origin.

    ``timeout`` bounds each request in total (a server trickling bytes cannot hold
    it longer); an answer over ``max_bytes`` is refused unread.
    """
    import httpx

    from gcbridge.cli.bounded_http import HttpProblem, bounded_request

    try:
        current = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise Unreachable(f"{url[:200]!r} is not a valid URL ({exc})") from None
    home = _origin(current)
    locations: list[str] = []
    left = False
    for _ in range(MAX_REDIRECTS + 1):
        same = _origin(current) == home
        left = left or not same
        try:
            answer = bounded_request(
                "GET",
                str(current),
                headers=headers if same else [],
                deadline=timeout,
                max_bytes=max_bytes,
                transport=transport,
            )
        except HttpProblem as exc:
            via = f" (after {len(locations)} redirect(s) from {url})" if locations else ""
            raise Unreachable(f"{exc}{via}", reason=exc.reason) from None
        if not answer.is_redirect:
            break
        location = answer.headers["location"]
        locations.append(location)
        try:
            current = current.join(location)
        except httpx.InvalidURL:
            break
    return Fetched(answer.status, answer.headers, answer.body, locations, left)


def escaped_json(value: Any) -> str:
    """``json.dumps`` with every non-printable character escaped (U+202E, C1 controls ...).

    Readable text (``José``, ``山田``) stays as it is; what could reorder or hide the
    terminal's text becomes ``\\uXXXX``, still valid JSON of the same value.
    """
    text = json.dumps(value, ensure_ascii=False)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        elif ord(ch) > 0xFFFF:
            high, low = divmod(ord(ch) - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
        else:
            out.append(f"\\u{ord(ch):04x}")
    return "".join(out)


def _show(value: object) -> str:
    """A server-supplied value for a text line: repr-escaped, at most 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def run_check(args: argparse.Namespace, secret: str) -> int:
    """The ``sso check`` command: print the diagnosis; the exit code."""
    from gcbridge.sso.diagnose import diagnose_answer, token_of

    stdin_text = sys.stdin.read() if args.headers_stdin else None
    headers = request_headers(args.header or [], args.header_env or [], stdin_text)
    try:
        got = fetch(args.url, headers, timeout=args.timeout)
    except Unreachable as exc:
        if args.json:
            print(escaped_json({"ok": False, "error": exc.reason, "message": str(exc)}))
        else:
            from gcbridge.webhooks.listen import printable

            print(
                f"unreachable: {printable(exc, 600)} [{exc.reason}]; "
                "fix: check the URL and that the server runs"
            )
        return 2
    report = diagnose_answer(
        secret=secret,
        status=got.status,
        headers=got.headers,
        body=got.body,
        now=time.time() if args.now is None else args.now,
        redirects=got.locations,
        left_origin=got.left_origin,
        max_age=args.max_age,
        leeway=args.leeway,
    )
    emulator = None
    token = token_of(got.body) if got.status == 200 else None
    if args.emulator and token is not None:
        from gcbridge.cli.sso_emulator import try_login

        emulator = try_login(args.emulator, args.public_key, token, timeout=args.timeout)
        if not emulator.ok:
            report.problems.append(emulator.finding())
    if args.json:
        data = report.as_dict()
        if emulator is not None:
            data["emulator"] = emulator.as_dict()
        print(escaped_json(data))
        return 0 if report.ok else 1
    for problem in report.problems:
        print(problem.line())
    for warning in report.warnings:
        print(f"warning {warning.line()}")
    if report.ok:
        user = report.user or {}
        skew = report.clock_skew_seconds
        print(
            f"ok: valid ssoData for id={_show(user.get('id'))} "
            f"username={_show(user.get('username'))}"
            + ("" if skew is None else f" (server clock {skew:+.0f}s)")
        )
        if emulator is not None:
            print(emulator.line())
        return 0
    print(f"{len(report.problems)} problem(s) found")
    return 1
