"""Fixtures of the bridge.js tests: two http origins on one loopback server, a page helper."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from gcbridge.bridge import script

BLANK = b"<!doctype html><meta charset=utf-8><title>bridge test</title><body>page</body>"

# A frame that posts to its parent whatever its ?send= holds (a JSON string),
# the way a foreign widget or ad frame would: targetOrigin '*'.
FRAME = """<!doctype html><meta charset=utf-8><title>frame</title><script>
parent.postMessage(new URLSearchParams(location.search).get('send'), '*');
</script>"""


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        url = urlsplit(self.path)
        if url.path == "/blank":
            body = BLANK
        elif url.path == "/frame" and "send" in parse_qs(url.query):
            body = FRAME.encode()
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@dataclass
class Origins:
    """The same server reached as two origins: ``own`` (127.0.0.1) and ``foreign`` (localhost)."""

    own: str
    foreign: str


@pytest.fixture(scope="session")
def origins() -> Iterator[Origins]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, name="bridge-pages", daemon=True)
    thread.start()
    try:
        yield Origins(own=f"http://127.0.0.1:{port}", foreign=f"http://localhost:{port}")
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def bridge_text() -> str:
    return script().text


# Installed before the bridge: records what the page's own listener sees, so a
# test can wait for a sentinel message and know the bridge has handled every
# message before it (listeners run in order, the bridge's first).
RECORDER = """
window.__sent = [];
window.__seen = [];
"""

SEEN_LISTENER = """
window.addEventListener('message', function (e) {
  window.__seen.push(typeof e.data === 'string' ? e.data : JSON.stringify(e.data));
});
"""


@dataclass
class BridgePage:
    """A Playwright page on the own origin, with page errors and console warnings collected."""

    page: Any
    bridge_text: str
    origins: Origins
    errors: list[Any] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def open(self, before: str = "", *, inject: bool = True) -> BridgePage:
        """Load the blank page, run ``before`` (e.g. set a transport), inject the bridge."""
        self.page.goto(self.origins.own + "/blank")
        self.page.evaluate(f"() => {{ {RECORDER} {before} }}")
        if inject:
            self.inject()
        self.page.evaluate(f"() => {{ {SEEN_LISTENER} }}")
        return self

    def inject(self) -> None:
        """Inject bridge.js as a script element, as the platforms' injection does."""
        self.page.add_script_tag(content=self.bridge_text)

    def post(self, data: Any, *, raw: bool = False) -> None:
        """window.postMessage(data) from the page itself; ``raw`` passes a JS expression."""
        if raw:
            self.page.evaluate(f"() => window.postMessage({data}, location.origin)")
        else:
            self.page.evaluate("(d) => window.postMessage(d, location.origin)", data)

    def settle(self, sentinel: str = "sentinel") -> None:
        """Post a named sentinel and wait until the page saw it (so all before it were handled)."""
        marker = f'{{"name":"{sentinel}"}}'
        self.page.evaluate("(m) => window.postMessage(m, location.origin)", marker)
        self.page.wait_for_function("(m) => window.__seen.includes(m)", arg=marker)

    def sent(self) -> list[str]:
        return list(self.page.evaluate("() => window.__sent"))

    def stats(self) -> dict[str, Any]:
        return dict(self.page.evaluate("() => window.gcBridge.stats()"))


@pytest.fixture(scope="session")
def _shared_bridge_page(browser: Any, bridge_text: str, origins: Origins) -> Iterator[BridgePage]:
    # One context and page for the whole session: every test navigates afresh,
    # which gives it a new window (the bridge is not installed there yet).
    context = browser.new_context()
    page = context.new_page()
    bp = BridgePage(page=page, bridge_text=bridge_text, origins=origins)

    def on_error(error: Any) -> None:
        bp.errors.append(error)

    def on_console(msg: Any) -> None:
        if msg.type == "warning":
            bp.warnings.append(msg.text)

    page.on("pageerror", on_error)
    page.on("console", on_console)
    yield bp
    context.close()


@pytest.fixture
def bridge_page(_shared_bridge_page: BridgePage) -> BridgePage:
    bp = _shared_bridge_page
    bp.errors.clear()
    bp.warnings.clear()
    return bp
