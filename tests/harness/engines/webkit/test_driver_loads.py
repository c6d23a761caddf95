"""The WebKit driver's load command when something else cancels the load it waits for.

A busy web process sometimes cancels a view's load by itself ("Load request
cancelled"); the driver asks again. When the cancel comes from a navigation the
page or the app started meanwhile, that navigation's load is the one the command
waits for: asking again for the first URL would take the view back to it. A load
that then commits nothing is stopped and asked again.
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from gcbridge_harness.engines import engine_status
from gcbridge_harness.world.frames import PageServer

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not engine_status("webkit").found, reason="WebKitGTK is not installed here"),
]


_RELEASE = threading.Event()  # set at the end of each test: a held request ends
_HELD: list[str] = []


class _Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        if self.path == "/slow":
            time.sleep(1.5)  # still loading when the app navigates away
        if self.path == "/hang-once" and not _HELD:
            _HELD.append(self.path)  # the first request never gets an answer
            _RELEASE.wait(60)
            return
        body = f"<title>{self.path}</title>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        return


@pytest.fixture
def pages() -> Iterator[str]:
    server = PageServer(("127.0.0.1", 0), _Pages)  # WebKit hangs up on /slow quietly
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _RELEASE.clear()
    _HELD.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    _RELEASE.set()
    server.shutdown()
    server.server_close()


@contextmanager
def _view_navigating_to(pages: str, path: str) -> Iterator[tuple[Any, list[dict[str, Any]]]]:
    """A driver with view ``v1`` open whose app navigates to ``path`` once its first load started.

    Yields the driver process and the view's events; the process is closed after.
    """
    from gcbridge_harness.engines.webkit.client import WebKitProcess

    process = WebKitProcess()
    try:
        events: list[dict[str, Any]] = []

        def on_event(event: dict[str, Any]) -> None:
            events.append(event)
            started = [e for e in events if e.get("phase") == "started"]
            if event.get("phase") == "started" and len(started) == 1:
                process.request("navigate", view="v1", url=pages + path)

        process.listeners["v1"] = on_event
        process.request("open", view="v1")
        yield process, events
    finally:
        process.close()


def test_a_load_cancelled_by_a_navigation_ends_with_that_navigation(pages: str) -> None:
    with _view_navigating_to(pages, "/other") as (process, events):
        process.request("load", view="v1", url=pages + "/slow")
        process.pump(1.0)  # a wrongly asked-again load of /slow would start meanwhile

        history = process.request("history", view="v1")["entries"]
        assert [entry["url"] for entry in history] == [pages + "/other"]
        assert any(e.get("event") == "load-retry" for e in events), "the cancel was seen"
        started = [e for e in events if e.get("phase") == "started"]
        assert len(started) == 2, events  # /slow, then /other; /slow never again


def test_a_load_that_stalls_after_a_cancel_is_stopped_and_asked_again(pages: str) -> None:
    # On a loaded machine WebKit sometimes cancels a load, starts it again and never
    # commits it: the load command waited for ever ("no answer to load within 30 s").
    with _view_navigating_to(pages, "/hang-once") as (process, events):
        process.request("load", view="v1", url=pages + "/slow", stall_seconds=1, timeout=20)

        history = process.request("history", view="v1")["entries"]
        assert [entry["url"] for entry in history] == [pages + "/hang-once"]
        retries = [e.get("error") for e in events if e.get("event") == "load-retry"]
        assert retries[-1] == "the load stalled", events
        assert retries.count("the load stalled") == 1  # the second request was answered


@pytest.mark.parametrize("page_cache", [True, False])
def test_a_script_whose_document_a_navigation_replaced_fails_at_once(
    pages: str, page_cache: bool
) -> None:
    # WebKitGTK never answers a script still running when a navigation commits (the
    # document is gone, cached or not): the app's injection waited its 30 s.
    from gcbridge_harness.engines.webkit.client import WebKitError, WebKitProcess

    process = WebKitProcess()
    try:
        process.request("open", view="v1", fresh=True, page_cache=page_cache)
        process.request("load", view="v1", url=pages + "/page")
        leaves = "setTimeout(() => { location.href = '/elsewhere'; }, 50);"
        with pytest.raises(WebKitError, match="a navigation replaced the document"):
            process.request(
                "eval", view="v1", body=leaves + " await new Promise(() => {});", timeout=10
            )
        history = process.request("history", view="v1")["entries"]
        assert history[-1]["url"] == pages + "/elsewhere"
        assert process.request("eval", view="v1", body="return 1 + 1")["json"] == "2"
    finally:
        process.close()


def test_a_new_app_starts_with_empty_storage_and_a_relaunch_keeps_it(pages: str) -> None:
    # New apps share the worker's pooled web context (one network process), emptied
    # before each; a relaunch on the same profile finds what the last view stored.
    from gcbridge_harness.engines.webkit.client import WebKitProcess

    process = WebKitProcess()

    def launch(view: str, **profile: Any) -> str:
        opened = process.request("open", view=view, fresh=not profile, **profile)
        process.request("load", view=view, url=pages + "/page")
        return str(opened["profile"])

    def stored(view: str) -> Any:
        return process.request("eval", view=view, body="return localStorage.getItem('k')")["json"]

    try:
        first = launch("v1")
        process.request("eval", view="v1", body="localStorage.setItem('k', 'v'); return 1")
        second = launch("v2")  # while the first app is open: a context of its own
        assert second != first
        assert stored("v2") == "null"
        process.request("close", view="v2")
        process.request("forget", profile=second)

        process.request("close", view="v1")
        assert launch("v3", profile=first) == first  # the relaunch
        assert stored("v3") == '"v"'
        process.request("close", view="v3")
        process.request("forget", profile=first)

        assert launch("v4") == first  # the pooled context again, emptied
        assert stored("v4") == "null"
    finally:
        process.close()


def _wait_for_page(process: Any, view: str, url: str, seconds: float) -> list[str]:
    """Pump until ``url`` is the view's committed page, or ``seconds`` passed; its history."""
    deadline = time.monotonic() + seconds
    while True:
        urls = [entry["url"] for entry in process.request("history", view=view)["entries"]]
        if urls[-1:] == [url] or time.monotonic() > deadline:
            return urls
        process.pump(0.1)


@pytest.mark.parametrize("recovery", ["reload", "new view"])
def test_a_recovery_load_that_stalls_after_a_cancel_is_stopped_and_asked_again(
    pages: str, recovery: str
) -> None:
    # After the web process was killed, the app's recovery (iOS: reload in the same view;
    # Android: the page loaded in a new view) was once cancelled by WebKit itself, which
    # started a load that never committed: the scenario waited for ever. Here the cancel
    # is a navigation to a page whose first request is never answered.
    from gcbridge_harness.engines.webkit.client import WebKitProcess

    process = WebKitProcess()
    try:
        events: list[dict[str, Any]] = []
        process.listeners["v1"] = process.listeners["v2"] = events.append
        opened = process.request("open", view="v1", fresh=True)
        process.request("load", view="v1", url=pages + "/slow")
        process.request("terminate", view="v1")
        del events[:]
        view = "v1"
        if recovery == "reload":
            process.request("reload", view=view, stall_seconds=1)
        else:
            process.request("close", view="v1")
            view = "v2"
            process.request("open", view=view, profile=opened["profile"])
            process.request("navigate", view=view, url=pages + "/slow", stall_seconds=1)
        deadline = time.monotonic() + 10
        while not any(e.get("phase") == "started" for e in events):
            assert time.monotonic() < deadline, f"the recovery load never started: {events}"
            process.pump(0.05, until_event=True)
        process.request("navigate", view=view, url=pages + "/hang-once")  # the cancel

        urls = _wait_for_page(process, view, pages + "/hang-once", 10)
        assert urls[-1:] == [pages + "/hang-once"], f"the recovery never loaded: {urls} {events}"
        retries = [e.get("error") for e in events if e.get("event") == "load-retry"]
        assert "the load stalled" in retries, events
    finally:
        process.close()
