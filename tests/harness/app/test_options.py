"""A launch's options are one frozen dataclass; a relaunch keeps every one of them.

Before, ``relaunch`` copied 17 of 26 options by hand and any other (DOM storage off, a late
transport, a second injection) silently went back to its default on the relaunched app.
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest
from gcbridge_harness.app.native_app import NativeApp
from gcbridge_harness.app.options import AppOptions

SERVICE = SimpleNamespace(base_url="http://127.0.0.1:9", api_public_key="pk")
BACKEND = SimpleNamespace(fetch_sso_data=lambda user: "sso")
# A value other than the default for every option a test may set.
CHANGED: dict[str, Any] = {
    "user": SimpleNamespace(id="u1", username="ada"),
    "api_public_key": "another-key",
    "triggers": frozenset({"gc-ready"}),
    "sso_provider": lambda user: "sso",
    "on_conflict": lambda name: None,
    "injections": 2,
    "inject_early": True,
    "dom_storage": False,
    "storage_state": "old profile",
    "bypass_csp": True,
    "comments_after_page_finished": True,
    "late_transport": True,
    "frames_from": "http://127.0.0.1:10",
    "request_log": object(),
    "uid": "thread-1",
    "page_title": "A title",
    "registry": [],
    "clock": object(),
    "bfcache": True,
    "page_finished_twice": True,
    "share_view_with": object(),
    "keep_widget_session": True,
    "on_commit": lambda app: None,
    "race_lost": True,
    "web_chrome": False,
    "error_view": False,
    "crash_guard": False,
}


class _Recorded(NativeApp):
    """No engine: the relaunch's parts that would touch one are recorded instead."""

    def _kept_storage(self) -> Any:
        return "kept profile"

    def finish(self) -> None:
        self._finished = True

    def launch(self) -> NativeApp:
        return self


def _options(**changes: Any) -> AppOptions:
    return AppOptions(
        service=SERVICE,  # type: ignore[arg-type]
        backend=BACKEND,  # type: ignore[arg-type]
        bridge="bridge.js text",
        injection_point="document-end",
        **changes,
    )


def test_every_option_is_tested_here():
    own = {f.name for f in dataclasses.fields(AppOptions)}
    assert own - {"service", "backend", "bridge", "injection_point"} == set(CHANGED)


def test_relaunch_keeps_every_option_but_the_profile_and_those_it_is_told():
    options = _options(**CHANGED)
    app = _Recorded(None, options)
    app.user = SimpleNamespace(id="u2", username="grace")  # the app's user now

    again = app.relaunch(page_title="Another title")

    assert again.options == dataclasses.replace(
        options, user=app.user, storage_state="kept profile", page_title="Another title"
    )
    for option in dataclasses.fields(AppOptions):
        if option.name not in ("user", "storage_state", "page_title"):
            assert getattr(again.options, option.name) is getattr(options, option.name)


def test_options_are_frozen_and_checked():
    options = _options()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.dom_storage = False  # type: ignore[misc]
    with pytest.raises(TypeError):
        _options(no_such_option=True)
    assert options.triggers == frozenset(options.triggers)
