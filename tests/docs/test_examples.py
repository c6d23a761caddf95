"""The docs_src examples as a user meets them: collected by a plain ``pytest``, one clear
line (no KeyError traceback) when their environment variable is unset."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def user_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GC_", "PYTEST_"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "harness")])
    env.update(extra)
    return env


def test_a_plain_pytest_collects_and_passes_the_receiver_tests(tmp_path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "docs_src", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    tests = sum(
        len(re.findall(r"^def test_", p.read_text(encoding="utf-8"), re.M))
        for p in (ROOT / "docs_src").rglob("test_*.py")
    )
    assert f"{tests} passed" in run.stdout, run.stdout[-2000:]
    assert not list(ROOT.glob("docs_src/deliveries.db*")), "the tests write to tmp_path only"


@pytest.mark.parametrize(
    ("command", "variable"),
    [
        (["uvicorn", "--factory", "docs_src.receiver_fastapi:create_app"], "GC_WEBHOOK_SECRET"),
        (["uvicorn", "docs_src.sso_backend:app"], "GC_SSO_SECRET"),
    ],
    ids=["receiver", "sso-backend"],
)
def test_an_unset_variable_is_one_clear_line(command: list[str], variable: str) -> None:
    run = subprocess.run(
        [*command, "--port", "0"],
        cwd=ROOT,
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1
    assert "Traceback" not in run.stderr and "KeyError" not in run.stderr, run.stderr
    assert f"set {variable} to " in run.stderr
    assert run.stderr.strip().count("\n") == 0, run.stderr
