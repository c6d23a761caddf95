"""Page object of the emulator's widget: what a user sees and does in the WebView.

It relies only on the widget's ``data-testid`` hooks and the ``data-gc-session``
attribute of ``<html>`` (``signed-in`` / ``signed-out``).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["WidgetView"]


class WidgetView:
    """Read and drive the widget page shown in ``page``."""

    def __init__(self, page: Any, *, timeout_ms: float = 10_000) -> None:
        self.page = page
        self.timeout_ms = timeout_ms

    def _expect(self, locator: Any) -> Any:
        from playwright.sync_api import expect

        return expect(locator)

    @property
    def session(self) -> str:
        """``signed-in`` or ``signed-out``."""
        value: str = self.page.locator("html").get_attribute("data-gc-session") or ""
        return value

    def session_text(self) -> str:
        """The sign-in line, e.g. ``Signed in as alice (@alice)``."""
        text: str = self.page.get_by_test_id("session").inner_text()
        return text

    def expect_signed_in(self, username: str) -> None:
        """Wait until the widget shows ``username`` signed in."""
        self._expect(self.page.locator("html")).to_have_attribute(
            "data-gc-session", "signed-in", timeout=self.timeout_ms
        )
        self._expect(self.page.get_by_test_id("session")).to_contain_text(
            f"(@{username})", timeout=self.timeout_ms
        )

    def expect_signed_out(self) -> None:
        """Wait until the widget shows nobody signed in."""
        self._expect(self.page.locator("html")).to_have_attribute(
            "data-gc-session", "signed-out", timeout=self.timeout_ms
        )

    def expect_loaded(self) -> None:
        """Wait until the thread's comments (or its empty state) are shown."""
        self._expect(self.page.get_by_test_id("status")).not_to_have_text(
            "Loading comments…", timeout=self.timeout_ms
        )

    def write_comment(self, text: str) -> None:
        """Type a comment and press Post (whatever the widget does next)."""
        self.page.locator("#gc-compose-text").fill(text)
        self.click_post()

    def click_post(self) -> None:
        """Press Post."""
        self.page.get_by_test_id("post").click()

    def wait_for_comment(self, content: str) -> None:
        """Wait until the comment ``content`` is listed."""
        self.comment(content).wait_for(timeout=self.timeout_ms)

    def can_edit(self, content: str) -> bool:
        """Whether the comment ``content`` offers Edit."""
        return bool(self.comment(content).get_by_test_id("edit").count())

    def can_delete(self, content: str) -> bool:
        """Whether the comment ``content`` offers Delete."""
        return bool(self.comment(content).get_by_test_id("delete").count())

    def post_comment(self, text: str) -> Any:
        """Post a comment and wait until it is listed; returns its list item."""
        self.write_comment(text)
        item = self.comment(text)
        self._expect(item).to_be_visible(timeout=self.timeout_ms)
        return item

    def comment(self, content: str) -> Any:
        """The list item of the comment whose own text is ``content`` (not one of its replies')."""
        exact = re.compile("^" + re.escape(content) + "$")
        return self.page.get_by_test_id("content").filter(has_text=exact).locator("xpath=..")

    def delete(self, content: str) -> None:
        """Press Delete on the comment ``content`` (the widget asks ``confirm()`` first)."""
        self.comment(content).locator(':scope > .gc-actions > [data-testid="delete"]').click()

    def expect_gone(self, content: str) -> None:
        """Wait until the comment ``content`` is no longer listed."""
        self.comment(content).wait_for(state="detached", timeout=self.timeout_ms)

    def attach(self) -> None:
        """Tap the compose form's file input (the WebView's file chooser opens, or nothing)."""
        self.page.get_by_test_id("attach").click()

    def picked(self) -> str:
        """The compose form's line about the file picked ('' when none)."""
        line = self.page.get_by_test_id("picked")
        return str(line.inner_text()) if line.is_visible() else ""

    def expect_picked(self, name: str) -> None:
        """Wait until the compose form shows the file ``name`` picked."""
        self._expect(self.page.get_by_test_id("picked")).to_contain_text(
            name, timeout=self.timeout_ms
        )

    def attachment(self, content: str) -> str:
        """The attachment line of the comment ``content`` ('' when it has none)."""
        line = self.comment(content).locator(':scope > [data-testid="attachment"]')
        return str(line.inner_text()) if line.count() else ""

    def links(self, content: str) -> list[dict[str, str]]:
        """The links of the comment ``content``: ``{"href", "target", "rel"}`` each."""
        links = self.comment(content).locator(':scope > [data-testid="content"] a')
        found: list[dict[str, str]] = links.evaluate_all(
            "(links) => links.map((a) => ({href: a.href, target: a.target, rel: a.rel}))"
        )
        return found

    def open_link(self, content: str, href: str) -> None:
        """Tap the link to ``href`` in the comment ``content``."""
        links = self.comment(content).locator(':scope > [data-testid="content"] a')
        links.filter(has_text=re.compile("^" + re.escape(href) + "$")).click()

    def comment_contents(self) -> list[str]:
        """Texts of the listed comments, in page order."""
        texts: list[str] = self.page.get_by_test_id("content").all_inner_texts()
        return texts

    def accounts_offered(self) -> bool:
        """Whether the service's own sign-in / register forms are shown."""
        visible: bool = self.page.get_by_test_id("accounts").is_visible()
        return visible
