"""Fixtures of the emulator-core tests: a real emulator on loopback, on a ManualClock.

The app runs under uvicorn in a thread (``gcbridge.serving.BackgroundServer``)
without the webhook dispatcher, so that calls rows stay where the routes put
them; requests go over real HTTP with httpx.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from gcbridge.clock import ManualClock
from gcbridge.emulator.service import create_app
from gcbridge.emulator.settings import Settings
from gcbridge.emulator.sites import Site, Sites
from gcbridge.emulator.testing import EXAMPLE_SITE, OTHER_SITE
from gcbridge.serving import BackgroundServer
from tests.emulator.core_support import Emu, make_sso_data

START = 1_800_000_000.0
_COUNTER = itertools.count(1)


@pytest.fixture(scope="module")
def clock() -> ManualClock:
    """One manual clock per test module (it only moves forward; tests must not mind)."""
    return ManualClock(START)


@pytest.fixture
def uniq() -> Callable[[str], str]:
    """Unique names, so that tests sharing a module's emulator never collide."""

    def make(prefix: str) -> str:
        return f"{prefix}{next(_COUNTER)}"

    return make


@contextmanager
def emulators(data_dir: Path, clock: ManualClock) -> Iterator[Callable[..., Emu]]:
    """A factory of emulators on ``data_dir`` (all stopped on exit)."""
    stack: list[tuple[BackgroundServer, httpx.Client]] = []

    def make(**kw: Any) -> Emu:
        base = Settings(
            sites=Sites([EXAMPLE_SITE, OTHER_SITE]),
            data_dir=data_dir,
            allow_private_receivers=True,
            **kw,
        )
        server = BackgroundServer(
            lambda port: create_app(replace(base, port=port), clock=clock, run_dispatcher=False)
        ).start()
        http = httpx.Client(base_url=server.url, timeout=10)
        stack.append((server, http))
        return Emu(http=http, state=server.app.state.emulator, url=server.url)

    try:
        yield make
    finally:
        for server, http in reversed(stack):
            http.close()
            server.stop()


@pytest.fixture
def make_emu(tmp_path: Path, clock: ManualClock) -> Iterator[Callable[..., Emu]]:
    """Start emulators (stopped after the test) sharing ``tmp_path/data`` as data dir."""
    with emulators(tmp_path / "data", clock) as make:
        yield make


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory, clock: ManualClock) -> Iterator[Emu]:
    """One emulator per test module (starting one costs a few hundred ms); use ``uniq`` names."""
    with emulators(tmp_path_factory.mktemp("emu"), clock) as make:
        yield make()


@pytest.fixture
def client(emu: Emu) -> httpx.Client:
    return emu.http


@pytest.fixture
def sign_in(
    client: httpx.Client, clock: ManualClock, uniq: Callable[[str], str]
) -> Callable[..., Any]:
    """Sign a fresh SSO user of a site in; returns ``(token, user JSON)``."""

    def login(site: Site = EXAMPLE_SITE) -> tuple[str, dict[str, Any]]:
        name = uniq("user")
        user = {"id": name, "username": name, "email": f"{name}@example.com"}
        data = make_sso_data(site.sso_secret, user, int(clock.now()))
        resp = client.post(
            "/api/pub/sso/login", json={"api_public_key": site.sso_public_key, "ssoData": data}
        )
        assert resp.status_code == 200, resp.text
        body = resp.json()
        return body["token"], body["user"]

    return login
