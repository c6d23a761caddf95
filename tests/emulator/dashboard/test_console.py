"""Every control of the dashboard once, with not one console error (headless Chromium).

The page is a set of ES modules (``static/main.js`` and what it imports): a module
that fails to load, a MIME type the browser refuses, a CSP violation or a call
across modules that does not resolve all land in the console, so this test walks
through each card from the first page load to a refused token.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from gcbridge.emulator.testing import RunningEmulator
from tests.emulator.dashboard.support import calls, send_test_event

pytestmark = pytest.mark.browser


def _console_errors_of_the_page(page: Any) -> list[str]:
    """Console errors from now on, but the browser's own favicon request (the page has none)."""
    errors: list[str] = []

    def record(msg: Any) -> None:
        if msg.type == "error" and not msg.location.get("url", "").endswith("/favicon.ico"):
            errors.append(f"{msg.text} ({msg.location.get('url')})")

    page.on("console", record)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def test_every_control_without_a_console_error(
    page: Any, emu: RunningEmulator, receiver: Any, webhook: dict[str, Any]
) -> None:
    # The webhook exists from the start: without one, /config answers 404, which the
    # page expects (it opens the setup form) but the browser logs as a failed load.
    errors = _console_errors_of_the_page(page)
    page.set_default_timeout(10_000)
    page.goto(emu.url + "/dashboard/")

    # Sign-in: a wrong token, then the right one.
    page.fill("#token-input", "not-a-token")
    page.click("#login-submit")
    expect(page.locator("#login-error")).to_contain_text("not the account token of any site")
    page.fill("#token-input", emu.site.account_token)
    page.click("#login-submit")
    expect(page.locator("#app")).to_be_visible()
    expect(page.locator("#topbar-shortname")).to_have_text(emu.site.shortname)
    expect(page.locator("#live")).to_contain_text("live")
    expect(page.locator("#gc-url")).to_contain_text("/widget/?")

    # Site panel: save the webhook again (a new secret), reveal and hide the secret.
    expect(page.locator("#webhook-url")).to_have_text(webhook["url"])
    page.click("#setup-details summary")
    page.fill("#setup-url", receiver.url)
    page.click('#setup-form button[type="submit"]')
    expect(page.locator("#setup-status")).to_contain_text("Saved")
    page.click("#reveal-secret")
    expect(page.locator("#webhook-secret")).to_have_attribute("data-revealed", "true")
    expect(page.locator("#webhook-secret")).not_to_have_text(webhook["secret"])
    page.click("#reveal-secret")
    expect(page.locator("#webhook-secret")).to_have_attribute("data-revealed", "false")

    # Test events, then the journal: expand, curl, verify, filter.
    for kind in ("comment.created", "comment.updated", "comment.approved", "comment.deleted"):
        send_test_event(page, kind)
    expect(calls(page, "[data-status=succeeded]")).to_have_count(4)
    row = calls(page).first
    row.locator(".call-summary").click()
    attempt = row.locator(".attempt")
    attempt.get_by_role("button", name="Copy as curl").click()
    expect(attempt.locator(".curl")).to_contain_text("curl -sS -X POST")
    attempt.get_by_role("button", name="Check signature (/verify)").click()
    expect(attempt.locator(".verdict")).to_contain_text("Valid signature")
    page.select_option("#filter-event", "comment.deleted")
    expect(calls(page)).to_have_count(1)
    expect(page.locator("#journal-count")).to_have_text("1 call")

    # Disable, sign out: nothing of the site stays in the page.
    page.click("#disable-webhook")
    expect(page.locator("#webhook-enabled")).to_have_text("disabled")
    page.click("#sign-out")
    expect(page.locator("#login")).to_be_visible()
    expect(calls(page)).to_have_count(0)
    assert emu.site.website_id not in page.content()

    # A kept token the emulator no longer accepts sends the tab back to the form.
    page.evaluate("sessionStorage.setItem('gc_dashboard_token', 'revoked')")
    page.reload()
    expect(page.locator("#login-error")).to_contain_text("no longer accepts this account token")
    assert page.evaluate("sessionStorage.getItem('gc_dashboard_token')") is None

    assert errors == []
