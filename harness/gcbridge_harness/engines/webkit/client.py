"""The harness's side of the WebKit driver process: :class:`WebKitProcess`.

One process (and one Xvfb) per pytest session. Commands are JSON lines; the
replies and events come back on a reader thread and are handed to the test's own
thread whenever it waits (:meth:`WebKitProcess.request`, :meth:`pump`), the way
Playwright's sync API dispatches events, so a view's message callback may send
commands of its own.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from gcbridge.errors import GcBridgeError

__all__ = ["WebKitProcess", "WebKitUnavailable", "WebKitError", "driver_environment"]


class WebKitUnavailable(GcBridgeError):
    """WebKitGTK, PyGObject or Xvfb is missing, or the driver did not start."""

    reason = "webkit_unavailable"


class WebKitError(GcBridgeError):
    """A command of the driver failed (a script threw, a load failed, the view is gone)."""

    reason = "webkit_command_failed"


class WebKitProcess:
    """A running driver process under its own Xvfb."""

    def __init__(self, *, startup_timeout: float = 60.0) -> None:
        self._ids = itertools.count(1)
        self._incoming: queue.Queue[dict[str, Any]] = queue.Queue()
        self._replies: dict[int, dict[str, Any]] = {}
        self.listeners: dict[str, Callable[[dict[str, Any]], None]] = {}
        self.version: list[int] = []
        self._xvfb, display = _start_xvfb()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "gcbridge_harness.engines.webkit.driver_main"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=driver_environment(os.environ, display),
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            ready = self._incoming.get(timeout=startup_timeout)
        except queue.Empty:
            self.close()
            raise WebKitUnavailable("the WebKit driver did not start") from None
        if ready.get("event") != "ready":
            self.close()
            raise WebKitUnavailable(f"the WebKit driver failed to start: {ready}")
        self.version = ready.get("version", [])

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            with contextlib.suppress(ValueError):
                self._incoming.put(json.loads(line))
        self._incoming.put({"event": "exit"})

    def _dispatch(self, item: dict[str, Any]) -> None:
        if "id" in item:
            self._replies[item["id"]] = item
        elif item.get("event") == "exit":
            self._incoming.put(item)  # keep it for every later waiter
            raise WebKitError("the WebKit driver process exited")
        else:
            listener = self.listeners.get(item.get("view", ""))
            if listener is not None:
                listener(item)

    def pump(self, timeout: float = 0.02, *, until_event: bool = False) -> None:
        """Handle what arrives (events go to their view's listener) for ``timeout`` seconds.

        ``until_event``: return as soon as something was handled and nothing more is
        queued (a wait re-checks its condition then, not at the end of the period).
        """
        deadline = time.monotonic() + timeout
        while True:
            try:
                item = self._incoming.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return
            self._dispatch(item)
            if self._incoming.empty() and (until_event or time.monotonic() >= deadline):
                return

    def request(self, cmd: str, *, timeout: float = 30.0, **fields: Any) -> dict[str, Any]:
        """Send a command and wait for its reply (handling events meanwhile)."""
        cid = next(self._ids)
        line = json.dumps({"id": cid, "cmd": cmd, **fields})
        if self._proc.stdin is None or self._proc.poll() is not None:
            raise WebKitError("the WebKit driver process is not running")
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while cid not in self._replies:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WebKitError(f"no answer to {cmd} within {timeout:.0f} s")
            try:
                item = self._incoming.get(timeout=remaining)
            except queue.Empty:
                continue
            self._dispatch(item)
        reply = self._replies.pop(cid)
        if not reply.get("ok"):
            raise WebKitError(f"{cmd}: {reply.get('error')}")
        return reply

    def close(self) -> None:
        """Quit the driver and its Xvfb."""
        if self._proc.poll() is None:
            with contextlib.suppress(Exception):
                self.request("quit", timeout=5)
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._reader.join(timeout=5)
        for pipe in (self._proc.stdin, self._proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        if self._xvfb.poll() is None:
            self._xvfb.terminate()
            try:
                self._xvfb.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._xvfb.kill()
                self._xvfb.wait()


def driver_environment(base: Mapping[str, str], display: str) -> dict[str, str]:
    """The driver's environment: ``base`` on the Xvfb ``display``, X11, no accessibility bus.

    WebKitGTK's DMA-BUF renderer (the default since 2.42) has no GPU under Xvfb and
    draws every frame through Mesa's software GL; its shared-memory path, which
    ``WEBKIT_DISABLE_DMABUF_RENDERER=1`` selects, draws the same pages for about a
    third less CPU (the WebKit matrix: 41 CPU-seconds against 60). Scenarios see no
    difference: it only changes how frames reach the window. A value the caller
    set, ``0`` included, is kept.
    """
    env = {**base, "DISPLAY": display, "GDK_BACKEND": "x11", "NO_AT_BRIDGE": "1"}
    env.pop("WAYLAND_DISPLAY", None)
    env.setdefault("WEBKIT_DISABLE_DMABUF_RENDERER", "1")
    return env


def _start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    if shutil.which("Xvfb") is None:
        raise WebKitUnavailable("Xvfb is not installed")
    read_fd, write_fd = os.pipe()
    command = [
        "Xvfb",
        "-displayfd",
        str(write_fd),
        "-screen",
        "0",
        "1280x800x24",
        "-nolisten",
        "tcp",
    ]
    proc = subprocess.Popen(  # noqa: S603 - fixed arguments; Xvfb was found on PATH above
        command,
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as reader:
        number = reader.readline().strip()
    if not number.isdigit():
        proc.kill()
        proc.wait()
        raise WebKitUnavailable("Xvfb did not report a display")
    return proc, f":{number}"
