"""The dashboard makes no request that fails (favicon,
config of a fresh site), and the receiver's default delivery log is ignored by git."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gcbridge.emulator.testing import RunningEmulator, running_emulator
from tests.as_user import ROOT


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[RunningEmulator]:
    with running_emulator(tmp_path / "data") as running:
        yield running


@pytest.mark.browser
def test_the_dashboard_of_a_fresh_site_logs_nothing_and_nothing_fails(
    page: Any, fresh: RunningEmulator
) -> None:
    failed: list[str] = []
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda exc: console.append(str(exc)))
    page.on("requestfailed", lambda r: failed.append(f"{r.url} {r.failure}"))
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.set_default_timeout(15_000)
    page.goto(fresh.url + "/dashboard/")
    page.fill("#token-input", fresh.site.account_token)
    with page.expect_response(lambda r: r.url.endswith("/config")) as config:
        page.click("#login-submit")
    page.wait_for_selector("#app:not([hidden])")
    assert config.value.status == 200  # a fresh site: no webhook yet, said in the body
    assert config.value.json()["gcCode"] == 404
    page.wait_for_load_state("networkidle")
    # the favicon the browser asks for on its own
    icon = page.request.get(fresh.url + "/favicon.ico")
    assert icon.status == 200 and icon.headers["content-type"] == "image/x-icon"
    assert failed == [] and console == [], (failed, console)


def test_the_favicon_is_an_icon_and_the_api_keeps_its_404(fresh: RunningEmulator) -> None:
    icon = httpx.get(fresh.url + "/favicon.ico", timeout=30)
    assert icon.status_code == 200 and icon.content[:4] == b"\x00\x00\x01\x00"  # ICO header
    # API clients (no browser fetch metadata) still get HTTP 404 before setup
    config = httpx.get(
        f"{fresh.url}/webhook/website/{fresh.site.website_id}/config",
        headers={"Authorization": f"Bearer {fresh.site.account_token}"},
        timeout=30,
    )
    assert config.status_code == 404 and config.json()["gcCode"] == 404


@pytest.mark.parametrize(
    "path", ["deliveries.db", "docs_src/deliveries.db", "deliveries.db-wal", "bench/out/x.json"]
)
def test_generated_files_are_ignored_by_git(path: str) -> None:
    run = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT, check=False)
    assert run.returncode == 0, f"{path} is not ignored"


def test_the_licence_file_ships() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "gc-bridge developers" in text
