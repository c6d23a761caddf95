"""``gcbridge harness run`` as a user runs it: the current directory's conftest.py
is not loaded, skipped runs say why, a run without WebKit says so loudly, Ctrl-C is one
line and exit 130, pytest's "-v" hint (an option the command lacks) is never printed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gcbridge.bridge import script
from gcbridge.cli.harness_progress import clean_message

ROOT = Path(__file__).resolve().parents[2]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "harness")])
    env.update(extra)
    return env


def _harness(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gcbridge", "harness", "run", *args],
        cwd=cwd,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _bridge(where: Path) -> Path:
    path = where / "bridge.js"
    path.write_text(script().text, encoding="utf-8")
    return path


def _login_on_ready_with_plugin(
    cwd: Path, name: str, source: str
) -> subprocess.CompletedProcess[str]:
    """``harness run -k login_on_ready`` in Chromium with the pytest plugin ``name`` loaded."""
    (cwd / f"{name}.py").write_text(source, encoding="utf-8")
    return _harness(
        cwd,
        "--bridge",
        str(_bridge(cwd)),
        "--engine",
        "chromium",
        "-k",
        "login_on_ready",
        PYTEST_ADDOPTS=f"-p {name}",
        PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "harness"), str(cwd)]),
    )


def test_the_current_directory_conftest_is_not_loaded(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        "raise SystemExit('the conftest.py of the current directory was loaded')\n",
        encoding="utf-8",
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --no-such-flag\n", encoding="utf-8")
    done = _harness(tmp_path, "--bridge", str(_bridge(tmp_path)), "-k", "no_scenario_matches")
    assert "was loaded" not in done.stdout + done.stderr
    assert done.returncode == 2, done.stdout + done.stderr
    assert "[no_scenarios]" in done.stderr


def test_pytest_diff_hints_are_dropped() -> None:
    text = "assert ['a'] == ['b']\n  At index 0 diff: 'a' != 'b'\n  Use -v to get more diff"
    assert clean_message(text) == "assert ['a'] == ['b']\n  At index 0 diff: 'a' != 'b'"
    assert "Use -v" not in clean_message("E   Use -v to get more diff")


SKIP_PLUGIN = """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if "document-end" in item.nodeid:
        pytest.skip("no display in this CI job")
"""


@pytest.mark.browser
@pytest.mark.slow
def test_skip_reasons_and_the_webkit_notice_are_printed(tmp_path: Path) -> None:
    done = _login_on_ready_with_plugin(tmp_path, "skip_document_end", SKIP_PLUGIN)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "skip  login: login_on_ready  [chromium, document-end]" in out
    assert "      skipped: no display in this CI job" in out
    assert "3 passed, 0 failed, 1 skipped" in out
    assert "WARNING: WebKit was NOT run (--engine chromium)" in out
    assert "install WebKit: " in out and "--engine all" in out


@pytest.mark.browser
@pytest.mark.slow
def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gcbridge", "harness", "run", "--bridge", str(_bridge(tmp_path))]
        + ["--engine", "chromium", "-k", "login"],
        cwd=tmp_path,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    try:
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        assert lines[1].startswith(("pass", "FAIL")), lines
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole group
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
    assert proc.returncode == 130, (out, err)
    assert err.strip().splitlines() == ["gcbridge harness run: stopped (SIGINT)"], err
    assert "failed" not in out and "Traceback" not in out + err


LEFT_BEHIND_PLUGIN = """
import signal
import subprocess

import pytest

_KEPT = []


async def _api_call():
    pass


def _browser_says(words):
    subprocess.run(["sh", "-c", f"echo '{words}' >&2"], check=False)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # What a Ctrl-C inside Playwright's sync API leaves: a call's coroutine made and its
    # task not yet, found by the collector or let go at the run's end; a browser that
    # shares stderr and writes to it as it dies, while pytest captures and after.
    cycle = [_api_call()]
    cycle.append(cycle)
    _KEPT.append(_api_call())
    _browser_says("browser: received signal 2")
    signal.raise_signal(signal.SIGINT)


def pytest_unconfigure(config):
    _browser_says("browser: exiting")
    _KEPT.clear()
"""


@pytest.mark.browser
def test_ctrl_c_silences_what_the_stop_leaves_behind(tmp_path: Path) -> None:
    """A coroutine that the Ctrl-C left never awaited, and a dying child's last words on
    stderr, are not shown after the stop: only its one line (pytest's capture once put them
    back on stderr at its end, after the command had replaced ``sys.stderr``)."""
    done = _login_on_ready_with_plugin(tmp_path, "left_behind", LEFT_BEHIND_PLUGIN)
    assert done.returncode == 130, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == ["gcbridge harness run: stopped (SIGINT)"]


def test_the_webkit_notice_says_why_webkit_did_not_run() -> None:
    from gcbridge_harness.engines import WEBKIT_INSTALL, engine_status

    from gcbridge.cli.harness_progress import webkit_notice

    chosen = webkit_notice("chromium")
    assert chosen[0].startswith("WARNING: WebKit was NOT run (--engine chromium)")
    assert WEBKIT_INSTALL in chosen[1]
    default = webkit_notice(None, "page-finished")
    if engine_status("webkit").found:
        assert "-k 'page-finished' selected no WebKit run" in default[0]
    else:
        assert "it is not installed here (missing " in default[0]
