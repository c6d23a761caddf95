"""``gcbridge demo --headless``: the whole loop in headless Chromium, as a subprocess."""

from __future__ import annotations

import pytest

from tests.demo.support import run_demo, without_display
from tests.free_ports import free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# causally ordered: each line can only happen after the previous one
TIMELINE = [
    "emulator ready on http://127.0.0.1:",
    "customer backend ready on http://127.0.0.1:",
    "bridge.js 1.0.0 installed at document-start",
    "gcSsoLogin(ssoData) injected",
    "widget signed in as alice",
    "comment typed and posted in the widget",
    "webhook comment.created delivered, signature VERIFIED",
    "gcSsoLogout() injected",
    "widget signed out",
    "scripted flow: all 7 steps happened",
]
# present, in an order that depends on timing
ALSO = [
    "bridge message gc-ready",
    "bridge message gc-loaded",
    "widget page finished loading",
    "ssoData fetched from the backend",
    "comment saved by the service",
]


def test_headless_flow_completes_and_prints_the_timeline(tmp_path):
    result = run_demo(
        ["--exit-after-flow", "--data-dir", str(tmp_path), "--port", "0"], env=without_display()
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    positions = [out.find(text) for text in TIMELINE]
    assert all(p >= 0 for p in positions), [t for t, p in zip(TIMELINE, positions) if p < 0]
    assert positions == sorted(positions), "timeline out of order"
    assert [text for text in ALSO if text not in out] == []
    # every line is one event with its time since start
    event_lines = [line for line in out.splitlines() if line.startswith("+")]
    assert len(event_lines) >= len(TIMELINE)
    assert "Traceback" not in result.stderr


def test_relaunch_keeps_the_widget_session(tmp_path):
    port = free_port()  # same data dir and port: same origin, same profile
    args = ["--headless", "--exit-after-flow", "--data-dir", str(tmp_path), "--port", str(port)]
    first = run_demo([*args, "--stay-signed-in"])
    assert first.returncode == 0, first.stdout + first.stderr
    assert "widget session restored" not in first.stdout

    second = run_demo(args)
    assert second.returncode == 0, second.stdout + second.stderr
    out = second.stdout
    restored = out.find(
        "widget session restored from localStorage: signed in as alice (before any injection)"
    )
    assert restored >= 0, out
    assert restored < out.find("gcSsoLogin(ssoData) injected")
