"""The demo's timeline, mode choice and flow verdict (no servers, no browser)."""

from __future__ import annotations

import threading

from gcbridge.demo import NoGuiBackend, choose_mode
from gcbridge.demo.desktop import probe_gui
from gcbridge.demo.flow import StepResult, flow_summary
from gcbridge.demo.timeline import Timeline, format_event


class FakeMonotonic:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_events_are_timestamped_from_start_and_formatted_one_per_line():
    clock = FakeMonotonic()
    timeline = Timeline(monotonic=clock)
    clock.now += 1.5
    event = timeline.record("bridge.message", "bridge message gc-loaded", name="gc-loaded")
    assert event.t == 1.5
    assert event.data == {"name": "gc-loaded"}
    line = format_event(event)
    assert "\n" not in line
    assert line.startswith("+  1.500s") and "bridge message gc-loaded" in line


def test_find_respects_since_and_where():
    timeline = Timeline()
    timeline.record("sso.injected", "first")
    mark = len(timeline)
    timeline.record("sso.injected", "second")
    assert timeline.find("sso.injected", since=mark).text == "second"
    assert timeline.find("sso.injected", where=lambda e: e.text == "first").text == "first"
    assert timeline.find("webhook.verified") is None


def test_wait_for_returns_an_event_recorded_by_another_thread():
    timeline = Timeline()
    threading.Timer(0.05, lambda: timeline.record("webhook.verified", "delivered")).start()
    assert timeline.wait_for("webhook.verified", 5).text == "delivered"


def test_wait_for_gives_up_with_none():
    assert Timeline().wait_for("never", 0.05) is None


def test_subscribers_get_past_and_future_events_in_order():
    timeline = Timeline()
    timeline.record("a", "1")
    seen: list[str] = []
    timeline.subscribe(lambda e: seen.append(e.text))
    timeline.record("b", "2")
    assert seen == ["1", "2"]


def test_mode_is_headless_without_any_display_or_when_asked():
    assert choose_mode(False, {}) == "headless"
    assert choose_mode(True, {"DISPLAY": ":0"}) == "headless"
    assert choose_mode(False, {"DISPLAY": ":0"}) == "desktop"
    assert choose_mode(False, {"WAYLAND_DISPLAY": "wayland-0"}) == "desktop"


def test_probe_without_a_display_raises_no_gui_backend_with_the_hint():
    try:
        probe_gui({})
    except NoGuiBackend as exc:
        assert exc.reason == "no_gui_backend"
        assert "--headless" in str(exc) and "xvfb" in str(exc).lower()
    else:
        raise AssertionError("probe_gui accepted an environment without a display")


def test_flow_summary_names_the_first_missing_step():
    ok = [StepResult("a", True), StepResult("b", True)]
    assert flow_summary(ok, 2) == "scripted flow: all 2 steps happened"
    failed = [StepResult("a", True), StepResult("b", False, "no delivery")]
    assert (
        flow_summary(failed, 3)
        == "scripted flow FAILED after 1/3 steps: b did not happen (no delivery)"
    )
    assert flow_summary(ok, 3).startswith("scripted flow FAILED after 2/3 steps")
