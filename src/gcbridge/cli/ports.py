"""Bind a command's listening port, or say in one line who holds it and what to do.

Where the OS tells (Linux: ``/proc/net/tcp*`` maps the port to a socket inode,
``/proc/PID/fd`` maps the inode to a process we may inspect), the holder is
named; otherwise the line says so.
"""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

from gcbridge.errors import GcBridgeError

__all__ = ["PortUnavailable", "bind_port", "port_holder"]

_LISTEN = "0A"  # TCP state LISTEN in /proc/net/tcp


class PortUnavailable(GcBridgeError):
    """The port cannot be bound (``port_in_use``, or ``bind_failed`` for other reasons)."""

    reason = "bind_failed"


def _listening_inodes(port: int, proc: Path) -> set[str]:
    inodes = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10 or fields[3] != _LISTEN:
                continue
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port:
                inodes.add(fields[9])
    return inodes


def port_holder(port: int, proc: Path = Path("/proc")) -> str | None:
    """``"pid N (command line)"`` of a process listening on TCP ``port``, if the OS tells."""
    inodes = _listening_inodes(port, proc)
    if not inodes:
        return None
    targets = {f"socket:[{inode}]" for inode in inodes}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:  # another user's process, or gone
            continue
        for fd in fds:
            try:
                if os.readlink(fd) not in targets:
                    continue
            except OSError:
                continue
            try:
                raw = (entry / "cmdline").read_bytes()
            except OSError:
                raw = b""
            cmdline = " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)
            return f"pid {entry.name}" + (f" ({_short(cmdline)})" if cmdline else "")
    return None


def _short(cmdline: str, limit: int = 100) -> str:
    cmdline = " ".join(cmdline.split())  # one line, whatever the arguments hold
    return cmdline if len(cmdline) <= limit else cmdline[: limit - 1] + "…"


def bind_port(host: str, port: int, *, option: str = "--port") -> socket.socket:
    """A listening socket on ``host:port``; :class:`PortUnavailable` in one readable line."""
    from gcbridge.serving import bind_socket

    try:
        return bind_socket(host, port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            holder = port_holder(port)
            who = f"by {holder}" if holder else "by another process (the OS does not say which)"
            raise PortUnavailable(
                f"port {port} on {host} is already in use {who}; stop it, "
                f"or choose another port with {option} N (0 picks a free one)",
                reason="port_in_use",
            ) from None
        raise PortUnavailable(
            f"cannot listen on {host} port {port}: {exc.strerror or exc}; "
            f"check the address, or choose another port with {option} N",
            reason="bind_failed",
        ) from None
