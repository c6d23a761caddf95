"""The harness's app decides through the Python coordinator and only performs its effects.

No browser: a stand-in for NativeApp records what the app would evaluate in the page.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from gcbridge_harness.app.decisions import APP_TRIGGERS, AppDecisions
from gcbridge_harness.app.platforms import (
    EVALUATED_AT_PAGE_FINISHED,
    INJECTION_POINTS,
    InjectionPoint,
)
from gcbridge_harness.coordinator import SsoCoordinator
from gcbridge_harness.report.timeline import Timeline
from gcbridge_harness.world.backend import AppUser

ALICE = AppUser(id="u-alice", username="alice", email="alice@example.com", token="t-alice")  # noqa: S106
BOB = AppUser(id="u-bob", username="bob", email="bob@example.com", token="t-bob")  # noqa: S106
MAIN_FRAME, SUBFRAME = object(), object()
PROTOCOL_DIR = Path(__file__).resolve().parents[3] / "bridge" / "protocol"


class StandInApp(AppDecisions):
    """What NativeApp provides to its decisions, without Playwright."""

    def __init__(self, user: AppUser | None, provider: Any = None, point: str = "document-start"):
        self.user = user
        self.triggers = APP_TRIGGERS
        self.injection_point = point
        self.timeline = Timeline()
        self.page = SimpleNamespace(main_frame=MAIN_FRAME)
        self.sso_provider = provider or (lambda user: f"sso-for-{user.id}")
        self.on_conflict = None
        self.leaks = SimpleNamespace(remember=lambda sso_data: None)
        self.received: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self.violations: list[str] = []
        self.refused: list[str] = []
        self.injected: list[Any] = []
        self.conflicts: list[str | None] = []
        self.app_errors: list[str] = []
        self.evaluated: list[str] = []
        self.options = SimpleNamespace(keep_widget_session=False)

    def _evaluate_call(self, call: str) -> str | None:
        self.evaluated.append(call)
        return None

    def forward(self, text: str, frame: object = MAIN_FRAME) -> None:
        # What NativeApp._native does once the engine told it the frame.
        if frame is not MAIN_FRAME:
            self._on_refused(text, "a subframe")
            return
        self._on_native("react-native", "string", text)


def test_the_app_injects_what_the_coordinator_decides():
    app = StandInApp(ALICE)
    app.forward('{"name":"gc-ready"}')
    assert app.evaluated == ['window.gcSsoLogin("sso-for-u-alice")']
    assert [(i.trigger, i.sso_data) for i in app.injected] == [("gc-ready", "sso-for-u-alice")]
    assert app.messages == [{"name": "gc-ready"}]
    assert isinstance(app._coordinator(), SsoCoordinator)

    app.app_login(BOB)
    app.app_logout()
    assert app.evaluated[1:] == ['window.gcSsoLogin("sso-for-u-bob")', "window.gcSsoLogout()"]


def test_a_failed_fetch_signs_the_widget_out_and_is_reported():
    def down(user: AppUser) -> str:
        raise RuntimeError("backend down")

    app = StandInApp(ALICE, provider=down)
    app.forward('{"name":"gc-loaded","count":0}')
    assert app.evaluated == ["window.gcSsoLogout()"]
    assert app.app_errors == ["fetch-failed: gc-loaded: RuntimeError: backend down"]


def test_foreign_and_malformed_messages_do_nothing():
    app = StandInApp(ALICE)
    app.forward('{"name":"gc-ready"}', frame=SUBFRAME)
    app.forward("not json")
    app.forward('{"no":"name"}')
    assert app.evaluated == []
    assert app.messages == []
    assert app.violations == []
    assert app.refused == ['{"name":"gc-ready"}']
    assert [e.detail for e in app.timeline.entries if e.kind == "native dropped"] == [
        "foreign",
        "malformed",
        "unnamed",
    ]


def test_the_timeline_says_an_injection_is_for_a_user_not_a_frame():
    """A username like "iframe-3f2a" is not read as a frame: the entry names the app user."""
    iframe_user = AppUser(id="u-i", username="iframe-3f2a", email="i@example.com", token="t-i")  # noqa: S106
    app = StandInApp(iframe_user)
    app.forward('{"name":"gc-ready"}')
    (entry,) = app.timeline.find("inject gcSsoLogin")
    assert entry.detail == "after gc-ready, as app user iframe-3f2a"


@pytest.mark.parametrize("point", INJECTION_POINTS)
def test_the_app_listens_to_the_kits_triggers_at_each_injection_point(point: InjectionPoint):
    # As the kits: the protocol table's default triggers everywhere, and page finished also
    # where bridge.js is evaluated then (the Android kit's and React Native's ANDROID_TRIGGERS).
    table = json.loads((PROTOCOL_DIR / "app-protocol.json").read_text(encoding="utf-8"))
    kits = frozenset(table["defaults"]["triggers"])
    android = point in EVALUATED_AT_PAGE_FINISHED
    expected = kits | {"page-finished"} if android else kits
    assert StandInApp(ALICE, point=point)._coordinator().triggers == expected
