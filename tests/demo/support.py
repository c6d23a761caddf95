"""Shared helpers of the demo tests: run ``gcbridge demo`` in a subprocess, as a user would."""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gcbridge.demo.paths import DEFAULT_PORT
from tests.as_user import Lines

REPO = Path(__file__).resolve().parents[2]

# what Qt WebEngine printed on every run before the demo's page was fixed, and what a clean
# stop must never print
NOISE = (
    "evalerror",
    "content security policy",
    "refused to",
    "vulkan",
    "release of profile",
    "traceback",
    "future exception was never retrieved",
)


def noise(stderr: str) -> list[str]:
    """The lines of ``stderr`` a user could not interpret."""
    return [line for line in stderr.splitlines() if any(n in line.lower() for n in NOISE)]


def run_demo(
    args: list[str], *, env: dict[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """``python -m gcbridge demo ARGS`` from the repository root; output captured."""
    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    return subprocess.run(
        [sys.executable, "-m", "gcbridge", "demo", *args],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
    )


def without_display() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


def with_display(display: str) -> dict[str, str]:
    env = without_display()
    env["DISPLAY"] = display
    return env


class DemoProcess(Lines):
    """``gcbridge demo ARGS`` in its own process group, as a terminal runs it; lines read live."""

    wait = 120.0  # a browser or a window starts first

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        argv = [sys.executable, "-m", "gcbridge", "demo", *args]
        super().__init__(argv, cwd=REPO, env={**env, "PYTHONUNBUFFERED": "1"})


def _port_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


@contextmanager
def hold_default_port(wait: float = 240) -> Iterator[None]:
    """Run the block alone on the demo's default port (a file lock across processes).

    Another engineer's ``make demo`` or test run may hold the port: wait for it.
    """
    lock = Path(tempfile.gettempdir()) / f"gcbridge-demo-port-{DEFAULT_PORT}.lock"
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            deadline = time.monotonic() + wait
            while not _port_free(DEFAULT_PORT):
                if time.monotonic() > deadline:
                    pytest.fail(f"port {DEFAULT_PORT} stayed in use by another process")
                time.sleep(1)
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
