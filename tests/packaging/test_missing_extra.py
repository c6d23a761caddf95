"""A command of a missing extra is one line naming it and the pip command, exit 2.

The extra's modules are hidden by a meta-path blocker in a subprocess, as if only
the SDKs were installed (the wheel test does the same in a real base-only venv).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.as_user import BLOCKER, ROOT, user_env

RUNNER = BLOCKER + "\nfrom gcbridge.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def run_without(hidden: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", RUNNER, hidden, *argv],
        cwd=ROOT,
        env=user_env(GC_TEST_WH="whsec_newcomer"),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("hidden", "argv", "extra"),
    [
        ("uvicorn", ["emulator"], "emulator"),
        ("fastapi,uvicorn,httpx", ["emulator", "--port", "0"], "emulator"),
        (
            "uvicorn",
            ["webhooks", "listen", "--port", "0", "--secret-env", "GC_TEST_WH"],
            "emulator",
        ),
        (
            "fastapi",
            ["webhooks", "listen", "--port", "0", "--secret-env", "GC_TEST_WH"],
            "emulator",
        ),
        ("playwright", ["demo", "--headless"], "demo"),
        ("uvicorn,playwright", ["demo"], "demo"),
    ],
)
def test_command_of_a_missing_extra_names_it_and_the_pip_command(
    hidden: str, argv: list[str], extra: str
) -> None:
    run = run_without(hidden, *argv)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1, run.stderr  # one line, no traceback
    line = run.stderr.strip()
    assert line.startswith("gcbridge: error [missing_extra]: gcbridge ")
    assert f"[{extra}] extra" in line
    for module in hidden.split(","):
        if module in ("fastapi", "uvicorn", "httpx", "playwright"):
            assert module in line
    # the exact command: this interpreter's pip, and this checkout (an editable install)
    # or the distribution name, with the extra
    assert f"{sys.executable} -m pip install" in line
    assert f"[{extra}]'" in line
    assert "Traceback" not in run.stderr


def test_the_sdk_commands_run_without_any_extra() -> None:
    hidden = "fastapi,uvicorn,httpx,playwright,webview,starlette"
    env_run = subprocess.run(
        [sys.executable, "-c", RUNNER, hidden, "bridge", "--version"],
        cwd=ROOT,
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert env_run.returncode == 0, env_run.stderr
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            RUNNER,
            hidden,
            *("sso", "issue", "--secret-env", "GC_SSO", "--id", "1", "--username", "ada"),
            *("--email", "ada@example.com"),
        ],
        cwd=ROOT,
        env=user_env(GC_SSO="a-secret-of-24-bytes-xyz"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert len(run.stdout.split(" ")) == 3


def test_install_command_names_the_editable_checkout_or_the_wheel(tmp_path, monkeypatch) -> None:
    from gcbridge.cli import extras

    monkeypatch.setattr(extras, "_source", lambda: ("/src/gc-bridge", True))
    assert extras.install_command("demo").endswith("-m pip install -e '/src/gc-bridge[demo]'")
    wheel = "/tmp/dist/gc_bridge-0.1.0-py3-none-any.whl"
    monkeypatch.setattr(extras, "_source", lambda: (wheel, False))
    assert extras.install_command("emulator").endswith(f"-m pip install '{wheel}[emulator]'")
