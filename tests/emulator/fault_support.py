"""Helpers of the reliability suites: a fault-injecting webhook receiver and an emulator process.

``FaultReceiver`` is a raw asyncio HTTP server on loopback (in a thread) so that
it can misbehave in ways a framework would not let it: hang past the sender's
timeout, or reset the connection. ``behaviour(body, headers)`` picks what to do
for each request; every request is recorded with the choice made.

``EmulatorProcess`` runs ``gcbridge emulator`` as a child process on a fixed
port and data dir, so a test can SIGKILL it and start it again.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from gcbridge.emulator.testing import EXAMPLE_SITE
from gcbridge.webhooks import WebhookVerificationError, verify_signature

WEBSITE_ID = EXAMPLE_SITE.website_id
ACCOUNT = {"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"}

__all__ = ["Action", "Hit", "FaultReceiver", "EmulatorProcess", "SITES_TOML", "wait_until"]

SITES_TOML = """
[[site]]
shortname = "demo"
website_id = "5f1c0ffee0ddba11c0ffee00"
sso_public_key = "pk_demo"
sso_secret = "sso-secret"
allow_weak_secret = true  # the short example credentials of the docs
account_token = "acct-token"
site_key_id = "sk_demo"
site_key_secret = "site-key-secret"
"""


@dataclass(frozen=True)
class Action:
    """What the receiver does with one request: ``status`` (+ headers), ``hang`` or ``reset``."""

    kind: str  # "status" | "hang" | "reset"
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0  # seconds before answering (a slow receiver)


@dataclass
class Hit:
    """One request the receiver got."""

    delivery_id: str
    retry_count: int
    body: bytes
    signature_ok: bool
    action: Action
    at: float


ALWAYS_OK: Callable[[bytes, dict[str, str]], Action] = lambda body, headers: Action("status", 200)  # noqa: E731


@dataclass
class FaultReceiver:
    """A loopback receiver that answers per ``behaviour``; ``secret`` checks each signature."""

    behaviour: Callable[[bytes, dict[str, str]], Action] = ALWAYS_OK
    secret: str | None = None
    hang_seconds: float = 1.0
    hits: list[Hit] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    port: int = 0

    @property
    def url(self) -> str:
        """The webhook URL to configure."""
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> FaultReceiver:
        """Serve in a background thread; returns once listening."""
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            server = loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            try:
                loop.run_forever()
            finally:
                server.close()
                # Hanging handlers are still waiting: end them inside the loop, not at GC.
                loop.run_until_complete(_cancel_others())
                loop.run_until_complete(server.wait_closed())
                loop.close()

        self._thread = threading.Thread(target=run, name="fault-receiver", daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> FaultReceiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def snapshot(self) -> list[Hit]:
        """The requests so far."""
        with self._lock:
            return list(self.hits)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        except (
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            ConnectionError,
            ValueError,
        ):
            writer.close()
            return
        ok = True
        try:
            verify_signature(self.secret or "", body, headers)
        except WebhookVerificationError:
            ok = False
        action = self.behaviour(body, headers)
        hit = Hit(
            headers.get("x-webhook-delivery-id", ""),
            int(headers.get("x-webhook-retry-count", "-1")),
            body,
            ok,
            action,
            time.time(),
        )
        with self._lock:
            self.hits.append(hit)
        try:
            if action.kind == "hang":
                await asyncio.sleep(self.hang_seconds)
            elif action.kind == "reset":
                sock = writer.get_extra_info("socket")
                # SO_LINGER 0: close() sends a RST instead of a FIN.
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                if action.delay:
                    await asyncio.sleep(action.delay)
                extra = "".join(f"{k}: {v}\r\n" for k, v in action.headers)
                writer.write(
                    f"HTTP/1.1 {action.status} X\r\nContent-Length: 2\r\n"
                    f"Connection: close\r\n{extra}\r\nok".encode()
                )
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()


async def _cancel_others() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def wait_until(
    predicate: Callable[[], Any], *, timeout: float, interval: float = 0.05, what: str = ""
) -> Any:
    """Poll ``predicate`` until truthy (returns its value) or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}")
        time.sleep(interval)


class EmulatorProcess:
    """``gcbridge emulator`` as a child process on a fixed data dir (and, once started, port)."""

    def __init__(
        self, data_dir: Path, *, retry_schedule: str, attempt_timeout: float = 2.0
    ) -> None:
        self.data_dir = data_dir
        self.sites = data_dir.parent / f"{data_dir.name}-sites.toml"
        self.sites.write_text(SITES_TOML, encoding="utf-8")
        self.retry_schedule = retry_schedule
        self.attempt_timeout = attempt_timeout
        self.port = 0
        self.proc: subprocess.Popen[str] | None = None
        self._drain: threading.Thread | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        """Base URL."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        """Start (same port as before, if any) and wait for the ready line."""
        argv = [
            sys.executable,
            "-m",
            "gcbridge",
            "emulator",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            "--sites",
            str(self.sites),
            "--retry-schedule",
            self.retry_schedule,
            "--attempt-timeout",
            str(self.attempt_timeout),
            "--allow-private-receivers",
        ]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        deadline = time.monotonic() + timeout
        while True:
            self.proc = subprocess.Popen(
                argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
            )
            assert self.proc.stdout is not None
            output = []
            for line in self.proc.stdout:
                output.append(line)
                if line.startswith("gcbridge emulator ready on "):
                    self.port = int(line.rsplit(":", 1)[1])
                    self.starts += 1
                    self._drain = threading.Thread(target=self.proc.stdout.read, daemon=True)
                    self._drain.start()
                    return
            self.proc.wait()
            self.proc.stdout.close()
            text = "".join(output)
            # The killed process's port can linger for a moment: try again.
            if "bind_failed" in text and time.monotonic() < deadline:
                time.sleep(0.2)
                continue
            raise RuntimeError(f"emulator did not start: {text[-3000:]}")

    def kill(self) -> None:
        """SIGKILL, no clean-up at all."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self._close_pipe()

    def _close_pipe(self) -> None:
        if self._drain is not None:
            self._drain.join(10)  # the pipe is at EOF once the process is gone
            self._drain = None
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()

    def stop(self) -> None:
        """SIGTERM and wait (clean shutdown)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._close_pipe()

    @property
    def db_path(self) -> Path:
        """The emulator's SQLite file."""
        return self.data_dir / "emulator.sqlite3"


def event_index(body: bytes) -> int:
    """The ``i`` of a comment whose content is ``"... #<i>"`` (how tests tag their comments)."""
    content = json.loads(body)["data"]["comment"]["content"]
    return int(content.rsplit("#", 1)[1])


def subscribe(emulator_url: str, receiver: FaultReceiver, events: list[str]) -> None:
    """Point the example site's webhook at ``receiver`` and give it the new secret."""
    r = httpx.post(
        f"{emulator_url}/webhook/website/{WEBSITE_ID}/setup",
        headers=ACCOUNT,
        json={"url": receiver.url, "events": events},
        timeout=10,
    )
    r.raise_for_status()
    receiver.secret = r.json()["secret"]
