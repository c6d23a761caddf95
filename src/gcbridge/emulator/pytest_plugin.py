"""The pytest plugin ``gcbridge_emulator``: the ``gc_emulator`` fixture for customers' suites.

Installed with the package (entry point ``pytest11``), like ``gc_webhook``; its use is
docs/how-to/test-receiver-retries.md, "3. The `gc_emulator` fixture". The emulator's
imports (extra ``emulator``) happen only when a test asks for the fixture.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

__all__ = ["gc_emulator", "gc_emulator_session", "GcEmulator", "parse_duration"]

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_PART = re.compile(r"(\d+(?:\.\d+)?)([smhd])")


def parse_duration(value: str | float) -> float:
    """Seconds in ``90``, ``"90s"``, ``"5m"``, ``"6h"``, ``"1d"`` or ``"1h30m"``."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    text = str(value).strip().lower()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    parts = _PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"duration {value!r}: e.g. 90, '90s', '5m', '6h', '1d', '1h30m'")
    return sum(float(n) * _UNITS[u] for n, u in parts)


class GcEmulator:
    """A running emulator under the test's control: its address, credentials and clock."""

    def __init__(self, running: Any) -> None:
        import httpx

        from gcbridge.webhooks.emulator_clock import EmulatorClock

        self.url: str = running.url
        self.admin_token: str = running.admin_token
        self.site = site = running.site
        # credentials of the first site
        self.website_id: str = site.website_id
        """The site's ``website_id`` (webhook routes)."""
        self.shortname: str = site.shortname
        """The site's shortname (``website_id`` of the comment routes)."""
        self.account_token: str = site.account_token
        """``Authorization: Bearer <account_token>`` of the webhook routes."""
        self.sso_public_key: str = site.sso_public_key
        """The site's ``api_public_key``."""
        self.sso_secret: str = site.sso_secret
        """The key your backend signs ssoData with."""
        self.http = httpx.Client(base_url=self.url, timeout=60)
        self.clock = EmulatorClock(self.url)
        """The emulator's clock: ``WebhookReceiver(..., clock=...)``, ``verify_signature``."""

    # control
    def _control(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.admin_token}"}
        response = self.http.request(method, "/_emulator" + path, headers=headers, **kw)
        if response.status_code != 200:
            raise AssertionError(
                f"{method} /_emulator{path}: {response.status_code} {response.text}"
            )
        result: dict[str, Any] = response.json()
        return result

    def now(self) -> float:
        """The emulator's time, Unix seconds."""
        return float(self.health()["clock"]["now"]) / 1000

    def health(self) -> dict[str, Any]:
        """``GET /_emulator/health``."""
        result: dict[str, Any] = self.http.get("/_emulator/health").json()
        return result

    def advance(self, duration: str | float) -> dict[str, Any]:
        """Move the clock (``"6h"``, ``90``...) through every attempt due in that time."""
        return self._control(
            "POST", "/clock", json={"action": "advance", "seconds": parse_duration(duration)}
        )

    def advance_until_idle(self) -> dict[str, Any]:
        """Advance to each next due attempt until none is pending (30 days at most)."""
        return self._control("POST", "/clock", json={"action": "advance", "until": "idle"})

    def settle(self) -> dict[str, Any]:
        """Wait until what is due now (a first attempt) has been made and journaled."""
        return self.advance(0)

    def freeze(self) -> dict[str, Any]:
        """Stop the clock."""
        return self._control("POST", "/clock", json={"action": "freeze"})

    def resume(self) -> dict[str, Any]:
        """Let the clock run from where it stands."""
        return self._control("POST", "/clock", json={"action": "resume"})

    def reset(self) -> None:
        """Back to the sites only (done before every test)."""
        self._control("POST", "/reset")

    def snapshot(self, name: str = "snapshot") -> str:
        """Save the whole state; returns the name to :meth:`restore`."""
        self._control("PUT", f"/snapshots/{name}")
        return name

    def restore(self, name: str = "snapshot") -> None:
        """Bring a snapshot back (pending deliveries included)."""
        self._control("POST", f"/snapshots/{name}/restore")

    # the service's routes most receiver tests need
    def setup_webhook(self, url: str, events: list[str] | None = None) -> str:
        """Point the site's webhook at ``url``; returns the signing secret."""
        body: dict[str, Any] = {"url": url}
        if events is not None:
            body["events"] = events
        response = self.http.post(
            f"/webhook/website/{self.website_id}/setup",
            json=body,
            headers={"Authorization": f"Bearer {self.account_token}"},
        )
        data: dict[str, Any] = response.json()
        if "secret" not in data:
            raise AssertionError(f"webhook setup refused: {data}")
        return str(data["secret"])

    def calls(self, **params: Any) -> list[dict[str, Any]]:
        """The delivery journal (newest first), as ``GET .../calls`` answers it."""
        response = self.http.get(
            f"/webhook/website/{self.website_id}/calls",
            params={"limit": 100, **params},
            headers={"Authorization": f"Bearer {self.account_token}"},
        )
        calls: list[dict[str, Any]] = response.json()["calls"]
        return calls

    def close(self) -> None:
        """Close the HTTP client and the clock's connection."""
        self.http.close()
        self.clock.close()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ini option ``gc_emulator_sites``."""
    parser.addini(
        "gc_emulator_sites",
        "sites file (TOML, as gcbridge emulator --sites) of the gc_emulator fixture's emulator",
        default="",
    )


@pytest.fixture(scope="session")
def gc_emulator_session(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[GcEmulator]:
    """The session's emulator (not reset between tests: use ``gc_emulator``)."""
    from gcbridge.emulator.sites import load_sites
    from gcbridge.emulator.testing import running_emulator

    sites_file = str(request.config.getini("gc_emulator_sites") or "")
    sites = list(load_sites(request.config.rootpath / sites_file)) if sites_file else None
    data = tmp_path_factory.mktemp("gc-emulator")
    with running_emulator(data, sites=sites, clock_mode="manual") as running:
        emulator = GcEmulator(running)
        try:
            yield emulator
        finally:
            emulator.close()


@pytest.fixture
def gc_emulator(gc_emulator_session: GcEmulator) -> GcEmulator:
    """The session's emulator, reset to its sites for this test."""
    gc_emulator_session.reset()
    return gc_emulator_session
