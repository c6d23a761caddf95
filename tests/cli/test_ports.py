"""Busy ports and Ctrl-C / SIGTERM of the long-running commands.

Each command runs as a user starts it, in its own process group; the signal goes
to the whole group, as a terminal sends Ctrl-C.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.as_user import Lines, gcbridge_cmd, port_free, readme, user_env

LISTEN_READY = r"^gcbridge webhooks listening on http://127\.0\.0\.1:\d+/$"
EMULATOR_READY = r"^gcbridge emulator ready on http://127\.0\.0\.1:\d+$"


def commands(tmp: Path) -> dict[str, tuple[list[str], str]]:
    return {
        "gcbridge emulator": (
            gcbridge_cmd("emulator", "--port", "0", "--data-dir", str(tmp / "data")),
            EMULATOR_READY,
        ),
        "gcbridge webhooks listen": (
            gcbridge_cmd("webhooks", "listen", "--port", "0", "--secret-env", "GC_NC_WH"),
            LISTEN_READY,
        ),
    }


@pytest.mark.parametrize("name", ["gcbridge emulator", "gcbridge webhooks listen"])
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_to_the_process_group_stops_with_one_line(
    tmp_path: Path, name: str, sig: int, status: int
) -> None:
    argv, ready = commands(tmp_path)[name]
    proc = Lines(argv, env=user_env(GC_NC_WH="whsec_newcomer"))
    try:
        proc.wait_for(ready)
        code, err = proc.signal_group(sig)
    finally:
        proc.kill()
    assert code == status, err
    assert err == f"{name}: stopped ({signal.Signals(sig).name})\n"


class Holder:
    """Another process holding a port, as a user's forgotten server does."""

    def __init__(self, port: int = 0) -> None:
        script = Path(__file__).with_name("port_holder.py")
        self.proc = subprocess.Popen(
            [sys.executable, str(script), str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        try:
            self.port = int(self.proc.stdout.readline())
        except ValueError:  # could not bind
            self.stop()
            raise

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        assert self.proc.stdout is not None
        self.proc.stdout.close()


@pytest.mark.parametrize(
    "argv",
    [
        ["emulator", "--data-dir", "state"],
        ["webhooks", "listen", "--secret-env", "GC_NC_WH"],
    ],
    ids=["emulator", "webhooks-listen"],
)
def test_a_busy_port_is_one_line_naming_the_holder_and_port_option(
    tmp_path: Path, argv: list[str]
) -> None:
    holder = Holder()
    try:
        run = subprocess.run(
            gcbridge_cmd(*argv, "--port", str(holder.port)),
            cwd=tmp_path,
            env=user_env(GC_NC_WH="whsec_newcomer"),
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        holder.stop()
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    line = run.stderr
    assert line.startswith("gcbridge: error [port_in_use]: ")
    assert f"port {holder.port} on 127.0.0.1 is already in use by pid {holder.proc.pid}" in line
    assert "port_holder.py" in line  # its command line, as the OS tells
    assert "--port N" in line
    assert list(tmp_path.iterdir()) == []  # nothing written: no state dir, no demo-site.json


@pytest.mark.defaults
def test_the_emulator_on_defaults_with_8000_taken(tmp_path: Path) -> None:
    """``gcbridge emulator`` with no option while something holds 8000 (ours, or someone's)."""
    holder = None
    for _ in range(30):
        if not port_free(8000):
            break  # held by another run on this machine: the same situation for a user
        try:
            holder = Holder(8000)
            break
        except ValueError:  # lost a race for 8000
            time.sleep(1)
    proc = subprocess.Popen(
        gcbridge_cmd("emulator"),
        cwd=tmp_path,
        env=user_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:  # 8000 was released in between and it started
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        pytest.skip("port 8000 was released by another run during the test")
    finally:
        if holder is not None:
            holder.stop()
    run = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stderr.startswith("gcbridge: error [port_in_use]: port 8000 on 127.0.0.1 ")
    assert "--port N" in run.stderr and run.stderr.count("\n") == 1
    assert not (tmp_path / ".gcbridge").exists()
    assert run.stdout == ""


def test_port_holder_reads_proc_like_the_os_tells() -> None:
    from gcbridge.cli.ports import port_holder

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        held = port_holder(port)
    import os

    assert held is not None and held.startswith(f"pid {os.getpid()} (")
    assert port_holder(port) is None  # closed


def test_readme_receiver_example_is_not_on_the_emulators_port() -> None:
    lines = [line for line in readme().splitlines() if "docs_src.receiver_fastapi:" in line]
    assert lines, "the docs show how to run the receiver example"
    for line in lines:
        assert "--port 9000" in line, line
