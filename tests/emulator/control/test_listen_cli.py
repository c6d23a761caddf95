"""``gcbridge webhooks listen --respond --emulator`` as a user runs it, against a live emulator."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.emulator.control.support import Client
from tests.free_ports import free_port

ROOT = Path(__file__).resolve().parents[3]


def test_listen_answers_as_scripted_on_the_emulator_clock(
    make_client: Callable[..., Client],
) -> None:
    client = make_client()
    port = free_port()
    secret = client.setup(f"http://127.0.0.1:{port}/hook")
    env = dict(os.environ, GC_SECRET=secret)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "harness")])
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gcbridge",
            "webhooks",
            "listen",
            "--port",
            str(port),
            "--secret-env",
            "GC_SECRET",
            "--emulator",
            client.emu.url,
            "--respond",
            "503:retry-after=600,200",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        banner = [proc.stdout.readline() for _ in range(3)]
        assert banner[0].startswith("gcbridge webhooks listening on")
        assert "emulator's clock" in banner[1]
        assert "503:retry-after=600,200" in banner[2]
        client.comment()
        client.clock(action="advance", until="idle")
        (call,) = client.calls()
        # 503 + Retry-After 600: the next attempt moves to the 900 s slot; it is
        # 900 s ahead of the wall, and verified on the emulator's clock
        assert [a["response_code"] for a in call["attempts"]] == [503, 200]
        stamps = [int(a["request_headers"]["X-Webhook-Timestamp"]) for a in call["attempts"]]
        assert stamps[1] - stamps[0] == 900_000
        first = proc.stdout.readline()
        second = proc.stdout.readline()
        assert first.startswith("SCRIPTED") and "503:retry-after=600" in first
        assert second.startswith("VERIFIED")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    assert proc.returncode == 130
