"""Quick start "I run CI": the emulator recipes (docs_src/ci/*.yml, shown on the page) run
their commands in a backend's repository with a Node test suite, the way the CI job does.

The provisioning lines (``pip install`` of the wheel, ``apt-get install nodejs``) are left
out: the wheel's install is tested in tests/packaging/test_install.py, and this machine has
Node. The emulator is the checkout's ``gcbridge``, on a free port.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.docs.quickstart_support import ROOT, moved, user_env
from tests.free_ports import free_port

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]
PROVISIONING = ("pip install", "apt-get")


def recipe(name: str) -> tuple[list[tuple[str, dict[str, str]]], dict[str, str]]:
    """The recipe's commands in order, each with its step's env, and the job's variables."""
    data = yaml.safe_load((ROOT / "docs_src" / "ci" / name).read_text(encoding="utf-8"))
    if "jobs" in data:
        steps = data["jobs"]["backend"]["steps"]
        commands = [
            (line, {k: str(v) for k, v in step.get("env", {}).items()})
            for step in steps
            if "run" in step
            for line in step["run"].splitlines()
        ]
        return commands, {}
    job = data["backend-tests"]
    assert job["artifacts"]["when"] == "always"
    return [(line, {}) for line in job["script"]], {k: str(v) for k, v in job["variables"].items()}


@pytest.mark.parametrize("name", ["github-emulator.yml", "gitlab-emulator.yml"])
def test_the_emulator_recipe_runs_a_node_backends_tests(tmp_path: Path, name: str) -> None:
    commands, variables = recipe(name)
    assert any("gcbridge emulator --port 8000" in c for c, _ in commands)
    port = free_port()
    repo = tmp_path / "backend-repo"
    (repo / "backend").mkdir(parents=True)
    for file in ("emulator.test.mjs", "wire.mjs"):
        shutil.copy(ROOT / "docs_src" / "node" / file, repo / "backend" / file)
    groups: list[int] = []
    outputs: list[str] = []
    try:
        for command, step_env in commands:
            if any(p in command for p in PROVISIONING):
                continue
            settings = {**variables, **step_env}
            env = user_env(**{k: moved(v, {8000: port}) for k, v in settings.items()})
            proc = subprocess.Popen(
                ["bash", "-c", moved(command, {8000: port})],
                cwd=repo,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )
            groups.append(proc.pid)
            out, _ = proc.communicate(timeout=300)
            assert proc.returncode == 0, (command, out[-4000:])
            outputs.append(out)
    finally:
        for group in groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGTERM)
    tests = outputs[-1]
    assert re.search(r"^# pass 2$", tests, re.M) and re.search(r"^# fail 0$", tests, re.M), tests
    assert (repo / ".gcbridge" / "demo-site.json").is_file()
    assert "ready on http://127.0.0.1:" in (repo / "emulator.log").read_text(encoding="utf-8")
