"""Waiting on the page, in either engine: :class:`PageWaits`, mixed into the native app.

Everything here rests on three methods each engine's app provides: ``evaluate``
(a script in the page), ``_pump`` (let the page and the app run a little) and
``_inflight`` (requests not answered yet).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

__all__ = ["PageWaits", "DEFAULT_WAIT", "wait_seconds"]

DEFAULT_WAIT = 10.0
"""Seconds a scenario waits for what it expects before it fails (``--gc-wait``)."""


def wait_seconds(text: str) -> float:
    """``--gc-wait`` / ``harness run --wait``: seconds, more than 0 and at most 600."""
    import argparse

    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= 600:
        raise argparse.ArgumentTypeError(f"{text!r}: seconds between 0 and 600")
    return seconds


_FLUSH_JS = """(token) => new Promise((resolve) => {
  const done = (e) => { if (e.source === window && e.data === token) {
    window.removeEventListener('message', done); resolve(null); } };
  window.addEventListener('message', done);
  window.postMessage(token, location.origin);
})"""


class PageWaits:
    """Waits, forwarded events and requests of one launch."""

    wait_seconds: float = DEFAULT_WAIT
    """How long a wait lasts before the scenario fails (``--gc-wait``)."""

    # Provided by NativeApp and its engine.
    timeline: Any
    messages: list[dict[str, Any]]
    requests: list[tuple[str, str]]

    def evaluate(self, script: str, arg: Any = None, *, world: str = "page") -> Any:
        raise NotImplementedError

    def _pump(self, seconds: float) -> None:
        """Let the page and the app run for ``seconds``."""
        raise NotImplementedError

    def _pump_for_wait(self, seconds: float) -> None:
        """Like :meth:`_pump`, for a wait: an engine may return early when something arrived."""
        self._pump(seconds)

    def _inflight(self) -> int:
        raise NotImplementedError

    def wait_for(
        self, predicate: Callable[[], bool], what: str, *, timeout: float | None = None
    ) -> None:
        """Let the page run until ``predicate()`` holds; fail naming ``what`` after ``timeout``."""
        deadline = time.monotonic() + (self.wait_seconds if timeout is None else timeout)
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"timed out waiting for {what}\ntimeline:\n{self.timeline.format()}"
                )
            self._pump_for_wait(0.02)

    def wait_for_function(self, expression: str, *, timeout: float | None = None) -> None:
        """Wait until the page's ``expression`` is truthy."""
        self.wait_for(lambda: bool(self.evaluate(expression)), expression, timeout=timeout)

    def events(self, name: str | None = None) -> list[dict[str, Any]]:
        """Forwarded widget events (optionally only those called ``name``)."""
        return [m for m in self.messages if name is None or m["name"] == name]

    def wait_for_event(
        self, name: str, *, count: int = 1, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Wait until ``count`` events ``name`` reached the native side; returns them."""
        self.wait_for(lambda: len(self.events(name)) >= count, f"{count} x {name}", timeout=timeout)
        return self.events(name)

    def requests_to(self, path: str, method: str | None = None) -> list[str]:
        """URLs of the page's requests to ``path`` (on any origin)."""
        return [
            url
            for m, url in self.requests
            if urlsplit(url).path == path and (method is None or m == method)
        ]

    def post_in_page(self, data_js: str) -> None:
        """``window.postMessage(<data_js>, location.origin)`` from the page itself."""
        self.evaluate(f"() => {{ window.postMessage({data_js}, location.origin); }}")

    def round_trip(self) -> None:
        """Wait until every window message posted so far has been dispatched."""
        self.evaluate(_FLUSH_JS, f"gc-harness-flush:{secrets.token_hex(6)}")

    def settle(self, *, timeout: float | None = None) -> None:
        """Wait until the page has handled every message and its network is idle, twice running."""
        deadline = time.monotonic() + (self.wait_seconds if timeout is None else timeout)
        while True:
            before = len(self.requests)
            self.round_trip()
            self.wait_for(
                lambda: self._inflight() <= 0,
                "network idle",
                timeout=max(0.1, deadline - time.monotonic()),
            )
            self._pump(0.05)
            if len(self.requests) == before and self._inflight() <= 0:
                return
            if time.monotonic() > deadline:
                raise AssertionError("page did not settle\n" + self.timeline.format())
