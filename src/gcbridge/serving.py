"""Run an ASGI app on loopback in a background thread (uvicorn).

The socket is bound *before* the app is built so that the app can know its own port
(the emulator puts it in gc_url)::

    with BackgroundServer(lambda port: create_app(settings_for(port))) as srv:
        httpx.get(srv.url + "/healthz")
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["BackgroundServer", "bind_socket"]


def bind_socket(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening TCP socket (port 0 picks a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio only sets TCP_NODELAY on sockets that say they
    # are TCP, and without it every uvicorn response waits ~40 ms on a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


@functools.cache
def _server_class(uvicorn: Any) -> Any:
    """uvicorn's server, stopped as soon as it is asked to.

    uvicorn looks at ``should_exit`` every 0.1 s (``tick``), then asks open
    connections to close and pauses 0.1 s for them, open or not: a stop took about
    150 ms, for every emulator, backend and receiver a test or the demo stops. Here
    the idle loop also waits on an event that :meth:`wake` sets (each look is still
    uvicorn's ``on_tick``), and with no connection open and no request running the
    shutdown goes straight to the lifespan shutdown. With connections open it is
    uvicorn's own. A stop takes about 2 ms.
    """

    class PromptServer(uvicorn.Server):  # type: ignore[misc]
        tick = 0.1  # seconds between looks at should_exit when nobody wakes the loop
        _wake: asyncio.Event | None = None
        _loop: asyncio.AbstractEventLoop | None = None

        def __init__(self, config: Any) -> None:
            super().__init__(config)
            self.settled = threading.Event()  # startup is over, served or failed

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            try:
                await super().startup(sockets)
            finally:
                self.settled.set()

        async def main_loop(self) -> None:
            self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
            counter = 0
            should_exit = await self.on_tick(counter)
            while not should_exit:
                counter = (counter + 1) % 864000
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.tick):  # not wait_for: see bounded_http
                        await self._wake.wait()
                should_exit = await self.on_tick(counter)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            if self.server_state.connections or self.server_state.tasks:
                await super().shutdown(sockets)
                return
            for server in self.servers:
                server.close()
            for sock in sockets or []:
                sock.close()
            if not self.force_exit:
                await self.lifespan.shutdown()

        def wake(self) -> None:
            """From any thread: let the loop look at ``should_exit`` now."""
            loop, event = self._loop, self._wake
            if loop is not None and event is not None:
                with contextlib.suppress(RuntimeError):  # the loop already ended
                    loop.call_soon_threadsafe(event.set)

    return PromptServer


class BackgroundServer:
    """A uvicorn server in a daemon thread; ``url`` is ``http://host:port``."""

    def __init__(
        self,
        app_factory: Callable[[int], Any],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        log_level: str = "warning",
        startup_timeout: float = 30.0,
        sock: socket.socket | None = None,
    ) -> None:
        self._factory = app_factory
        self._sock = sock  # already bound (a command that reports a busy port itself)
        self.host = host
        self._requested_port = port
        self._log_level = log_level
        self._timeout = startup_timeout
        self._thread: threading.Thread | None = None
        self._server: Any = None
        self._error: BaseException | None = None
        self.app: Any = None
        self.port = 0

    @property
    def url(self) -> str:
        """Base URL of the running server."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> BackgroundServer:
        """Bind, build the app, serve; returns once requests are accepted."""
        import uvicorn

        sock = self._sock or bind_socket(self.host, self._requested_port)
        self.port = sock.getsockname()[1]
        self.app = self._factory(self.port)
        config = uvicorn.Config(
            self.app, log_level=self._log_level, lifespan="on", access_log=False
        )
        self._server = _server_class(uvicorn)(config)

        def run() -> None:
            try:
                asyncio.run(self._server.serve(sockets=[sock]))
            except BaseException as exc:  # surfaced by start()
                self._error = exc
            finally:
                sock.close()

        self._thread = threading.Thread(target=run, name=f"uvicorn:{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + self._timeout
        while not self._server.started:
            if self._error is not None or not self._thread.is_alive():
                raise RuntimeError(f"server on port {self.port} failed to start: {self._error!r}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"server on port {self.port} did not start in {self._timeout}s")
            if self._server.settled.wait(0.02):  # startup over, yet not serving: it is ending
                self._thread.join(0.02)
        return self

    def stop(self) -> None:
        """Ask uvicorn to exit and wait for the thread (lifespan shutdown runs)."""
        if self._server is not None:
            self._server.should_exit = True
            self._server.wake()
        if self._thread is not None:
            self._thread.join(timeout=15)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
