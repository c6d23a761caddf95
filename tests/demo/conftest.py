"""Fixtures of the demo tests: a private X server, and the demo's default port and data dir."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.demo.support import REPO, hold_default_port


@pytest.fixture(scope="session")
def xvfb_display() -> Iterator[str]:
    """A private X server; its display number is chosen by Xvfb (-displayfd)."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip(
            "Xvfb is not installed: apt-get install xvfb xauth libxcb-icccm4 libxcb-keysyms1"
        )
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [xvfb, "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        assert number.isdigit(), "Xvfb did not report a display"
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def on_defaults(tmp_path: Path) -> Iterator[Path]:
    """The repository's own ``./.gcbridge/demo`` and port 8470, fresh, as a first-time user has.

    The default port is held for the whole test (one such test at a time on the machine,
    waiting while another process uses it); a data dir already there is put aside and
    brought back afterwards.
    """
    data = REPO / ".gcbridge" / "demo"
    kept = tmp_path / "kept-demo-data"
    with hold_default_port():
        if data.exists():
            shutil.move(data, kept)
        try:
            yield data
        finally:
            shutil.rmtree(data, ignore_errors=True)
            if kept.exists():
                shutil.move(kept, data)
