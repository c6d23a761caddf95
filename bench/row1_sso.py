"""Row 1: ssoData issue + verify per second.

Ours: ``gcbridge.sso.SsoIssuer(secret).issue(user)`` then ``SsoVerifier(secret).verify(token)``.
Baselines, on the same user claims:
- the stdlib floor: the same "gc" format (docs/reference/wire-formats.md#ssodata) written
  with bare ``hmac``, ``base64`` and ``json``, verifying the same things (three parts, timestamp
  window both ways, constant-time HMAC-SHA1 compare, base64 + JSON object with
  id/username/email) and nothing more;
- PyJWT HS256 ``jwt.encode`` + ``jwt.decode`` with ``iat``/``exp``.
Goals: >= 0.5x the floor, >= 1.5x PyJWT. The SDK validates every user with the one
SsoUser model, on both sides; the floor checks three fields are strings.

The goal rows issue and verify a *different* user on every iteration (more users
than the issuer's and verifier's 256-entry memos hold), so no memo is ever hit: a
benchmark of one user over and over would measure the memo, not the code. That
warm case is reported beside them, without a goal.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any

from benchlib import Measure, Row, Skipped, median_rate

TITLE = "ssoData issue + verify per second"

SECRET = (
    "sso-secret-for-benchmarks-0123456789abcdef"  # >= 32 bytes: PyJWT warns on short HS256 keys
)
USER: dict[str, Any] = {
    "id": "user-42",
    "username": "alice",
    "email": "alice@example.com",
    "language": "en",
    "picture": "https://example.com/a.png",
}


def floor_issue(secret: bytes, user: dict[str, Any], now: float) -> str:
    """The "gc" ssoData format with nothing but the stdlib."""
    message = base64.b64encode(json.dumps(user, separators=(",", ":")).encode()).decode("ascii")
    ts = str(int(now))
    sig = hmac.new(secret, f"{message} {ts}".encode(), hashlib.sha1).hexdigest()
    return f"{message} {sig} {ts}"


def floor_verify(
    secret: bytes, token: str, now: float, max_age: int = 300, leeway: int = 30
) -> dict[str, Any]:
    """Check a "gc" ssoData with nothing but the stdlib (raises ValueError)."""
    parts = token.split(" ")
    if len(parts) != 3 or not parts[2].isdigit():
        raise ValueError("malformed")
    message, sig, ts = parts
    issued = int(ts)
    if issued > now + leeway or now - issued > max_age + leeway:
        raise ValueError("expired")
    expected = hmac.new(secret, f"{message} {ts}".encode(), hashlib.sha1).hexdigest()
    if not hmac.compare_digest(expected, sig):
        raise ValueError("signature")
    try:
        user = json.loads(base64.b64decode(message, validate=True))
    except (binascii.Error, ValueError) as exc:
        raise ValueError("payload") from exc
    if not isinstance(user, dict) or not all(
        isinstance(user.get(k), str) for k in ("id", "username", "email")
    ):
        raise ValueError("payload")
    return user


def run(quick: bool) -> Row:
    """Measure ours against the floor and PyJWT."""
    row = Row(number=1, title=TITLE)
    try:
        from gcbridge.sso import SsoIssuer, SsoVerifier
    except ImportError as exc:
        raise Skipped(f"gcbridge.sso not importable yet ({exc})") from None
    import jwt

    n = 2000 if quick else 5000
    rounds = 3 if quick else 7
    key = SECRET.encode()
    issuer = SsoIssuer(SECRET)
    verifier = SsoVerifier(SECRET)
    now = time.time()

    # Sanity: every contender accepts its own tokens, and ours matches the floor's format.
    ours_token = issuer.issue(USER, now=now)
    floor_verify(key, ours_token, now)
    verifier.verify(floor_issue(key, USER, now), now=now)

    users = [{**USER, "id": f"user-{i}", "username": f"alice{i}"} for i in range(n)]

    def ours() -> None:
        for user in users:
            verifier.verify(issuer.issue(user, now=now), now=now)

    def ours_same_user() -> None:
        for _ in range(n):
            verifier.verify(issuer.issue(USER, now=now), now=now)

    def floor() -> None:
        for user in users:
            floor_verify(key, floor_issue(key, user, now), now)

    claims = [{**user, "iat": int(now), "exp": int(now) + 300} for user in users]

    def pyjwt() -> None:
        for c in claims:
            jwt.decode(jwt.encode(c, SECRET, algorithm="HS256"), SECRET, algorithms=["HS256"])

    contenders = {"ours": ours, "ours_same": ours_same_user, "floor": floor, "pyjwt": pyjwt}
    rates = median_rate(contenders, n, rounds=rounds)
    row.measures.append(
        Measure(
            "issue + verify vs stdlib floor",
            "ops/s",
            rates["ours"],
            rates["floor"],
            "bare hmac/base64/json",
            goal=">= 0.5x",
            goal_ratio=0.5,
            rounds=rounds,
        )
    )
    row.measures.append(
        Measure(
            "issue + verify vs PyJWT HS256",
            "ops/s",
            rates["ours"],
            rates["pyjwt"],
            "PyJWT encode+decode",
            goal=">= 1.5x",
            goal_ratio=1.5,
            rounds=rounds,
        )
    )
    row.measures.append(
        Measure(
            "same user every time (memo warm) vs floor",
            "ops/s",
            rates["ours_same"],
            rates["floor"],
            "bare hmac/base64/json, distinct users",
            rounds=rounds,
        )
    )
    row.notes.append(
        f"{n} issue+verify pairs per round, each of a different user; "
        f"median of {rounds} interleaved rounds, one core."
    )
    return row
