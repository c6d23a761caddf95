"""Install as the README says, outside the checkout, and meet a missing extra for real.

A wheel is built from this checkout (``pip wheel --no-deps -w dist .``) and
installed into fresh, isolated venvs (no system site-packages; dependencies come
from the package index through pip's cache): one with the base install only,
one with ``"<wheel>[harness]"``, and one editable from the checkout
(``pip install -e .`` then ``-e ".[harness]"``). The README's commands then run
there, from a directory outside the checkout. Slow (downloads on a cold cache).
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.as_user import ROOT, Lines
from tests.built_artifacts import fresh_venv, pip_install, user_env

pytestmark = [
    pytest.mark.slow,
    pytest.mark.wheel,
    pytest.mark.xdist_group("wheel"),
    pytest.mark.timeout(1800),
]


def sh(argv: list[str], *, cwd: Path, env: dict[str, str] | None = None, timeout: float = 900):
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("newcomer-install")


@pytest.fixture(scope="module")
def wheel(gc_wheel: Path) -> Path:
    return gc_wheel  # built once per session (tests/conftest.py), shared with the CI recipes


@pytest.fixture(scope="module")
def base_venv(work: Path, wheel: Path) -> Path:
    venv = fresh_venv(work / "base")
    pip_install(venv, str(wheel), cwd=work)
    return venv


@pytest.fixture(scope="module")
def harness_venv(gc_harness_venv: Path) -> Path:
    return gc_harness_venv  # "<wheel>[harness]" as the README, once per run (tests/conftest.py)


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """A project directory of the user's, far from the checkout."""
    assert ROOT not in tmp_path.parents
    yield tmp_path


def test_the_wheel_carries_the_licence_and_bridge_js(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    assert "gcbridge/bridge.js" in names
    assert "gcbridge/emulator/dashboard/static/favicon.ico" in names


def test_the_base_install_runs_the_sdks_and_names_missing_extras(
    base_venv: Path, wheel: Path, outside: Path
) -> None:
    env = user_env(base_venv, GC_SSO_SECRET="a-secret-of-24-bytes-xyz", GC_WH="whsec_x")
    gc = str(base_venv / "bin" / "gcbridge")
    assert sh([gc, "bridge", "--version"], cwd=outside, env=env).stdout.strip() == "1.0.0"
    token = sh(
        [gc, "sso", "issue", "--secret-env", "GC_SSO_SECRET", "--id", "42"]
        + ["--username", "ada", "--email", "ada@example.com"],
        cwd=outside,
        env=env,
    )
    assert token.returncode == 0, token.stderr
    verify = sh(
        [gc, "sso", "verify", "--secret-env", "GC_SSO_SECRET", token.stdout.strip()],
        cwd=outside,
        env=env,
    )
    assert verify.returncode == 0 and '"username": "ada"' in verify.stdout
    python = str(base_venv / "bin" / "python")
    probe = sh(
        [
            python,
            "-c",
            "import gcbridge.sso, gcbridge.webhooks, sys; "
            "print(sorted(m for m in ('fastapi', 'uvicorn', 'playwright') if m in sys.modules))",
        ],
        cwd=outside,
        env=env,
    )
    assert probe.returncode == 0 and probe.stdout.strip() == "[]", probe.stderr
    for argv, extra in [
        (["emulator"], "emulator"),
        (["webhooks", "listen", "--port", "0", "--secret-env", "GC_WH"], "emulator"),
        (["demo", "--headless"], "demo"),
    ]:
        run = sh([gc, *argv], cwd=outside, env=env)
        assert run.returncode == 2, run.stdout + run.stderr
        assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
        assert f"needs the [{extra}] extra" in run.stderr
        # the exact command: this venv's python, this very wheel, the extra
        assert f"{python} -m pip install '{wheel}[{extra}]'" in run.stderr
    assert not (outside / ".gcbridge").exists()


def test_the_harness_install_runs_the_readme_commands(harness_venv: Path, outside: Path) -> None:
    env = user_env(harness_venv)
    gc = str(harness_venv / "bin" / "gcbridge")
    emulator = Lines(
        [gc, "emulator", "--port", "0", "--data-dir", ".gcbridge"], cwd=outside, env=env
    )
    try:
        url = emulator.wait_for(r"ready on (http://\S+)$", timeout=120).group(1)
        ready = sh([gc, "emulator", "ready", "--url", url, "--timeout", "30"], cwd=outside, env=env)
        assert ready.returncode == 0, ready.stderr
        code, err = emulator.signal_group(signal.SIGINT)
        assert code == 130 and err == "gcbridge emulator: stopped (SIGINT)\n"
    finally:
        emulator.kill()
    # the harness as the README runs it, against the shipped bridge.js (one scenario file
    # here: the whole matrix runs in the suite and in the harness's own tests)
    bridge = sh([gc, "bridge", "--path"], cwd=outside, env=env).stdout.strip()
    run = sh(
        [str(harness_venv / "bin" / "pytest"), "--pyargs", "gcbridge_harness.scenarios"]
        + ["--gc-bridge", bridge, "-q", "-p", "no:cacheprovider", "-k", "login_on_ready"],
        cwd=outside,
        env=env,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and " skipped" not in run.stdout, run.stdout[-2000:]


def test_the_checkout_install_names_the_checkout_then_takes_the_extra(work: Path) -> None:
    venv = fresh_venv(work / "checkout")
    pip_install(venv, "-e", ".", cwd=ROOT)
    env = user_env(venv)
    gc = str(venv / "bin" / "gcbridge")
    run = sh([gc, "emulator", "--port", "0"], cwd=work, env=env)
    assert run.returncode == 2, run.stderr
    assert f"-m pip install -e '{ROOT}[emulator]'" in run.stderr
    pip_install(venv, "-e", ".[harness]", cwd=ROOT)  # the README's line, from the checkout
    helped = sh([gc, "emulator", "--help"], cwd=work, env=env)
    assert helped.returncode == 0 and "ready" in helped.stdout
    shutil.rmtree(venv)
