"""Helpers shared by the dashboard browser tests."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect


def send_test_event(page: Any, event_type: str) -> None:
    """Click the dashboard's test-event button and wait until the comment route answered."""
    page.click(f'#test-buttons button[data-event="{event_type}"]')
    expect(page.locator("#test-status")).to_contain_text(f"Sent {event_type}")


def calls(page: Any, selector: str = "") -> Any:
    """The journal's call rows (optionally narrowed, e.g. ``[data-status=failed]``)."""
    return page.locator(f"#calls article.call{selector}")


def console_errors(page: Any) -> list[str]:
    """Collect console errors (CSP violations land here) from now on."""
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors
