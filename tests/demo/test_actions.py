"""The desktop window's app bar, driven through its model: no display, no browser.

The panel shows the timeline; its Sign in / Sign out buttons call
:class:`gcbridge.demo.actions.AppActions`. A stand-in for the widget page signs in
through the emulator as the widget does when ``gcSsoLogin`` is injected.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from gcbridge.bridge import script
from gcbridge.demo.actions import AppActions
from gcbridge.demo.app import DemoApp
from gcbridge.demo.stack import DemoStack
from gcbridge.demo.timeline import Timeline

T = TypeVar("T")

_LOGIN = "window.gcSsoLogin("


class WidgetStandIn:
    """Answers the app's scripts as the widget page would (its session in ``token``)."""

    def __init__(self, emulator_url: str, public_key: str) -> None:
        self.emulator_url = emulator_url
        self.public_key = public_key
        self.token: str | None = None

    def evaluate_js(self, script: str) -> Any:
        if script.startswith(_LOGIN):
            sso_data = json.loads(script[len(_LOGIN) : -1])
            answer = httpx.post(
                f"{self.emulator_url}/api/pub/sso/login",
                json={"api_public_key": self.public_key, "ssoData": sso_data},
                timeout=10,
            )
            self.token = answer.json()["token"] if answer.status_code == 200 else None
        elif "gcSsoLogout" in script:
            self.token = None
        elif "gc_token" in script:
            return self.token
        return None


class InlineDriver:
    """The app thread is the caller's; waits poll with a deadline."""

    def call(self, fn: Callable[[], T]) -> T:
        return fn()

    def wait_until(self, check: Callable[[], T | None], timeout: float) -> T | None:
        deadline = time.monotonic() + timeout
        while (found := check()) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        return found


@pytest.fixture
def panel(tmp_path: Path) -> Iterator[tuple[AppActions, Timeline]]:
    timeline = Timeline()
    with DemoStack(tmp_path, timeline, port=0) as stack:
        host = WidgetStandIn(stack.emulator_url, stack.site.sso_public_key)
        bridge = script()
        app = DemoApp(
            host,
            timeline,
            backend_url=stack.backend_url,
            emulator_url=stack.emulator_url,
            login_key=stack.credentials.login_key,
            bridge_source=bridge.text,
            bridge_version=bridge.version,
        )
        try:
            yield AppActions(app, InlineDriver(), timeout=10, spawn=lambda run: run()), timeline
        finally:
            app.close()


def test_the_app_bars_sign_in_and_out_show_in_the_panels_timeline(panel) -> None:
    actions, timeline = panel
    actions.sign_in("alice")
    signed_in = timeline.find("widget.signed_in")
    assert signed_in is not None, [e.kind for e in timeline.events()]
    assert signed_in.text.startswith("widget signed in as alice")
    kinds = [e.kind for e in timeline.events()]
    assert (
        kinds.index("app.signed_in") < kinds.index("sso.injected") < kinds.index("widget.signed_in")
    )
    actions.sign_out()
    assert timeline.find("widget.signed_out") is not None, [e.kind for e in timeline.events()]
