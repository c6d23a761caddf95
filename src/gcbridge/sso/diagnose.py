"""Diagnose a customer's ``/sso-data`` answer as the service would judge it, with fixes.

It does no I/O (``gcbridge sso check`` fetches) and never puts the token or the secret
in a message: the answer is a credential.
"""

from __future__ import annotations

import hmac
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import unquote

from pydantic import ValidationError

from gcbridge.sso.errors import SsoInvalid
from gcbridge.sso.fields import FIELDS, describe_errors
from gcbridge.sso.format import decode_message, signature_matches, split_token
from gcbridge.sso.policy import DEFAULT_LEEWAY, DEFAULT_MAX_AGE, sso_age_verdict
from gcbridge.sso.user import SsoUser

__all__ = ["Finding", "Diagnosis", "diagnose_answer", "clock_skew", "token_of", "REASONS"]

REASONS = (
    "http_status",
    "cacheable",
    "redirect_leak",
    "redirect",
    "clock_skew",
    "emulator_refused",
    "malformed",
    "bad_timestamp",
    "bad_signature",
    "bad_base64",
    "bad_json",
    "bad_user",
    "expired",
    "issued_in_future",
)
"""Every reason a :class:`Finding` can carry."""

_TOKEN_IN_TEXT = re.compile(r"[A-Za-z0-9+/=]{8,}[ +]+[0-9a-f]{40}[ +]+[0-9]{9,13}")
_SKEW_WORTH_SAYING = 2.0  # the Date header has one-second resolution


@dataclass(frozen=True)
class Finding:
    """One problem (or warning): a reason code, what is wrong, and how to fix it."""

    reason: str
    message: str
    fix: str
    field: str | None = None
    meant: str | None = None

    def line(self) -> str:
        """``reason: message; fix: ...`` on one line."""
        return f"{self.reason}: {self.message}; fix: {self.fix}"


@dataclass
class Diagnosis:
    """What :func:`diagnose_answer` found; ``ok`` when there is no problem."""

    status: int
    problems: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    user: dict[str, Any] | None = None
    clock_skew_seconds: float | None = None

    @property
    def ok(self) -> bool:
        """True when the service would accept this answer."""
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``gcbridge sso check --json``."""
        return {"ok": self.ok, **asdict(self)}


def clock_skew(date_header: str | None, now: float) -> float | None:
    """Seconds the server's ``Date`` is ahead of ``now`` (negative: behind); None if absent."""
    if not date_header:
        return None
    try:
        return parsedate_to_datetime(date_header).timestamp() - now
    except (TypeError, ValueError, IndexError):
        return None


def _header(headers: Mapping[str, str], name: str) -> str | None:
    wanted = name.lower()
    return next((v for k, v in headers.items() if k.lower() == wanted), None)


def _leaks(location: str, token: str | None) -> bool:
    text = unquote(location)
    if token and (token in text or any(len(p) >= 16 and p in text for p in token.split(" "))):
        return True  # the whole token, its message or its signature
    return "ssodata" in text.lower() or _TOKEN_IN_TEXT.search(text) is not None


def token_of(body: bytes) -> str | None:
    """The ssoData in an answer's body (``{"ssoData": ...}``, a JSON string or plain text)."""
    try:
        value = json.loads(body)
    except ValueError:
        text = body.decode("utf-8", "replace").strip()
        return text if text.count(" ") == 2 else None
    if isinstance(value, dict) and isinstance(value.get("ssoData"), str):
        return str(value["ssoData"])
    if isinstance(value, str):
        return value
    return None


_FORMAT_FIX = {
    "malformed": 'answer JSON {"ssoData": "<message> <signature> <timestamp>"}, single spaces',
    "bad_base64": "message = standard base64 (A-Z a-z 0-9 + / =) of the UTF-8 JSON user",
    "bad_timestamp": "timestamp = Unix time in whole seconds (10 digits today), not milliseconds",
    "bad_signature": "signature = lowercase hex HMAC-SHA1 (40 characters)",
    "bad_json": "the message must decode to a UTF-8 JSON object of the user",
}


def _user_findings(message: str) -> tuple[list[Finding], dict[str, Any] | None]:
    try:
        claims = decode_message(message)
    except SsoInvalid as exc:
        return [Finding(exc.reason, str(exc), _FORMAT_FIX.get(exc.reason, "see the format"))], None
    try:
        user = SsoUser.model_validate(claims)
    except ValidationError as exc:
        found = []
        for p in describe_errors(exc.errors()):
            if p.code == "unknown_field" and p.meant:
                fix = f"rename {p.field!r} to {p.meant!r}"
            elif p.code == "unknown_field":
                fix = f"remove {p.field!r}; the fields are {', '.join(FIELDS)}"
            elif p.code == "missing_field":
                fix = f"add {p.field!r} (id, username and email are required)"
            else:
                fix = f"send a valid {p.field!r} (full value, no control characters)"
            found.append(Finding("bad_user", p.message, fix, p.field, p.meant))
        return found, None
    return [], user.claims()


def _signature_finding(secret: bytes, message: str, timestamp: int, signature: str) -> Finding:
    only_message = hmac.new(secret, message.encode("ascii"), "sha1").hexdigest()
    if hmac.compare_digest(only_message, signature):
        fix = "sign '<message> <timestamp>' (with the space), not the message alone"
    else:
        fix = (
            "sign '<message> <timestamp>' with HMAC-SHA1 keyed with this site's SSO secret; "
            "check that the server and --secret-env hold the same secret"
        )
    return Finding("bad_signature", "the signature does not match the secret", fix)


def _redirect_finding(locations: list[str], left_origin: bool, token: str | None) -> Finding:
    last = locations[-1]
    if _leaks(last, token):
        # A URL that carries ssoData is a credential: no part of it (not even the
        # timestamp) is printed; redirect_leak says what is wrong.
        shown = "a URL that carries ssoData (not shown)"
    else:
        shown = repr(last if len(last) <= 120 else last[:119] + "…")
    hops = f"{len(locations)} redirect(s), the last to {shown}"
    if left_origin:
        return Finding(
            "redirect",
            f"the endpoint answered with {hops}, on another origin: the request headers "
            "(the app's session) were not sent there",
            "answer ssoData at this URL itself; a redirect to a sign-in page means the "
            "request was not signed in: pass the app's session with --header-env",
        )
    return Finding(
        "redirect",
        f"the endpoint answered with {hops}",
        "answer ssoData at this URL itself (the app fetches it directly); a redirect to a "
        "sign-in page means the request was not signed in",
    )


def diagnose_answer(
    *,
    secret: str | bytes,
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    now: float,
    redirects: Iterable[str] = (),
    left_origin: bool = False,
    max_age: float = DEFAULT_MAX_AGE,
    leeway: float = DEFAULT_LEEWAY,
) -> Diagnosis:
    """Every problem of one ``/sso-data`` answer, each with a reason and a fix.

    ``redirects`` are the ``Location`` values on the way (checked for a leaked
    token; any redirect is a ``redirect`` warning); ``left_origin`` says that one
    pointed at another origin, where the client sent none of its headers.
    """
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    report = Diagnosis(status=status)
    problems, warnings = report.problems, report.warnings
    token = token_of(body) if 200 <= status < 300 else None

    redirects = list(redirects)
    if redirects:
        report.warnings.append(_redirect_finding(redirects, left_origin, token))
    if any(_leaks(location, token) for location in redirects):
        problems.append(
            Finding(
                "redirect_leak",
                "a redirect's Location carries ssoData (URLs end up in logs and Referer)",
                "answer ssoData in the response body of the URL itself, never in a URL",
            )
        )
    if status != 200:
        problems.append(
            Finding(
                "http_status",
                f"the endpoint answered HTTP {status}, not 200",
                "answer 200 for a signed-in user; pass the app's session with "
                "--header 'Cookie: ...' or --header 'Authorization: Bearer ...'",
            )
        )
    cache = (_header(headers, "cache-control") or "").lower()
    if status == 200 and "no-store" not in cache:
        problems.append(
            Finding(
                "cacheable",
                f"Cache-Control is {cache or 'absent'!r}: a cache or proxy may keep the token",
                "send 'Cache-Control: no-store' with every ssoData answer",
            )
        )
    skew = clock_skew(_header(headers, "date"), now)
    report.clock_skew_seconds = None if skew is None else round(skew, 1)
    if skew is not None and abs(skew) > _SKEW_WORTH_SAYING:
        side = "ahead of" if skew > 0 else "behind"
        finding = Finding(
            "clock_skew",
            f"the server's clock (Date header) is {abs(skew):.0f}s {side} this machine's",
            "synchronise the server's clock (NTP); the service allows "
            f"{leeway:g}s of skew either way",
        )
        (problems if abs(skew) > leeway else warnings).append(finding)
    if status != 200:
        return report
    if token is None:
        problems.append(
            Finding("malformed", "the answer holds no ssoData", _FORMAT_FIX["malformed"])
        )
        return report
    try:
        parts = split_token(token)
    except SsoInvalid as exc:
        problems.append(Finding(exc.reason, str(exc), _FORMAT_FIX.get(exc.reason, "")))
        return report

    if not signature_matches(key, parts.message, parts.timestamp, parts.signature):
        problems.append(_signature_finding(key, parts.message, parts.timestamp, parts.signature))
    verdict = sso_age_verdict(parts.timestamp, now, max_age, leeway)
    if verdict != "ok":
        age = now - parts.timestamp
        if verdict == "expired":
            message = f"issued {age:.0f}s ago; accepted for {max_age:g}s (+{leeway:g}s)"
            fix = "mint a fresh token on every request (is it cached or reused?)"
        else:
            message = f"issued {-age:.0f}s in the future; {leeway:g}s of skew are allowed"
            fix = "issue with the current Unix time in seconds"
        if skew is not None and abs(skew) > leeway:
            fix += "; the server's clock is off (see clock_skew)"
        problems.append(Finding(verdict, message, fix))
    user_problems, claims = _user_findings(parts.message)
    problems.extend(user_problems)
    report.user = claims
    return report
