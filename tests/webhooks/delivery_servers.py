"""Throwaway PostgreSQL and Redis servers for the delivery log tests and bench row.

Each is started on a free loopback port in its own temp dir and stopped after;
nothing assumes a server already running. A missing server binary raises
:class:`ServerUnavailable` whose message is the install command (the fixtures
turn it into a skip). As root, PostgreSQL runs as the ``postgres`` user (it
refuses to run as root). :func:`hung` stops one of these servers (``SIGSTOP``:
its sockets stay open, nothing answers) and lets it go on afterwards; it only
ever signals the processes of a server started here.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator

from tests.free_ports import free_port

PG_INSTALL = "apt-get install postgresql (Debian/Ubuntu; or make system-deps)"
REDIS_INSTALL = "apt-get install redis-server (Debian/Ubuntu; or make system-deps)"


_PIDS: dict[str, object] = {}  # url -> the PostgreSQL data dir (str) or redis-server's Popen


class ServerUnavailable(Exception):
    """The server cannot be started here; the message says how to install it."""


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    return candidates[0] if candidates else None


def _as_postgres(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    runuser = shutil.which("runuser")
    if runuser is None:
        raise ServerUnavailable("running as root without runuser: cannot start PostgreSQL")
    return [runuser, "-u", "postgres", "--", *cmd]


@contextlib.contextmanager
def postgres_server(port: int | None = None) -> Iterator[str]:
    """A fresh PostgreSQL cluster; yields its URL (user ``postgres``, trust auth, loopback)."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise ServerUnavailable(
            f"PostgreSQL server binaries (initdb, pg_ctl) not found: {PG_INSTALL}"
        )
    owner = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            raise ServerUnavailable(
                f"no 'postgres' user to run the server as: {PG_INSTALL}"
            ) from None
    root = tempfile.mkdtemp(prefix="gcbridge-pg-")
    try:
        if owner is not None:
            os.chown(root, owner.pw_uid, owner.pw_gid)
        data, sock_dir, log = f"{root}/data", f"{root}/sock", f"{root}/server.log"
        os.mkdir(sock_dir, 0o700)
        if owner is not None:
            os.chown(sock_dir, owner.pw_uid, owner.pw_gid)
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE, "cwd": root}
        subprocess.run(
            _as_postgres([initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"]),
            check=True,
            timeout=120,
            **quiet,
        )
        wanted = port
        for attempt in range(3):
            port = wanted or free_port()
            options = (
                f"-p {port} -k {sock_dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=50"
            )
            started = subprocess.run(
                _as_postgres(
                    [pg_ctl, "-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start"]
                ),
                timeout=90,
                **quiet,
            )
            if started.returncode == 0:
                break
            if attempt == 2:
                raise ServerUnavailable(f"PostgreSQL did not start: {started.stderr!r}")
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        _PIDS[url] = data
        try:
            yield url
        finally:
            _PIDS.pop(url, None)
            subprocess.run(
                _as_postgres([pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"]),
                timeout=60,
                **quiet,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def redis_server(port: int | None = None) -> Iterator[str]:
    """A fresh redis-server without persistence; yields its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise ServerUnavailable(f"redis-server not found: {REDIS_INSTALL}")
    import redis

    wanted = port
    for attempt in range(3):
        port = wanted or free_port()
        proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}/0"
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        ready = False
        while not ready and proc.poll() is None and time.monotonic() < deadline:
            try:
                ready = bool(client.ping())
            except redis.RedisError:
                time.sleep(0.05)
        client.close()
        if ready:
            break
        proc.kill()
        proc.wait()
        if attempt == 2:
            raise ServerUnavailable("redis-server did not start")
    _PIDS[url] = proc
    try:
        yield url
    finally:
        _PIDS.pop(url, None)
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _children(parent: int) -> list[int]:
    found = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            found.append(int(stat.split("/")[2]))
    return found


def server_pids(url: str) -> list[int]:
    """The processes of a server started here: PostgreSQL's postmaster and its children."""
    owner = _PIDS[_base(url)]
    if isinstance(owner, subprocess.Popen):
        return [owner.pid]
    with open(f"{owner}/postmaster.pid") as fh:
        postmaster = int(fh.readline())
    return [postmaster, *_children(postmaster)]


def _base(url: str) -> str:
    """The URL the server was registered under (another user or database on the same server)."""

    def address(u: str) -> str:
        return u.split("://", 1)[1].rsplit("@", 1)[-1].split("/", 1)[0]

    for known in _PIDS:
        if address(url) == address(known):
            return known
    raise KeyError("not a server started by delivery_servers")


@contextlib.contextmanager
def hung(url: str) -> Iterator[None]:
    """The server at ``url`` stopped (SIGSTOP) for the block: connected, silent; then resumed."""
    pids = server_pids(url)
    stopped = []
    try:
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
        yield
    finally:
        for pid in reversed(stopped):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def reset(url: str) -> None:
    """Empty a shared log (between tests): drop the tables, flush the database."""
    if url.startswith("postgresql"):
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                "DROP TABLE IF EXISTS gcbridge_delivery_ids, gcbridge_signatures, "
                "gcbridge_delivery_log_schema"
            )
    elif url.startswith("redis"):
        import redis

        client = redis.Redis.from_url(url)
        client.flushdb()
        client.close()
