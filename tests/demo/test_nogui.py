"""``gcbridge demo`` where no window can open: one clean line, no traceback."""

from __future__ import annotations

import pytest

from tests.demo.support import run_demo, without_display


def _assert_clean_no_gui_error(result) -> None:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.startswith("gcbridge:")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gcbridge: error [no_gui_backend]: ")
    assert "--headless" in lines[0] and "xvfb" in lines[0].lower()


def test_dead_display_gives_a_clean_no_gui_backend_error(tmp_path):
    env = without_display()
    env["DISPLAY"] = ":4242"  # nothing listens there
    result = run_demo(
        ["--exit-after-flow", "--data-dir", str(tmp_path), "--port", "0"], env=env, timeout=60
    )
    _assert_clean_no_gui_error(result)
    # it failed before starting anything: no server line in the output
    assert "emulator ready" not in result.stdout


@pytest.mark.parametrize("platform", ["nosuchplatform"])
def test_qt_that_cannot_start_gives_the_same_clean_error(tmp_path, platform):
    env = without_display()
    env["DISPLAY"] = ":4242"
    env["QT_QPA_PLATFORM"] = platform  # Qt aborts: no such platform plugin
    result = run_demo(["--data-dir", str(tmp_path), "--port", "0"], env=env, timeout=60)
    _assert_clean_no_gui_error(result)
