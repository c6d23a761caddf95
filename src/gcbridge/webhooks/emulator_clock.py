"""The clock of a running gc-bridge emulator, for receivers under test.

A delivery carries the emulator's time in ``X-Webhook-Timestamp``: a receiver on this clock
judges freshness as production judges on the service's (docs/reference/emulator-control.md,
"Python"; docs/how-to/test-receiver-retries.md). ``now()`` reads ``GET /_emulator/health``
(no token: health carries no secret) on every call by default, because an advance can move
the emulator's clock at any moment, and a value read before the jump would refuse its
deliveries. Standard library only: the SDK installs without extras.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from urllib.parse import urlsplit

from gcbridge.webhooks.errors import EmulatorClockError

__all__ = ["EmulatorClock", "EmulatorClockError", "DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 2.0
"""Seconds one reading may take, connecting included (a loopback answer takes about 1 ms)."""


class EmulatorClock:
    """A :class:`~gcbridge.clock.Clock` reading a running emulator's ``/_emulator/health``."""

    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT, max_age: float = 0.0) -> None:
        parts = urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise EmulatorClockError(
                f"emulator URL {url!r}: an http(s) URL such as http://127.0.0.1:8000",
                reason="bad_url",
            )
        self.url = f"{parts.scheme}://{parts.netloc}{parts.path}"
        self._parts = parts
        self._timeout = timeout
        self._max_age = max(0.0, max_age)
        self._lock = threading.Lock()
        self._conn: http.client.HTTPConnection | None = None
        self._read_at = -float("inf")  # monotonic time of the last reading
        self._value = 0.0
        self._running = False

    @property
    def mode(self) -> str:
        """The emulator's clock mode at the last reading (``system`` or ``manual``)."""
        with self._lock:
            self._refresh_if_stale()
            return "system" if self._running else "manual"

    def now(self) -> float:
        """The emulator's current time, Unix seconds."""
        with self._lock:
            self._refresh_if_stale()
            elapsed = time.monotonic() - self._read_at if self._running else 0.0
            return self._value + elapsed

    def close(self) -> None:
        """Close the kept-alive connection."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> EmulatorClock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _refresh_if_stale(self) -> None:
        if self._max_age and time.monotonic() - self._read_at <= self._max_age:
            return
        self._value, self._running = self._read()
        self._read_at = time.monotonic()

    def _read(self) -> tuple[float, bool]:
        """(emulator time in seconds, whether its clock runs) from one health answer."""
        path = (self._parts.path or "") + "/_emulator/health"
        for _ in range(2):  # a kept-alive connection the emulator closed is tried once more
            reused = self._conn is not None
            conn = self._connection()
            try:
                conn.request("GET", path, headers={"Accept": "application/json"})
                response = conn.getresponse()
                raw = response.read()
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                self._conn = None
                # once more only for a kept-alive connection the emulator closed: a new
                # connection refused, or an emulator that does not answer, is the answer
                if reused and not isinstance(exc, TimeoutError):
                    continue
                what = "no answer in time" if isinstance(exc, TimeoutError) else str(exc)
                raise EmulatorClockError(
                    f"cannot read the emulator's clock at {self.url}: {what}"
                ) from None
            try:
                clock = json.loads(raw)["clock"]
                now_ms = float(clock["now"])
                if response.status != 200 or clock["mode"] not in ("system", "manual"):
                    raise ValueError(clock)
            except (ValueError, KeyError, TypeError):
                raise EmulatorClockError(
                    f"{self.url}/_emulator/health did not answer an emulator's clock"
                ) from None
            return now_ms / 1000.0, clock["mode"] == "system"
        raise AssertionError("unreachable: the second connection is new, so it answers or raises")

    def _connection(self) -> http.client.HTTPConnection:
        """The kept-alive connection, or a new one."""
        if self._conn is None:
            https = self._parts.scheme == "https"
            cls = http.client.HTTPSConnection if https else http.client.HTTPConnection
            self._conn = cls(self._parts.hostname or "", self._parts.port, timeout=self._timeout)
        return self._conn
