"""Untrusted text (comment content, receiver responses) is shown as text and never runs."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.emulator.dashboard.support import calls, console_errors, send_test_event

pytestmark = pytest.mark.browser

IN_COMMENT = (
    '<script>window.__gcXss = "comment-script"</script>'
    "<img src=x onerror=\"window.__gcXss = 'comment-img'\">"
)
IN_RESPONSE = (
    "<img src=x onerror=\"window.__gcXss = 'response-img'\">"
    '<script>window.__gcXss = "response-script"</script>'
)


def test_markup_in_a_comment_and_in_a_receiver_response_is_inert(
    dashboard: Any, receiver: Any, webhook: dict[str, Any]
) -> None:
    errors = console_errors(dashboard)
    receiver.answer(400, IN_RESPONSE)
    dashboard.fill("#test-content", IN_COMMENT)
    send_test_event(dashboard, "comment.created")
    row = calls(dashboard, "[data-status=failed]")
    expect(row).to_have_count(1)
    row.locator(".call-summary").click()

    # The literal text is visible...
    expect(row.locator(".response-body")).to_have_text(IN_RESPONSE)
    expect(row.locator(".request-body")).to_contain_text(
        '<script>window.__gcXss = \\"comment-script\\"</script>'
    )
    expect(row.locator(".request-body")).to_contain_text("<img src=x onerror=")
    # ...and nothing of it became markup or ran.
    assert dashboard.locator("#app img, #app script").count() == 0
    dashboard.wait_for_timeout(300)  # give a stray onerror a chance to fire
    assert dashboard.evaluate("window.__gcXss") is None

    # The curl text is built from the same untrusted strings: still text.
    row.get_by_role("button", name="Copy as curl").click()
    expect(row.locator(".curl")).to_contain_text("<script>")
    assert dashboard.evaluate("window.__gcXss") is None
    assert errors == []
