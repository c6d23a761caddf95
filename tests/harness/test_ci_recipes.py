"""The CI recipes of harness/README.md, their shell commands run from a clean directory.

They run in a fresh virtual environment (no system site-packages, no link to the
development environment) into which ``"<wheel>[harness]"`` was installed once for
the run, exactly as the recipes' own ``pip install`` line does (``gc_harness_venv``,
tests/conftest.py); that line then finds the same wheel there. The wheel's harness
extra thus brings every dependency the recipes' commands need: one it lacks
(pytest-xdist for ``-n auto``) fails here. The browser download step is replaced by
the machine's Chromium (``GC_BROWSER``). ``PYTEST_ADDOPTS`` narrows the matrix to
one scenario to keep the test short; the commands are the README's. So ``gcbridge
harness run`` here is the installed wheel's, outside the checkout, with
``PYTHONPATH`` unset. The tests are marked ``wheel`` and share an xdist group, so a
parallel run installs on one worker.
"""

from __future__ import annotations

import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from gcbridge.bridge import APP_FILE_NAME, script
from gcbridge.browser import find_chromium
from tests.harness.report.test_diagnosis import SSO_IN_URL

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.wheel,
    pytest.mark.xdist_group("wheel"),
    pytest.mark.timeout(1200),
]

REPO = Path(__file__).resolve().parents[2]
README = REPO / "harness" / "README.md"


def _recipes() -> dict[str, list[str]]:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, flags=re.S)
    recipes: dict[str, list[str]] = {}
    for block in blocks:
        data = yaml.safe_load(block)
        if "jobs" in data:
            steps = data["jobs"]["harness"]["steps"]
            recipes["github"] = [
                line for step in steps if "run" in step for line in step["run"].splitlines()
            ]
        elif "bridge-harness" in data:
            recipes["gitlab"] = list(data["bridge-harness"]["script"])
            assert data["bridge-harness"]["artifacts"]["when"] == "always"
            assert data["bridge-harness"]["artifacts"]["paths"] == ["harness-report/"]
        if "jobs" in data:
            upload = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload")]
            assert upload and upload[0]["if"] == "always()"
            assert upload[0]["with"]["path"] == "harness-report/"
    assert set(recipes) == {"github", "gitlab"}, "both recipes are in harness/README.md"
    return recipes


def _environ(bin_dir: Path) -> dict[str, str]:
    # The machine's pip settings (index, certificates) stay: they are how a runner installs.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        GC_BROWSER=find_chromium(),
        PYTEST_ADDOPTS="-k login_on_ready",
    )
    env.pop("VIRTUAL_ENV", None)
    return env


@pytest.mark.parametrize("recipe", ["github", "gitlab"])
def test_ci_recipe_runs_from_a_clean_directory(
    tmp_path: Path, gc_wheel: Path, gc_harness_venv: Path, recipe: str
) -> None:
    wheel = gc_wheel
    commands = _recipes()[recipe]
    wanted = re.search(r"\./ci/(gc_bridge-[^\"\[]+\.whl)\[(\w+)\]", "\n".join(commands))
    assert wanted and wanted.group(1) == wheel.name, "the recipes name the current wheel"
    # ...with the extra the shared venv was installed with, so its pip line is the same
    assert wanted.group(2) == "harness"
    bin_dir = gc_harness_venv / "bin"
    work = tmp_path / "repo"
    (work / "ci").mkdir(parents=True)
    (work / "ci" / wheel.name).write_bytes(wheel.read_bytes())
    (work / "App" / "Resources").mkdir(parents=True)
    (work / "App" / "Resources" / APP_FILE_NAME).write_text(script().text, encoding="utf-8")
    env = _environ(bin_dir)

    outputs = []
    for command in commands:
        if "playwright install" in command:
            continue  # the browser: GC_BROWSER is the machine's Chromium
        done = subprocess.run(
            ["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, (command, done.stdout[-3000:], done.stderr[-3000:])
        outputs.append(done.stdout)

    # The installed copy ran, not this checkout.
    where = subprocess.run(
        ["python", "-c", "import gcbridge, gcbridge_harness; print(gcbridge.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(gc_harness_venv) in where and str(REPO) not in where
    assert "pass  login: login_on_ready  [chromium, document-end]" in outputs[-1]
    matrix = [line.split() for line in outputs[-1].splitlines() if "chromium/" in line]
    assert matrix == [
        [
            "chromium/document-start",
            "chromium/document-end",
            "chromium/page-finished",
            "chromium/page-started",
        ]
    ]
    assert "login: login_on_ready  " in outputs[-1] and "4 passed, 0 failed" in outputs[-1]
    assert (work / "harness-report" / "index.html").is_file()
    cases = list(ET.parse(work / "harness-report" / "junit.xml").getroot().iter("testcase"))
    assert len(cases) == 4
    assert {c.get("classname") for c in cases} == {"gcbridge_harness.scenarios.test_login"}

    if recipe == "github":
        # The installed command tells a broken bridge apart, and a missing file is a usage error.
        # (a bridge caught at once: ssoData put in the page URL, no wait runs out)
        (work / "broken.js").write_text(SSO_IN_URL, encoding="utf-8")
        env["PYTEST_ADDOPTS"] = ""
        broken = subprocess.run(
            [
                "gcbridge",
                "harness",
                "run",
                "--bridge",
                "broken.js",
                "-k",
                "login_on_ready and document-start",
            ],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert broken.returncode == 1, broken.stdout + broken.stderr
        assert "ssoData appeared in the page URL" in broken.stdout
        missing = subprocess.run(
            ["gcbridge", "harness", "run", "--bridge", "nosuch.js"],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert missing.returncode == 2
        assert missing.stderr.strip().splitlines() == [
            "gcbridge harness: error [bridge_not_found]: --bridge nosuch.js: no such file"
        ]
