"""Emulator settings: configuration is data, built in one place.

``Settings.from_options`` is the only constructor the CLI uses; tests build
``Settings`` directly. The defaults below are the ones ``gcbridge emulator --help``
and the documentation print.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from gcbridge.emulator.datadir import secure_data_dir
from gcbridge.emulator.errors import ConfigError
from gcbridge.emulator.sites import Site, Sites, load_or_create_demo_site, load_sites
from gcbridge.sso.policy import DEFAULT_LEEWAY, DEFAULT_MAX_AGE

__all__ = [
    "Settings",
    "DEFAULT_RETRY_SCHEDULE",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "DEFAULT_DATA_DIR",
    "DEFAULT_ATTEMPT_TIMEOUT",
    "parse_retry_schedule",
]

DEFAULT_RETRY_SCHEDULE: tuple[float, ...] = (0, 60, 300, 900, 3600, 21600)
"""Seconds before each attempt of a delivery, counted from the one before: the service's."""
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_DATA_DIR = ".gcbridge"
DEFAULT_ATTEMPT_TIMEOUT = 10.0
"""Seconds one delivery attempt may take, connection included."""


def parse_retry_schedule(text: str) -> tuple[float, ...]:
    """Parse ``"0,60,300"`` into delays in seconds (first must be 0, non-decreasing)."""
    try:
        delays = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ConfigError(
            f"--retry-schedule {text!r}: comma-separated seconds expected", reason="bad_schedule"
        ) from None
    if not delays or delays[0] != 0 or any(d < 0 for d in delays) or list(delays) != sorted(delays):
        raise ConfigError(
            f"--retry-schedule {text!r}: starts with 0, non-negative, non-decreasing "
            "(e.g. 0,60,300)",
            reason="bad_schedule",
        )
    return delays


@dataclass(frozen=True)
class Settings:
    """Everything the emulator needs to run."""

    sites: Sites
    data_dir: Path
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    front_url: str | None = None  # default: http://HOST:PORT/widget/
    retry_schedule: tuple[float, ...] = DEFAULT_RETRY_SCHEDULE
    allow_private_receivers: bool = False
    attempt_timeout: float = DEFAULT_ATTEMPT_TIMEOUT
    response_body_limit: int = 2048
    session_max_age: int = 30 * 24 * 3600
    sso_max_age: int = DEFAULT_MAX_AGE
    sso_leeway: int = DEFAULT_LEEWAY
    request_log: bool = False  # record every request (tests only: see requestlog.py)
    clock_mode: str = "system"  # --clock: system (wall time) or manual (moved by /_emulator/clock)
    # --admin-token-env; None: generated into <data_dir>/admin-token (control/token.py)
    admin_token: str | None = field(default=None, repr=False)
    generated_site: Site | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        """The API base address."""
        return f"http://{self.host}:{self.port}"

    @property
    def public_url(self) -> str:
        """Where browsers reach this emulator: the origin of ``front_url`` if set, else the
        bind address (a wildcard bind shown as loopback). Absolute URLs the emulator
        stores (default avatars) are built from this, never from a request's Host header.
        """
        if self.front_url:
            parts = urlsplit(self.front_url)
            if parts.scheme and parts.netloc:
                return f"{parts.scheme}://{parts.netloc}"
        host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(self.host, self.host)  # noqa: S104
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.port}"

    @property
    def widget_url(self) -> str:
        """The widget front end address (``{front_url}``)."""
        return self.front_url or f"{self.base_url}/widget/"

    @property
    def db_path(self) -> Path:
        """The SQLite file of comments, users, webhook config and the journal."""
        return self.data_dir / "emulator.sqlite3"

    @classmethod
    def from_options(
        cls,
        *,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        data_dir: str | Path = DEFAULT_DATA_DIR,
        sites_file: str | Path | None = None,
        front_url: str | None = None,
        retry_schedule: str | None = None,
        allow_private_receivers: bool = False,
        attempt_timeout: float = DEFAULT_ATTEMPT_TIMEOUT,
        clock_mode: str = "system",
        admin_token: str | None = None,
    ) -> Settings:
        """Build settings from CLI-style options; without a sites file, a demo site is generated."""
        data = secure_data_dir(Path(data_dir))
        generated = None
        if sites_file:
            sites = load_sites(sites_file)
        else:
            site, created = load_or_create_demo_site(data)
            sites = Sites([site])
            generated = site if created else None
        if clock_mode not in ("system", "manual"):
            raise ConfigError(f"--clock {clock_mode!r}: system or manual", reason="bad_clock")
        if not 0 < port < 65536:
            raise ConfigError(f"--port {port}: 1-65535", reason="bad_port")
        return cls(
            sites=sites,
            data_dir=data,
            host=host,
            port=port,
            front_url=front_url,
            retry_schedule=parse_retry_schedule(retry_schedule)
            if retry_schedule
            else DEFAULT_RETRY_SCHEDULE,
            allow_private_receivers=allow_private_receivers,
            attempt_timeout=attempt_timeout,
            clock_mode=clock_mode,
            admin_token=admin_token,
            generated_site=generated,
        )
