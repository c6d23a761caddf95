"""A TCP port for a server a test starts as a separate process: :func:`free_port`.

The port is chosen free, then handed to the process, which binds it a moment later.
A port from the kernel's ephemeral range (what binding port 0 gives) can be taken
in between as the source port of any outgoing connection on the machine (another
worker's HTTP client, a browser), and the server then fails with "port in use". So
the port comes from below that range, where the kernel never assigns one by itself,
picked at random so that parallel workers rarely try the same one.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

__all__ = ["free_port"]

_LINUX_DEFAULT_EPHEMERAL = (32768, 60999)
_LOWEST = 20000  # below: well-known and registered services


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return _LINUX_DEFAULT_EPHEMERAL


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    """A port free on 127.0.0.1 now, outside the ephemeral range (or from it, if none is)."""
    low, high = _ephemeral_range()
    candidates = [*range(_LOWEST, min(low, 65536)), *range(max(high + 1, _LOWEST), 65536)]
    random.shuffle(candidates)
    for port in candidates[:200]:
        if _bindable(port):
            return port
    with socket.socket() as sock:  # everything tried was taken: the kernel's choice
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
