"""docs_src/receiver_retries_tests.py and docs_src/node_receiver/ (the how-to page
test-receiver-retries.md) pass as a customer runs them: the first with nothing but the
gc_emulator plugin, the second (receiver.mjs and receiver.test.mjs) under ``gcbridge emulator
exec`` with node's test runner. The page includes the files themselves (tests/docs/
test_readme_sync.py)."""

import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
DOCS_SRC = ROOT / "docs_src"
pytest_plugins = ["pytester"]


def test_the_python_receiver_suite_passes_with_the_fixture(pytester):
    pytester.makepyfile(
        test_receiver_retries=(DOCS_SRC / "receiver_retries_tests.py").read_text("utf-8")
    )
    installed = {ep.name for ep in entry_points(group="pytest11")}
    plugin = [] if "gcbridge_emulator" in installed else ["-p", "gcbridge.emulator.pytest_plugin"]
    result = pytester.runpytest_subprocess(*plugin, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def _node_major(node):
    out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
    try:
        return int(out.strip().lstrip("v").split(".")[0])
    except ValueError:
        return 0


def test_the_node_receiver_suite_passes_under_exec(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip(
            "node is not installed: the Node recipe (docs_src/node_receiver) needs Node 18+"
        )
    if _node_major(node) < 18:
        pytest.skip("node is older than 18: the Node recipe needs node:test and fetch")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "harness")])
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "gcbridge",
            "emulator",
            "exec",
            "--clock",
            "manual",
            "--ephemeral",
            "--allow-private-receivers",
            "--",
            node,
            "--test",
            str(DOCS_SRC / "node_receiver"),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# pass 2" in result.stdout and "# fail 0" in result.stdout
