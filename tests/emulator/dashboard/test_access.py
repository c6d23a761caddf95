"""Token screen, secret reveal and widget links of the dashboard (headless Chromium)."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from gcbridge.emulator.testing import RunningEmulator

pytestmark = pytest.mark.browser


def test_nothing_is_shown_without_a_token(
    page: Any, emu: RunningEmulator, webhook: dict[str, Any]
) -> None:
    page.goto(emu.url + "/dashboard/")
    expect(page.locator("#login")).to_be_visible()
    expect(page.locator("#app")).to_be_hidden()
    html = page.content()
    assert emu.site.website_id not in html
    assert webhook["secret"] not in html
    assert page.evaluate("sessionStorage.length") == 0


def test_a_wrong_token_is_refused_with_a_clear_message(page: Any, emu: RunningEmulator) -> None:
    page.goto(emu.url + "/dashboard/")
    page.fill("#token-input", "not-a-token")
    page.click("#login-submit")
    expect(page.locator("#login-error")).to_contain_text("not the account token of any site")
    expect(page.locator("#login-error")).to_contain_text("gcCode 410")
    expect(page.locator("#app")).to_be_hidden()
    assert page.evaluate("sessionStorage.getItem('gc_dashboard_token')") is None


def test_the_token_opens_the_site_and_lasts_for_the_tab(
    dashboard: Any, emu: RunningEmulator
) -> None:
    expect(dashboard.locator("#site-website-id")).to_have_text(emu.site.website_id)
    expect(dashboard.locator("#site-shortname")).to_have_text(emu.site.shortname)
    dashboard.reload()
    expect(dashboard.locator("#site-website-id")).to_have_text(emu.site.website_id)
    dashboard.click("#sign-out")
    expect(dashboard.locator("#login")).to_be_visible()
    assert emu.site.website_id not in dashboard.content()
    dashboard.reload()
    expect(dashboard.locator("#login")).to_be_visible()
    expect(dashboard.locator("#app")).to_be_hidden()


def test_the_secret_stays_hidden_until_revealed(dashboard: Any, webhook: dict[str, Any]) -> None:
    dashboard.reload()  # the webhook was set up after the fixture signed in
    expect(dashboard.locator("#webhook-url")).to_have_text(webhook["url"])
    expect(dashboard.locator("#webhook-events")).to_contain_text("comment.approved")
    expect(dashboard.locator("#webhook-enabled")).to_have_text("enabled")
    assert webhook["secret"] not in dashboard.content()
    dashboard.click("#reveal-secret")
    expect(dashboard.locator("#webhook-secret")).to_have_text(webhook["secret"])
    dashboard.click("#reveal-secret")
    expect(dashboard.locator("#webhook-secret")).not_to_have_text(webhook["secret"])
    assert webhook["secret"] not in dashboard.content()


def test_webhook_setup_from_the_dashboard(
    dashboard: Any, emu: RunningEmulator, receiver: Any
) -> None:
    expect(dashboard.locator("#webhook-missing")).to_be_visible()
    dashboard.fill("#setup-url", receiver.url)
    dashboard.uncheck('#setup-form input[value="comment.updated"]')
    dashboard.click('#setup-form button[type="submit"]')
    expect(dashboard.locator("#setup-status")).to_contain_text("Saved")
    expect(dashboard.locator("#webhook-url")).to_have_text(receiver.url)
    expect(dashboard.locator("#webhook-events")).to_have_text(
        "comment.created, comment.approved, comment.deleted"
    )
    dashboard.click("#disable-webhook")
    expect(dashboard.locator("#webhook-enabled")).to_have_text("disabled")


def test_widget_links_with_and_without_the_public_key(dashboard: Any, emu: RunningEmulator) -> None:
    expect(dashboard.locator("#gc-url")).to_contain_text("/widget/?")
    expect(dashboard.locator("#thread-load-url")).to_contain_text(
        emu.url + "/api/pub/thread-load/?service_id=demo&"
    )
    plain = dashboard.get_attribute("#open-plain", "href")
    sso = dashboard.get_attribute("#open-sso", "href")
    assert plain is not None and sso is not None
    assert "api_public_key" not in parse_qs(urlsplit(plain).query)
    query = parse_qs(urlsplit(sso).query)
    assert query["api_public_key"] == [emu.site.sso_public_key]
    assert query["uid"] == ["dashboard-sample"]
    assert query["website_id"] == [emu.site.shortname]

    dashboard.click("#preview-sso")
    expect(dashboard.locator("#phone")).to_be_visible()
    assert dashboard.get_attribute("#phone-frame", "src") == sso
    # The widget allows same-origin framing: the preview really shows it.
    expect(
        dashboard.frame_locator("#phone-frame").locator("[data-testid=comments]")
    ).to_be_attached()
    dashboard.click("#phone-close")
    expect(dashboard.locator("#phone")).to_be_hidden()
