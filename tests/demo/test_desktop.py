"""``gcbridge demo`` in its window: pywebview's real Qt backend under Xvfb."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.demo.support import noise, run_demo, without_display

pytestmark = [pytest.mark.desktop, pytest.mark.slow]


def distinct_colours(path: Path) -> int:
    """Decode the PNG with Qt and count the colours on a sampling grid."""
    from PyQt6.QtGui import QImage

    image = QImage(str(path))
    assert not image.isNull(), "not a PNG Qt can read"
    assert image.width() >= 800 and image.height() >= 500
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)
    }
    return len(colours)


def test_window_runs_the_flow_by_itself_and_saves_a_screenshot(tmp_path, xvfb_display):
    shot = tmp_path / "demo.png"
    env = without_display()
    env["DISPLAY"] = xvfb_display
    result = run_demo(
        [
            "--exit-after-flow",
            "--screenshot",
            str(shot),
            "--data-dir",
            str(tmp_path / "data"),
            "--port",
            "0",
        ],
        env=env,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    out = result.stdout
    assert "(desktop mode)" in out
    for text in (
        "window.pywebview.api.gc_bridge_message ready",
        "bridge.js 1.0.0 installed at page-finished",
        "gcSsoLogin(ssoData) injected",
        "widget signed in as alice",
        "webhook comment.created delivered, signature VERIFIED",
        "widget signed out",
        "scripted flow: all 7 steps happened",
        f"window saved to {shot}",
    ):
        assert text in out, text
    assert distinct_colours(shot) > 20, "the screenshot looks blank"
    assert noise(result.stderr) == [], result.stderr
