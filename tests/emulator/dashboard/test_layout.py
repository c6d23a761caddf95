"""The dashboard on a phone-sized window, and the README screenshot at desktop width."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from gcbridge.emulator.testing import RunningEmulator
from tests.emulator.dashboard.support import calls, send_test_event

pytestmark = pytest.mark.browser

SCREENSHOT = Path(__file__).resolve().parents[3] / "docs_src" / "img" / "dashboard.png"

NO_OVERFLOW = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"


def test_no_horizontal_overflow_at_375px(
    page: Any, emu: RunningEmulator, receiver: Any, webhook: dict[str, Any]
) -> None:
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(emu.url + "/dashboard/")
    assert page.evaluate(NO_OVERFLOW)
    page.fill("#token-input", emu.site.account_token)
    page.click("#login-submit")
    receiver.answer(410, "x" * 400)  # a long unbroken body must wrap
    send_test_event(page, "comment.created")
    row = calls(page, "[data-status=failed]")
    expect(row).to_have_count(1)
    row.locator(".call-summary").click()
    row.get_by_role("button", name="Copy as curl").click()
    page.click("#reveal-secret")
    expect(row.locator(".curl")).to_be_visible()
    assert page.evaluate(NO_OVERFLOW)
    # The replay button is reachable, not pushed off-screen.
    box = row.locator("button.replay").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 375


def _populate(page: Any, receiver: Any) -> None:
    receiver.answer(401, '{"error": "signature_mismatch"}')
    send_test_event(page, "comment.created")
    expect(calls(page, "[data-status=failed]")).to_have_count(1)
    receiver.answer(200, '{"received": true}')
    send_test_event(page, "comment.updated")
    send_test_event(page, "comment.approved")
    calls(page, "[data-status=failed]").locator("button.replay").click()
    expect(calls(page, "[data-status=succeeded]")).to_have_count(3)
    calls(page, "[data-status=failed]").locator(".call-summary").click()


def test_readme_screenshot(
    page: Any, emu: RunningEmulator, receiver: Any, webhook: dict[str, Any], tmp_path: Path
) -> None:
    """Writes docs_src/img/dashboard.png when missing or with GC_UPDATE_SCREENSHOTS=1."""
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(emu.url + "/dashboard/")
    page.fill("#token-input", emu.site.account_token)
    page.click("#login-submit")
    expect(page.locator("#webhook-url")).to_have_text(webhook["url"])
    _populate(page, receiver)
    assert page.evaluate(NO_OVERFLOW)
    update = os.environ.get("GC_UPDATE_SCREENSHOTS") == "1" or not SCREENSHOT.exists()
    target = SCREENSHOT if update else tmp_path / "dashboard.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(target), full_page=True)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
