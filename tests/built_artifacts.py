"""What the suite builds from this checkout: built once, the wheel cached by its sources' hash.

The wheel (``pip wheel --no-deps .``) takes seconds of an isolated build, and several
tests install it. Like the Kotlin jar of ``make kits-check``, it is kept in the
gc-bridge cache (``$GC_BRIDGE_CACHE``, else ``~/.cache/gc-bridge``) under the hash of
every file that goes into it: a change to any source builds a new one. A build goes
to a temporary directory first and is renamed into place, so two runs at once never
see half a wheel.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# what hatch puts in the wheel (pyproject.toml: packages, force-include, readme, licence)
WHEEL_INPUTS = (
    "src/gcbridge",
    "harness/gcbridge_harness",
    "bridge/bridge.js",
    "bridge/platforms/react-native/package.json",
    "bridge/platforms/react-native/README.md",
    "bridge/platforms/react-native/protocol/app-protocol.json",
    "bridge/platforms/react-native/src",
    "pyproject.toml",
    "README.md",
    "LICENSE",
)


def cache_root() -> Path:
    """The gc-bridge cache, shared with ``make kits-check``."""
    explicit = os.environ.get("GC_BRIDGE_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gc-bridge"


def sources_digest(root: Path = ROOT, inputs: tuple[str, ...] = WHEEL_INPUTS) -> str:
    """A hash of the files under ``inputs`` (their paths and bytes), caches excluded."""
    digest = hashlib.sha256()
    for name in inputs:
        top = root / name
        files = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in files:
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def wheel(root: Path = ROOT) -> Path:
    """The wheel of ``root``'s sources as they are now: from the cache, or built into it."""
    home = cache_root() / f"wheel-{sources_digest(root)}"
    found = sorted(home.glob("gc_bridge-*-py3-none-any.whl"))
    if found:
        return found[0]
    home.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=home.parent, prefix=".building-"))
    try:
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp), str(root)],
            check=True,
            timeout=300,
        )
        with contextlib.suppress(OSError):  # another run put the same wheel in place first
            tmp.rename(home)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    (built,) = home.glob("gc_bridge-*-py3-none-any.whl")
    return built


def fresh_venv(where: Path) -> Path:
    """A new venv at ``where`` with pip and nothing else, as a user's or a CI runner's is.

    No system site-packages, no link to the development environment.
    """
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=300)
    cfg = (where / "pyvenv.cfg").read_text(encoding="utf-8")
    assert "include-system-site-packages = false" in cfg
    return where


def user_env(venv: Path, **extra: str) -> dict[str, str]:
    """A user's shell with ``venv`` activated: no PYTHONPATH into the checkout, no PYTEST_*."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PYTEST"))
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


def pip_install(venv: Path, *args: str, cwd: Path) -> None:
    """``pip install -q ARGS`` in ``venv`` from ``cwd``, as its user would type it."""
    run = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *args],
        cwd=cwd,
        env=user_env(venv),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
