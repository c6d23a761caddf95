"""Run a quick start's commands as a newcomer pastes them into bash.

The scripts live in ``docs_src/quickstart/`` and the pages include them, so what
runs here is what the page shows. A run on other ports replaces the default ports
and the ``.gcbridge`` data dir in the text (nothing else), so it can run beside
other runs on this machine; a run on defaults runs the text as it is.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def user_env(**extra: str) -> dict[str, str]:
    """A user's shell in this checkout: this interpreter's ``bin`` first, this worktree's code."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GC_", "PYTEST_"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "harness")])
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_ports_free(*ports: int, timeout: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout
    while not all(port_free(p) for p in ports):
        if time.monotonic() > deadline:
            return False
        time.sleep(1.0)
    return True


def script(name: str) -> str:
    return (ROOT / "docs_src" / "quickstart" / name).read_text(encoding="utf-8")


def moved(text: str, ports: dict[int, int], data_dir: Path | None = None) -> str:
    """``text`` with each default port replaced, and ``.gcbridge`` moved to ``data_dir``."""
    for old, new in ports.items():
        text = re.sub(rf"(?<![\d.]){old}(?!\d)", str(new), text)
    if data_dir is not None:
        text = text.replace(".gcbridge", str(data_dir))
    return text


class Shell:
    """``bash -c TEXT`` in its own process group: background jobs are stopped with it."""

    def __init__(self, text: str, *, cwd: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            ["bash", "-c", text + '\necho "QUICKSTART DONE $?"\n'],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

    def run_until_done(self, timeout: float = 300.0) -> str:
        """Everything printed until the marker line (background jobs keep running)."""
        assert self.proc.stdout is not None
        lines: list[str] = []
        deadline = time.monotonic() + timeout
        for line in self.proc.stdout:
            lines.append(line)
            if line.startswith("QUICKSTART DONE"):
                break
            if time.monotonic() > deadline:
                raise AssertionError("".join(lines[-80:]))
        return "".join(lines)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
