"""Quick start "I build the app": in an app's own repository, bridge.js copied with its pin and
the harness run on that copy, with its report. One scenario (the whole matrix runs in the
harness's own tests), in Chromium."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from gcbridge.bridge import script as bridge_script
from tests.docs.quickstart_support import Shell, script, user_env

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_app_quickstart_in_an_apps_repository(tmp_path: Path) -> None:
    app_repo = tmp_path / "my-app"
    app_repo.mkdir()
    env = user_env(PYTEST_ADDOPTS="-k 'login_on_ready and chromium'")
    shell = Shell(script("app.sh"), cwd=app_repo, env=env)
    try:
        output = shell.run_until_done(timeout=600)
    finally:
        shell.stop()
    assert output.rstrip().endswith("QUICKSTART DONE 0"), output[-4000:]
    shipped = bridge_script()
    copied = (app_repo / "App" / "Resources" / "gc-bridge.js").read_bytes()
    assert copied.decode("utf-8") == shipped.text
    lines = output.splitlines()
    assert lines[0] == shipped.version
    assert lines[1] == hashlib.sha256(copied).hexdigest()
    assert "pass  login: login_on_ready  [chromium, document-start]" in output
    assert (app_repo / "harness-report" / "index.html").is_file()
