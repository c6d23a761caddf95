"""Run a real emulator on loopback for tests, the harness and the demo.

::

    with running_emulator(tmp_path) as emu:
        httpx.get(emu.url + "/api/pub/thread-load/", params=...)
        emu.site.account_token

``EXAMPLE_SITE`` is the documented example site, for tests and docs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gcbridge.clock import SYSTEM_CLOCK, Clock, Sleep
from gcbridge.emulator.settings import Settings
from gcbridge.emulator.sites import Site, Sites

__all__ = ["EXAMPLE_SITE", "OTHER_SITE", "RunningEmulator", "running_emulator"]


def _example_site(shortname: str, website_id: str, prefix: str = "") -> Site:
    # The documented example credentials (docs/reference/wire-formats.md), for tests and
    # docs only: "sso-secret", "acct-token", ... (another site's begin with its name).
    return Site(
        shortname=shortname,
        website_id=website_id,
        sso_public_key=f"pk_{shortname}",
        sso_secret=f"{prefix}sso-secret",
        account_token=f"{prefix}acct-token",
        site_key_id=f"sk_{shortname}",
        site_key_secret=f"{prefix}site-key-secret",
    )


EXAMPLE_SITE = _example_site("demo", "5f1c0ffee0ddba11c0ffee00")
OTHER_SITE = _example_site("other", "0123456789abcdef01234567", "other-")


@dataclass
class RunningEmulator:
    """A live emulator: its base URL, settings, FastAPI app and state."""

    url: str
    settings: Settings
    app: Any
    server: Any

    @property
    def site(self) -> Site:
        """The first site (the only one unless several were given)."""
        first: Site = next(iter(self.settings.sites))
        return first

    @property
    def request_log(self) -> Any:
        """The :class:`~gcbridge.emulator.requestlog.RequestLog` (``request_log=True``), or None."""
        return getattr(self.app.state, "request_log", None)

    @property
    def admin_token(self) -> str:
        """The token of the ``/_emulator/`` control routes."""
        token: str = self.app.state.control.admin_token
        return token

    @property
    def state(self) -> Any:
        """The app's :class:`~gcbridge.emulator.service.EmulatorState`."""
        return self.app.state.emulator


@contextmanager
def running_emulator(
    data_dir: str | Path,
    *,
    sites: list[Site] | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    clock: Clock = SYSTEM_CLOCK,
    sleep: Sleep | None = None,
    transport: Any = None,
    **settings_kw: Any,
) -> Iterator[RunningEmulator]:
    """Start the emulator on loopback (private receivers allowed by default); stop it after."""
    from gcbridge.emulator.service import create_app
    from gcbridge.serving import BackgroundServer

    settings_kw.setdefault("allow_private_receivers", True)
    base = Settings(
        sites=Sites(sites or [EXAMPLE_SITE, OTHER_SITE]),
        data_dir=Path(data_dir),
        host=host,
        **settings_kw,
    )

    def factory(bound_port: int) -> Any:
        return create_app(
            replace(base, port=bound_port), clock=clock, sleep=sleep, transport=transport
        )

    with BackgroundServer(factory, host=host, port=port) as server:
        state = server.app.state.emulator
        yield RunningEmulator(
            url=server.url, settings=state.settings, app=server.app, server=server
        )
