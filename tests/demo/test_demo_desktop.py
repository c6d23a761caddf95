"""``gcbridge demo`` in its window: pywebview's real Qt backend under Xvfb."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from demo_helpers import run_demo, without_display

pytestmark = [pytest.mark.desktop, pytest.mark.slow]

README_SHOT = Path(__file__).resolve().parents[2] / "docs_src" / "img" / "demo.png"


@pytest.fixture(scope="module")
def xvfb_display() -> Iterator[str]:
    """A private X server; its display number is chosen by Xvfb (-displayfd)."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip(
            "Xvfb is not installed: apt-get install xvfb xauth libxcb-icccm4 libxcb-keysyms1"
        )
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [xvfb, "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        assert number.isdigit(), "Xvfb did not report a display"
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


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

    if os.environ.get("GC_UPDATE_SCREENSHOTS") == "1" or not README_SHOT.exists():
        README_SHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, README_SHOT)
