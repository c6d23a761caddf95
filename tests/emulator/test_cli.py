"""``gcbridge emulator``: ready line, demo credentials, clean stop, clean errors."""

from __future__ import annotations

import json
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from gcbridge.cli import main

READY = re.compile(r"^gcbridge emulator ready on (http://127\.0\.0\.1:(\d+))$")


class Emulator:
    """``python -m gcbridge emulator ...`` in a subprocess, stdout read line by line."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gcbridge", "emulator", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_ready(self, timeout: float = 30) -> str:
        while True:
            line = self.lines.get(timeout=timeout)
            if line is None:
                raise AssertionError(f"exited before ready: {self.seen} {self.proc.stderr.read()}")  # type: ignore[union-attr]
            self.seen.append(line)
            match = READY.match(line)
            if match:
                return match.group(1)

    def stop(self, sig: int) -> tuple[int, str]:
        self.proc.send_signal(sig)
        _, stderr = self.proc.communicate(timeout=30)
        while True:
            line = self.lines.get(timeout=5)
            if line is None:
                break
            self.seen.append(line)
        return self.proc.returncode, stderr


@pytest.fixture
def run(tmp_path: Path) -> Iterator[type[Emulator]]:
    started: list[Emulator] = []

    class Tracked(Emulator):
        def __init__(self, *args: str) -> None:
            super().__init__(*args)
            started.append(self)

    yield Tracked
    for emu in started:
        if emu.proc.poll() is None:
            emu.proc.kill()
            emu.proc.wait(timeout=10)


def test_demo_site_ready_line_restart_and_clean_stops(run: type[Emulator], tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = run("--port", "0", "--data-dir", str(data))
    url = first.wait_ready()
    assert int(url.rsplit(":", 1)[1]) != 0  # port 0: the real port is printed
    saved = json.loads((data / "demo-site.json").read_text())
    printed = "\n".join(first.seen)
    assert str(data / "demo-site.json") in printed
    for key in ("website_id", "sso_public_key", "sso_secret", "account_token", "site_key_secret"):
        assert saved[key] in printed
    assert httpx.get(f"{url}/healthz").json() == {"status": "ok"}
    params = {"service_id": "demo", "url": "https://a.example/", "uid": "1", "page_title": "T"}
    gc_url = httpx.get(
        f"{url}/api/pub/thread-load/", params={**params, "inapp": "true", "redirect": "true"}
    ).json()["gc_url"]
    assert gc_url.startswith(f"{url}/widget/?website_id=demo&")
    code, stderr = first.stop(signal.SIGTERM)
    assert code == 143, stderr
    assert stderr == "gcbridge emulator: stopped (SIGTERM)\n"
    assert "Traceback" not in stderr
    assert sum(bool(READY.match(line)) for line in first.seen) == 1

    # Second run on the same data dir: same site, its secrets not printed again.
    second = run("--port", "0", "--data-dir", str(data))
    url = second.wait_ready()
    printed = "\n".join(second.seen)
    assert saved["website_id"] in printed and saved["sso_public_key"] in printed
    assert saved["sso_secret"] not in printed and saved["account_token"] not in printed
    assert httpx.get(f"{url}/healthz").status_code == 200
    code, stderr = second.stop(signal.SIGINT)  # Ctrl-C
    assert code == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr


def test_bad_sites_file_is_one_clean_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sites = tmp_path / "sites.toml"
    sites.write_text("[[site]\nshortname = ")
    assert (
        main(["emulator", "--port", "0", "--data-dir", str(tmp_path / "d"), "--sites", str(sites)])
        == 1
    )
    err = capsys.readouterr().err
    assert err.startswith("gcbridge: error [sites_file_invalid]: ")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--sites", "/nonexistent/sites.toml"], "sites_file_missing"),
        (["--port", "70000"], "bad_port"),
        (["--retry-schedule", "60,0"], "bad_schedule"),
        (["--attempt-timeout", "0"], "bad_timeout"),
        (["--front-url", "widget.example"], "bad_front_url"),
    ],
)
def test_bad_options_are_clean_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], reason: str
) -> None:
    assert main(["emulator", "--data-dir", str(tmp_path / "d"), *args]) == 1
    assert capsys.readouterr().err.startswith(f"gcbridge: error [{reason}]: ")


def test_port_in_use_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["emulator", "--port", str(port), "--data-dir", str(tmp_path / "d")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gcbridge: error [port_in_use]: ")
    assert f"port {port}" in err and "--port" in err and err.count("\n") == 1
    assert not (tmp_path / "d").exists()  # nothing written before the bind succeeded


def test_help_lists_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["emulator", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for option in (
        "--host",
        "--port",
        "--data-dir",
        "--sites",
        "--front-url",
        "--retry-schedule",
        "--allow-private-receivers",
        "--attempt-timeout",
    ):
        assert option in out
