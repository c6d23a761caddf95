"""The desktop demo as a user runs it: from the repository root, on its defaults.

No ``--data-dir`` (so ``./.gcbridge/demo``, a relative path) and no ``--port`` (8470),
under Xvfb. Every earlier test used an absolute temp dir and port 0, and missed that a
relative profile path made Qt WebEngine lose localStorage and stall the page.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.demo.support import REPO, DemoProcess, noise, run_demo, with_display

pytestmark = [
    pytest.mark.desktop,
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.defaults,  # port 8470 and ./.gcbridge/demo
]

README_SHOT = REPO / "docs_src" / "img" / "demo.png"
RESTORED = "widget session restored from localStorage: signed in as alice (before any injection)"


def _assert_full_flow(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    out = result.stdout
    assert "(desktop mode), data in ./.gcbridge/demo" in out
    assert "emulator ready on http://127.0.0.1:8470" in out
    assert "comment listed in the widget" in out
    assert "scripted flow: all 7 steps happened" in out
    assert "did not answer" not in out
    assert noise(result.stderr) == [], result.stderr
    return out


def test_the_window_on_defaults_twice_in_a_row(on_defaults, xvfb_display, tmp_path):
    env = with_display(xvfb_display)
    shot = tmp_path / "demo.png"
    first = _assert_full_flow(run_demo(["--exit-after-flow", "--screenshot", str(shot)], env=env))
    assert "widget session restored" not in first
    # the profile is where the user asked, and localStorage really lives in it
    assert (on_defaults / "webview" / "Local Storage").is_dir()
    assert (on_defaults / "emulator" / "demo-site.json").is_file()

    second = _assert_full_flow(run_demo(["--exit-after-flow"], env=env))  # reuses the profile
    assert "widget session restored" not in second  # the first run signed out

    if os.environ.get("GC_UPDATE_SCREENSHOTS") == "1":
        # the README's picture: a first run on defaults, the comment listed, no temp path
        shutil.copyfile(shot, README_SHOT)


def test_stay_signed_in_then_a_relaunch_shows_the_restored_session(on_defaults, xvfb_display):
    env = with_display(xvfb_display)
    first = run_demo(["--exit-after-flow", "--stay-signed-in"], env=env)
    assert "scripted flow: all 6 steps happened" in first.stdout, first.stdout + first.stderr

    # the relaunch as a user starts it: the window stays open; Ctrl-C / SIGTERM ends it
    demo = DemoProcess(["--screenshot", "relaunch.png"], env)
    try:
        saved = demo.wait_for("window saved to").string
        out = "\n".join(demo.seen)
        assert RESTORED in out
        assert "the window shows the widget's session: Signed in as alice (@alice)" in out
        assert "gcSsoLogin" not in out  # restored from the profile, not injected
        assert str(REPO / "relaunch.png") in saved
    finally:
        code, err = demo.signal_group(signal.SIGTERM)
        (REPO / "relaunch.png").unlink(missing_ok=True)
    assert code == 143
    assert err.strip().splitlines() == ["gcbridge demo: stopped (SIGTERM)"], err


def _make_venv(tmp_path: Path) -> Path:
    """The repository's own .venv when it is set up, else a stand-in for it.

    ``make demo`` installs into ``$(VENV)`` only when its stamp is older than
    pyproject.toml; the stand-in (this interpreter behind ``bin/gcbridge``, a fresh
    stamp) keeps the test from reinstalling anyone's environment.
    """
    own = REPO / ".venv"
    stamp = own / ".installed"
    if stamp.exists() and stamp.stat().st_mtime > (REPO / "pyproject.toml").stat().st_mtime:
        return own
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    script = venv / "bin" / "gcbridge"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gcbridge "$@"\n')
    script.chmod(0o755)
    (venv / ".installed").touch()
    return venv


def test_make_demo_runs_the_window_from_the_repo_root(on_defaults, xvfb_display, tmp_path):
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    venv = _make_venv(tmp_path)
    result = subprocess.run(
        [make, "demo", f"VENV={venv}", "DEMO_ARGS=--exit-after-flow"],
        cwd=REPO,
        env={**with_display(xvfb_display), "PYTHONUNBUFFERED": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    _assert_full_flow(result)
