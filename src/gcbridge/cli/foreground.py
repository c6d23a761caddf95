"""Serve an ASGI app in the foreground until SIGINT or SIGTERM, then say so in one line.

Used by the long-running commands (``gcbridge emulator``, ``gcbridge webhooks
listen``). A signal asks uvicorn to shut down (lifespan shutdown runs); the
command then prints ``<name>: stopped (SIGTERM)`` on stderr and exits with the
shell's convention, 128 + the signal number: 130 for Ctrl-C, 143 for SIGTERM.
A second Ctrl-C forces the exit. uvicorn's own re-raise of the signal (a
``KeyboardInterrupt`` traceback, or a signal death) never happens.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from socket import socket
from types import FrameType
from typing import Any, Literal

from gcbridge.aio import run_sync
from gcbridge.errors import GcBridgeError
from gcbridge.signals import STOP_SIGNALS, stop_line

__all__ = ["serve_foreground", "StartupFailed"]


class StartupFailed(GcBridgeError):
    """The app's startup failed (uvicorn exits instead of serving)."""

    reason = "startup_failed"


def serve_foreground(
    app: Any,
    sock: socket,
    *,
    name: str,
    log_level: str = "warning",
    lifespan: Literal["auto", "on", "off"] = "on",
    access_log: bool = False,
    on_ready: Callable[[], None] | None = None,
) -> int:
    """Serve ``app`` on the bound ``sock``; 0 if it stopped by itself, else 128 + signal."""
    import uvicorn

    received: list[int] = []

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            received.append(sig)
            super().handle_exit(sig, frame)

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            originals = {sig: signal.signal(sig, self.handle_exit) for sig in STOP_SIGNALS}
            try:
                yield
            finally:
                for sig, handler in originals.items():
                    signal.signal(sig, handler)

    config = uvicorn.Config(app, log_level=log_level, lifespan=lifespan, access_log=access_log)
    server = Server(config)

    async def serve() -> None:
        task = asyncio.ensure_future(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started and on_ready is not None and not received:
            on_ready()
        await task

    try:
        run_sync(serve)
    except SystemExit as exc:  # uvicorn exits this way when the app's startup fails
        raise StartupFailed(f"{name} failed to start (status {exc.code})") from None
    finally:
        sock.close()
    if received:
        print(stop_line(name, received[0]), file=sys.stderr, flush=True)
        return 128 + received[0]
    return 0
