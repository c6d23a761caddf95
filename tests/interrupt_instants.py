"""Ctrl-C sent to a ``gcbridge`` command at many instants of its life, and what it did.

Each instant is a delay after the command's first line of Python ran: the console
script holds SIGINT back from there (``gcbridge.console``), which ``/proc/PID/status``
shows as a blocked signal. Before that instant the interpreter itself is starting,
which no Python program can guard. The delays are spread over the start (measured
by a first run, to the command's ready line) and a span after it: its polls and
waits. Several commands run at once, so that fifty instants cost seconds, not minutes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.as_user import pump

_SIGINT_BIT = 1 << (signal.SIGINT - 1)
DEADLINE = 120.0
"""Seconds a command may take to start, and then to stop once interrupted."""


def holds_sigint(pid: int) -> bool:
    """Whether process ``pid`` holds SIGINT back (False once it has gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("SigBlk:"):
            return bool(int(line.split()[1], 16) & _SIGINT_BIT)
    return False


@dataclass
class Run:
    """One command, interrupted once (or not at all): its output and exit status."""

    delay: float | None
    started: float = 0.0
    ready_after: float | None = None
    returncode: int | None = None
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """For a failed assertion: the instant and everything the command printed."""
        out = "\n".join(self.stdout)
        err = "\n".join(self.stderr)
        return f"Ctrl-C {self.delay}s in, exit {self.returncode}\nstdout:\n{out}\nstderr:\n{err}"


def run_once(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    delay: float | None,
    is_ready: Callable[[Run], bool],
    cwd: str | os.PathLike[str] | None = None,
    group: bool = False,
) -> Run:
    """Start ``argv``; Ctrl-C ``delay`` s after its first line ran (None: once ready).

    ``group``: to the command's whole process group, its browsers included, as a
    terminal's Ctrl-C goes.
    """
    run = Run(delay)
    proc = subprocess.Popen(
        list(argv),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        # a command that never stops is made to dump its threads' stacks (below)
        env={**env, "PYTHONFAULTHANDLER": "1"},
        cwd=cwd,
        start_new_session=group,
    )
    output = threading.Event()

    def into(lines: list[str]) -> Callable[[str], None]:
        def add(line: str) -> None:
            lines.append(line.rstrip("\n"))
            output.set()

        return add

    readers = [pump(proc.stdout, into(run.stdout)), pump(proc.stderr, into(run.stderr))]
    try:
        deadline = time.monotonic() + DEADLINE
        # the anchor: the console script's first line (or, missed, its first output)
        while not holds_sigint(proc.pid) and not output.is_set() and proc.poll() is None:
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.0005)
        run.started = time.monotonic()
        if delay is None:
            while not is_ready(run):
                assert proc.poll() is None, run.describe()
                assert time.monotonic() < deadline, "the command never became ready"
                output.wait(0.05)
                output.clear()
            run.ready_after = time.monotonic() - run.started
        else:
            wait = run.started + delay - time.monotonic()
            if wait > 0:
                time.sleep(wait)  # the instant itself: what is tested is where it lands
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        try:
            run.returncode = proc.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            # faulthandler answers SIGABRT with every thread's Python stack on stderr
            proc.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=30)
            for reader in readers:
                reader.join(timeout=10)
            raise AssertionError(f"not stopped {DEADLINE:g} s after\n{run.describe()}") from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if group:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # a browser left behind
        for reader in readers:
            reader.join(timeout=DEADLINE)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    return run


def spread(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    is_ready: Callable[[Run], bool],
    count: int = 50,
    after: float = 1.0,
    parallel: int = 4,
    cwd: str | os.PathLike[str] | None = None,
    group: bool = False,
) -> list[Run]:
    """``count`` runs, interrupted at instants spread over the start and ``after`` s more.

    A first run, interrupted once ready, measures how long the start takes here and
    now; it is one of the ``count``.
    """
    first = run_once(argv, env=env, delay=None, is_ready=is_ready, cwd=cwd, group=group)
    span = (first.ready_after or 0.0) + after
    delays = [span * i / (count - 1) for i in range(count - 1)]
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        runs = list(
            pool.map(
                lambda d: run_once(argv, env=env, delay=d, is_ready=is_ready, cwd=cwd, group=group),
                delays,
            )
        )
    return [first, *runs]
