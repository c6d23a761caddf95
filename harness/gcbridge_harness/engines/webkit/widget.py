"""The widget page as a user sees it, read and driven through the DOM: :class:`DomWidgetView`.

The WebKit driver has no locators: this is :class:`~gcbridge_harness.app.widget_view.WidgetView`'s
engine-neutral part (what the shipped scenarios use) in plain DOM calls, on the
same ``data-testid`` hooks and ``data-gc-session`` attribute.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["DomWidgetView"]

_COMMENT_JS = """(content) => {
  const hit = [...document.querySelectorAll('[data-testid="content"]')]
    .find((node) => node.textContent === content);
  return hit ? hit.parentElement : null;
}"""


class DomWidgetView:
    """The widget page of ``app`` (anything with ``evaluate`` and ``wait_for``)."""

    def __init__(self, app: Any, *, timeout: float = 10.0) -> None:
        self.app = app
        self.timeout = timeout

    def _eval(self, script: str, arg: Any = None) -> Any:
        return self.app.evaluate(script, arg)

    def _until(self, script: str, arg: Any, what: str) -> None:
        deadline = time.monotonic() + self.timeout
        while not self._eval(script, arg):
            if time.monotonic() > deadline:
                raise AssertionError(f"the widget never showed {what}")
            self.app._pump_for_wait(0.03)

    @property
    def session(self) -> str:
        """``signed-in`` or ``signed-out``."""
        value: str = self._eval("document.documentElement.dataset.gcSession || ''")
        return value

    def session_text(self) -> str:
        """The sign-in line, e.g. ``Signed in as alice (@alice)``."""
        text: str = self._eval("document.querySelector('[data-testid=\"session\"]').innerText")
        return text

    def expect_signed_in(self, username: str) -> None:
        """Wait until the widget shows ``username`` signed in."""
        self._until(
            """(name) => document.documentElement.dataset.gcSession === 'signed-in' &&
                 document.querySelector('[data-testid="session"]').textContent
                   .includes('(@' + name + ')')""",
            username,
            f"{username} signed in",
        )

    def expect_signed_out(self) -> None:
        """Wait until the widget shows nobody signed in."""
        self._until(
            "() => document.documentElement.dataset.gcSession === 'signed-out'", None, "signed out"
        )

    def expect_loaded(self) -> None:
        """Wait until the thread's comments (or its empty state) are shown."""
        self._until(
            """() => { const s = document.querySelector('[data-testid="status"]');
                       return !!s && s.textContent !== 'Loading comments…'; }""",
            None,
            "its comments loaded",
        )

    def write_comment(self, text: str) -> None:
        """Type a comment and press Post (whatever the widget does next)."""
        self._eval(
            """(text) => { const box = document.querySelector('#gc-compose-text');
                 box.value = text; box.dispatchEvent(new Event('input', {bubbles: true})); }""",
            text,
        )
        self.click_post()

    def click_post(self) -> None:
        """Press Post."""
        self._eval("() => { document.querySelector('[data-testid=\"post\"]').click(); }")

    def post_comment(self, text: str) -> None:
        """Post a comment and wait until it is listed."""
        self.write_comment(text)
        self.wait_for_comment(text)

    def wait_for_comment(self, content: str) -> None:
        """Wait until the comment ``content`` is listed."""
        self._until(f"(c) => !!({_COMMENT_JS})(c)", content, f"the comment {content!r}")

    def _offers(self, content: str, testid: str) -> bool:
        return bool(
            self._eval(
                f"""([c, id]) => {{ const item = ({_COMMENT_JS})(c);
                      return !!item && !!item.querySelector('[data-testid="' + id + '"]'); }}""",
                [content, testid],
            )
        )

    def can_edit(self, content: str) -> bool:
        """Whether the comment ``content`` offers Edit."""
        return self._offers(content, "edit")

    def can_delete(self, content: str) -> bool:
        """Whether the comment ``content`` offers Delete."""
        return self._offers(content, "delete")

    def _in_comment(self, content: str, action: str, arg: Any = None) -> Any:
        """``action`` (a function body of ``item``, ``arg``) on the comment ``content``'s item."""
        return self._eval(
            f"""([c, arg]) => {{ const item = ({_COMMENT_JS})(c);
                  const DELETE = '[data-testid="delete"]';
                  const LINKS = ':scope > [data-testid="content"] a';
                  if (!item) {{ throw new Error('no comment ' + c); }}
                  {action} }}""",
            [content, arg],
        )

    def delete(self, content: str) -> None:
        """Press Delete on the comment ``content`` (the widget asks ``confirm()`` first)."""
        self._in_comment(content, "item.querySelector(':scope > .gc-actions > ' + DELETE).click();")

    def expect_gone(self, content: str) -> None:
        """Wait until the comment ``content`` is no longer listed."""
        self._until(f"(c) => !({_COMMENT_JS})(c)", content, f"the comment {content!r} gone")

    def attach(self) -> None:
        """Tap the compose form's file input (the WebView's file chooser opens, or nothing)."""
        self._eval("""() => { document.querySelector('[data-testid="attach"]').click(); }""")

    def picked(self) -> str:
        """The compose form's line about the file picked ('' when none)."""
        text: str = self._eval(
            """() => { const p = document.querySelector('[data-testid="picked"]');
                       return p && !p.hidden ? p.textContent : ''; }"""
        )
        return text

    def expect_picked(self, name: str) -> None:
        """Wait until the compose form shows the file ``name`` picked."""
        self._until(
            """(name) => { const p = document.querySelector('[data-testid="picked"]');
                           return !!p && !p.hidden && p.textContent.includes(name); }""",
            name,
            f"{name} picked",
        )

    def attachment(self, content: str) -> str:
        """The attachment line of the comment ``content`` ('' when it has none)."""
        text: str = self._in_comment(
            content,
            """const a = item.querySelector(':scope > [data-testid="attachment"]');
               return a ? a.textContent : '';""",
        )
        return text

    def links(self, content: str) -> list[dict[str, str]]:
        """The links of the comment ``content``: ``{"href", "target", "rel"}`` each."""
        found: list[dict[str, str]] = self._in_comment(
            content,
            """return [...item.querySelectorAll(LINKS)]
                 .map((a) => ({href: a.href, target: a.target, rel: a.rel}));""",
        )
        return found

    def open_link(self, content: str, href: str) -> None:
        """Tap the link to ``href`` in the comment ``content``."""
        self._in_comment(
            content,
            "[...item.querySelectorAll(LINKS)].find((a) => a.textContent === arg).click();",
            href,
        )

    def comment_contents(self) -> list[str]:
        """Texts of the listed comments, in page order."""
        texts: list[str] = self._eval(
            "[...document.querySelectorAll('[data-testid=\"content\"]')].map((n) => n.innerText)"
        )
        return texts

    def accounts_offered(self) -> bool:
        """Whether the service's own sign-in / register forms are shown."""
        return bool(
            self._eval(
                """(() => { const a = document.querySelector('[data-testid="accounts"]');
                            return !!a && !a.hidden && a.getClientRects().length > 0; })()"""
            )
        )
