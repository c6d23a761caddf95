"""Quick start "I run the backend": its commands, pasted at once into bash from the repository
root, issue and check ssoData, deliver a verified webhook to the example receiver and run the
receiver's tests. Once on free ports and a temporary data dir, once on the defaults."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.quickstart_support import ROOT, Shell, moved, script, user_env, wait_ports_free
from tests.free_ports import free_port

pytestmark = pytest.mark.slow
DEFAULT_PORTS = (8000, 8001, 9000)


def check(output: str) -> None:
    assert output.rstrip().endswith("QUICKSTART DONE 0"), output[-4000:]
    assert "gcbridge emulator ready on http://127.0.0.1:" in output
    assert re.search(r"^ok: valid ssoData for id='42' username='ada'", output, re.M), output
    assert re.search(r"delivery dlv_\w+, status succeeded, response 200", output), output
    assert re.search(r"^comment\.created: \S+ said ", output, re.M), output  # the receiver
    assert "2 passed" in output  # docs_src/test_receiver.py
    assert "Traceback" not in output, output


def test_the_backend_quickstart_on_free_ports(tmp_path: Path) -> None:
    text = moved(script("backend.sh"), {p: free_port() for p in DEFAULT_PORTS}, tmp_path / "gc")
    shell = Shell(text, cwd=ROOT, env=user_env())
    try:
        check(shell.run_until_done())
    finally:
        shell.stop()


def test_the_backend_quickstart_on_the_defaults() -> None:
    if not wait_ports_free(*DEFAULT_PORTS):
        pytest.skip("ports 8000/8001/9000 stayed busy (another run on this machine)")
    shell = Shell(script("backend.sh"), cwd=ROOT, env=user_env())
    try:
        check(shell.run_until_done())
    finally:
        shell.stop()
    assert (ROOT / ".gcbridge" / "demo-site.json").is_file()
