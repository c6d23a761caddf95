"""Client-side bounds for a network store: a deadline per call and a breaker after a hang.

A server that is stopped (``SIGSTOP``, a frozen VM, a partition that drops
packets silently) keeps its TCP connections open: the kernel may even go on
acknowledging what the client sends, so neither the server's own timeouts
(``statement_timeout``) nor TCP keepalives ever fire, and a blocking read waits
for ever. :class:`Watchdog` bounds every call from the client: when a call's
deadline passes, its socket is shut down under it, the blocked read returns at
once with an error, and the connection is dropped.

:class:`Breaker` then answers later calls at once (``open``) instead of letting
each wait its own full deadline on a server already known to hang; one call
every ``retry_interval`` probes the server again.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from collections.abc import Callable, Iterator

__all__ = ["Watchdog", "Breaker", "TimedOut"]


class TimedOut(Exception):
    """A call ran past its deadline: its connection was shut down under it."""


class Watchdog:
    """One thread per store: shuts down a call's socket once its deadline has passed."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._fds: dict[int, int] = {}  # guard id -> socket fd (while the call runs)
        self._fired: set[int] = set()
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None
        self._closed = False

    @contextlib.contextmanager
    def guard(self, fd: int, deadline: float) -> Iterator[Callable[[], bool]]:
        """Bound the block to ``deadline`` (this watchdog's clock); yields ``fired()``."""
        key = next(self._ids)
        with self._cond:
            self._start()
            self._fds[key] = fd
            heapq.heappush(self._heap, (deadline, key))
            if self._heap[0][1] == key:
                self._cond.notify()
        try:
            yield lambda: key in self._fired
        finally:
            with self._cond:
                self._fds.pop(key, None)
                self._fired.discard(key)

    def close(self) -> None:
        """Stop the thread (calls still guarded are no longer bounded)."""
        with self._cond:
            self._closed = True
            self._cond.notify()

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._closed = False
            self._thread = threading.Thread(
                target=self._loop, name="gcbridge-delivery-log-watchdog", daemon=True
            )
            self._thread.start()

    def _loop(self) -> None:
        with self._cond:
            while not self._closed:
                while self._heap and self._heap[0][1] not in self._fds:
                    heapq.heappop(self._heap)  # finished in time
                if not self._heap:
                    self._cond.wait()
                    continue
                deadline, key = self._heap[0]
                left = deadline - self._clock()
                if left > 0:
                    self._cond.wait(left)
                    continue
                heapq.heappop(self._heap)
                self._fired.add(key)
                _shutdown(self._fds[key])


def _shutdown(fd: int) -> None:
    """Shut the socket down (both ways): a read blocked on it returns at once."""
    with contextlib.suppress(OSError):
        sock = socket.socket(fileno=fd)
        try:
            sock.shutdown(socket.SHUT_RDWR)
        finally:
            sock.detach()  # the fd stays the driver's to close


class Breaker:
    """Open after a hang or a failed connection: calls fail at once, one probe per interval."""

    def __init__(
        self, retry_interval: float = 1.0, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.retry_interval = retry_interval
        self._clock = clock
        self._lock = threading.Lock()
        self._open = False
        self._next_probe = 0.0

    def allow(self) -> bool:
        """Whether a call may go to the server now (closed, or this call is the probe)."""
        with self._lock:
            if not self._open:
                return True
            now = self._clock()
            if now < self._next_probe:
                return False
            self._next_probe = now + self.retry_interval  # one probe per interval
            return True

    def trip(self) -> None:
        """The server hung or refused: fail fast until the next probe."""
        with self._lock:
            self._open = True
            self._next_probe = self._clock() + self.retry_interval

    def reset(self) -> None:
        """A call went through: close the breaker."""
        if self._open:
            with self._lock:
                self._open = False
