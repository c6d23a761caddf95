"""Helpers of the newcomer tests: run ``gcbridge`` as a user does, from the repository root.

``gcbridge`` is the console script of this checkout: the subprocess gets this
interpreter's ``bin`` first on PATH (``gcbridge``, ``python``) and this
worktree's ``src`` and ``harness`` on PYTHONPATH, so a shell line of the README
runs exactly as written.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from threading import Thread
from typing import IO

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

# A meta-path finder that hides some top-level modules, as if their extra were not installed.
BLOCKER = """
import importlib.abc, sys
HIDDEN = set(sys.argv.pop(1).split(","))
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Hide())
for name in list(sys.modules):
    if name.split(".")[0] in HIDDEN:
        del sys.modules[name]
"""


def user_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell in this checkout."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "harness")])
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("PYTEST_CURRENT_TEST", None)
    env.update(extra)
    return env


def gcbridge_cmd(*args: str) -> list[str]:
    """``python -m gcbridge ARGS`` with this interpreter (the console script's exact code)."""
    return [sys.executable, "-m", "gcbridge", *args]


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether ``port`` can be bound now."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def wait_ports_free(*ports: int, timeout: float = 60.0) -> bool:
    """Wait (other engineers' runs share the machine) until every port is free."""
    deadline = time.monotonic() + timeout
    while True:
        if all(port_free(p) for p in ports):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(1.0)


def pump(
    stream: IO[str] | None,
    line: Callable[[str], object],
    end: Callable[[None], object] | None = None,
) -> Thread:
    """A started daemon thread giving each line of ``stream`` to ``line``, then ``end(None)``."""

    def read() -> None:
        for text in stream or ():
            line(text)
        if end is not None:
            end(None)

    thread = Thread(target=read, daemon=True)
    thread.start()
    return thread


class Lines:
    """A subprocess in its own process group (as a terminal runs it); stdout read line by line."""

    wait = 60.0
    """How long :meth:`wait_for` waits for a line by default, in seconds."""

    def __init__(self, argv: list[str], *, cwd: Path = ROOT, env: dict[str, str] | None = None):
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env or user_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own group: a signal to it reaches all of it
        )
        self.seen: list[str] = []
        """The stdout lines :meth:`wait_for` read, without their newlines."""
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []
        self._pumps = [
            pump(self.proc.stdout, lambda t: self._queue.put(t.rstrip("\n")), self._queue.put),
            pump(self.proc.stderr, self._stderr.append),
        ]

    def stderr(self) -> str:
        """Everything on stderr once the process has ended (its pipes are read to the end)."""
        for thread in self._pumps:
            thread.join(timeout=10)
        return "".join(self._stderr)

    def wait_for(self, pattern: str, timeout: float | None = None) -> re.Match[str]:
        """The first stdout line matching ``pattern``; fails if the process ends first."""
        regex = re.compile(pattern)
        timeout = self.wait if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._queue.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r} in {timeout}s: {self.seen}")
            if line is None:
                self.proc.wait(timeout=30)
                raise AssertionError(f"exited before {pattern!r}: {self.seen}\n{self.stderr()}")
            self.seen.append(line)
            match = regex.search(line)
            if match:
                return match

    def signal_group(self, sig: int, timeout: float = 60.0) -> tuple[int, str]:
        """Send ``sig`` to the process group (as a terminal does); exit status and stderr."""
        os.killpg(self.proc.pid, sig)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"still running {timeout} s after {sig!r}") from None
        err = self.stderr()
        self._close()
        return self.proc.returncode, err

    def _close(self) -> None:
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()

    def kill(self) -> None:
        """Make sure nothing is left running, and no pipe is left open."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.stderr()
        self._close()


SNIPPET = re.compile(r'^--8<-- "([^":]+)(?::([\w-]+))?"$', re.M)


def _snippet(match: re.Match[str]) -> str:
    text = (ROOT / match.group(1)).read_text(encoding="utf-8")
    if match.group(2):  # a section: the lines between its start and end markers
        start, end = f"--8<-- [start:{match.group(2)}]", f"--8<-- [end:{match.group(2)}]"
        text = text.split(start, 1)[1].split("\n", 1)[1].split(end, 1)[0]
        text = text.rsplit("\n", 1)[0] + "\n" if not text.endswith("\n") else text
    return text.rstrip("\n")


def readme() -> str:
    """The documentation a user reads: the README, CONTRIBUTING and every page of ``docs/``,
    with the files the pages include (``--8<-- "docs_src/..."``) in place."""
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
    text = "\n\n".join(page.read_text(encoding="utf-8") for page in pages)
    return SNIPPET.sub(_snippet, text)


def readme_block(first_line_start: str, contains: str = "", lang: str = "sh") -> str:
    """The documentation's ``lang`` block starting with ``first_line_start`` (and holding
    ``contains``)."""
    for match in re.finditer(rf"```{lang}\n(.*?)```", readme(), re.S):
        if match.group(1).startswith(first_line_start) and contains in match.group(1):
            return match.group(1)
    raise AssertionError(f"no ```{lang} block starting with {first_line_start!r} in the docs")
