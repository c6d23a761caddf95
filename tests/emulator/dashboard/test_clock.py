"""The dashboard's clock card: mode and time, pending attempts' due times, advance control."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from gcbridge.emulator.testing import RunningEmulator, running_emulator

pytestmark = pytest.mark.browser


@pytest.fixture
def manual_emu(tmp_path: Path) -> Iterator[RunningEmulator]:
    with running_emulator(tmp_path / "data", clock_mode="manual") as running:
        yield running


def test_the_clock_card_plays_the_retry_schedule(
    page: Any, manual_emu: RunningEmulator, receiver: Any
) -> None:
    emu = manual_emu
    receiver.answer(500, "down")
    account = {"Authorization": f"Bearer {emu.site.account_token}"}
    with httpx.Client(base_url=emu.url, timeout=10) as http:
        http.post(
            f"/webhook/website/{emu.site.website_id}/setup",
            json={"url": receiver.url},
            headers=account,
        ).raise_for_status()
        token = http.post(
            "/api/pub/auth/register",
            json={
                "website_id": emu.site.shortname,
                "username": "dash",
                "email": "d@example.com",
                "password": "correct horse battery staple",
            },
        ).json()["token"]
        http.post(
            "/api/pub/comments",
            json={
                "website_id": emu.site.shortname,
                "uid": "a1",
                "url": "https://x.example/a1",
                "page_title": "A1",
                "content": "retry me",
            },
            headers={"Authorization": f"Bearer {token}"},
        ).raise_for_status()
        http.post(
            "/_emulator/clock",
            json={"action": "advance", "seconds": 0},
            headers={"Authorization": f"Bearer {emu.admin_token}"},
        ).raise_for_status()

    page.set_default_timeout(10_000)
    page.goto(emu.url + "/dashboard/")
    page.fill("#token-input", emu.site.account_token)
    page.click("#login-submit")
    expect(page.locator("#clock-mode")).to_contain_text("manual")
    expect(page.locator("#clock-pending")).to_have_text("1")
    expect(page.locator("#clock-due li")).to_have_count(1)
    expect(page.locator("#clock-due li")).to_contain_text("retry 1 due")
    expect(page.locator("#clock-due li")).to_contain_text("in 60 s")  # on the emulator's clock

    page.click("#clock-idle")  # no admin token yet
    expect(page.locator("#clock-status")).to_contain_text("admin token")
    page.fill("#admin-token", emu.admin_token)
    page.dispatch_event("#admin-token", "change")
    page.click("#clock-idle")
    expect(page.locator("#clock-status")).to_contain_text("5 delivery attempt(s)")
    expect(page.locator("#clock-pending")).to_have_text("0")
    expect(page.locator("#clock-due-empty")).to_be_visible()
    assert len(receiver.requests) == 6

    page.fill("#admin-token", "wrong-token")
    page.dispatch_event("#admin-token", "change")
    page.click("#clock-steps button[data-seconds='60']")
    expect(page.locator("#clock-status")).to_contain_text("admin_token_required")
