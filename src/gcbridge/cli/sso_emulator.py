"""``gcbridge sso check --emulator URL``: try the fetched ssoData on the emulator's login.

It signs the user in as the widget would (``POST /api/pub/sso/login``), so a team sees
the service's own refusals too. The session token the emulator answers is never printed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from gcbridge.sso.diagnose import Finding

__all__ = ["EmulatorLogin", "try_login"]

_FIX = {
    "unknown_public_key": "pass the site's api_public_key with --public-key "
    "(or GC_SSO_PUBLIC_KEY), e.g. the sso_public_key of its sites file",
    "username_conflict": "another user of this site holds this username or a look-alike of it; "
    "give each user a name of their own",
    "sso_invalid": "see the reason in brackets; the emulator checks as the service does",
    "sso_expired": "mint a fresh token on every request",
}


@dataclass(frozen=True)
class EmulatorLogin:
    """What the emulator said to the token: ``ok``, or its error code and message."""

    url: str
    ok: bool
    error: str | None = None
    message: str | None = None
    user: dict[str, Any] | None = None

    def finding(self) -> Finding:
        """The refusal as a problem line (reason ``emulator_refused``)."""
        fix = _FIX.get(self.error or "", "see the emulator's message")
        return Finding(
            "emulator_refused",
            f"the emulator at {self.url} refused the sign-in: {self.error} "
            f"({(self.message or '')[:200]!r})",
            fix,
        )

    def line(self) -> str:
        """The success line of the text output."""
        user = self.user or {}
        return f"ok: the emulator signed in {user.get('username')!r} (user {user.get('id')!r})"

    def as_dict(self) -> dict[str, Any]:
        """The ``emulator`` object of ``--json``."""
        return asdict(self)


def try_login(
    base_url: str, public_key: str | None, token: str, *, timeout: float
) -> EmulatorLogin:
    """Sign ``token`` in on the emulator at ``base_url``; never raises for a refusal."""
    from gcbridge.cli.bounded_http import HttpProblem, bounded_request

    base = base_url.rstrip("/")
    if not public_key:
        return EmulatorLogin(
            base, False, "unknown_public_key", "no --public-key given and GC_SSO_PUBLIC_KEY unset"
        )
    try:
        answer = bounded_request(
            "POST",
            f"{base}/api/pub/sso/login",
            json={"api_public_key": public_key, "ssoData": token},
            deadline=timeout,
            max_bytes=256 * 1024,
        )
    except HttpProblem as exc:
        return EmulatorLogin(base, False, exc.reason, str(exc))
    data = answer.json_object()
    if data is None:
        return EmulatorLogin(
            base, False, "not_an_emulator", f"HTTP {answer.status}, not a JSON object"
        )
    if answer.status == 200 and isinstance(data.get("user"), dict):
        user = {k: data["user"].get(k) for k in ("id", "username", "external_id")}
        return EmulatorLogin(base, True, user=user)
    error = data.get("error")
    message = data.get("message")
    return EmulatorLogin(
        base,
        False,
        error if isinstance(error, str) else f"http_{answer.status}",
        message if isinstance(message, str) else None,
    )
