"""Crash safety: kill -9 the emulator mid-delivery, restart it, every event still arrives.

The emulator runs as a real process (``python -m gcbridge emulator``) on a real
clock. The receiver holds every request until the emulator is killed, so the
kill lands while attempts are in flight and others are still queued.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gcbridge.emulator.testing import EXAMPLE_SITE
from gcbridge.serving import BackgroundServer
from tests.emulator.webhooks.support import bearer

SITES_TOML = """
[[site]]
shortname = "{s.shortname}"
website_id = "{s.website_id}"
sso_public_key = "{s.sso_public_key}"
sso_secret = "{s.sso_secret}"
allow_weak_secret = true
account_token = "{s.account_token}"
site_key_id = "{s.site_key_id}"
site_key_secret = "{s.site_key_secret}"
"""


def wait_for(predicate, timeout: float = 30.0, what: str = "condition"):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not (result := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)
    return result


@contextmanager
def emulator_process(data_dir: Path, sites: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    cmd = [
        sys.executable,
        "-m",
        "gcbridge",
        "emulator",
        "--port",
        "0",
        "--data-dir",
        str(data_dir),
        "--sites",
        str(sites),
        "--allow-private-receivers",
        "--retry-schedule",
        "0,1,1",
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if line.startswith("gcbridge emulator ready on "):
                url = line.rsplit(" ", 1)[1].strip()
        assert url, "the emulator did not start"
        # Keep draining its output so that a chatty emulator never blocks on a full pipe.
        drain = threading.Thread(target=proc.stdout.read, daemon=True)
        drain.start()
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if drain is not None:
            drain.join(timeout=10)  # the process is gone: its pipe is at EOF
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.mark.slow
def test_kill_mid_delivery_then_restart_delivers_everything(tmp_path: Path) -> None:
    received: list[str] = []
    release = threading.Event()

    async def hook(request: Request) -> Response:
        await request.body()
        received.append(request.headers["x-webhook-delivery-id"])
        # Hold every request until the emulator has been killed.
        for _ in range(500):
            if release.is_set():
                break
            await asyncio.sleep(0.02)
        return Response(status_code=204)

    app = Starlette(routes=[Route("/hook", hook, methods=["POST"])])
    sites = tmp_path / "sites.toml"
    sites.write_text(SITES_TOML.format(s=EXAMPLE_SITE))
    data = tmp_path / "data"
    wid = EXAMPLE_SITE.website_id
    events = 6

    with BackgroundServer(lambda port: app) as receiver:
        with emulator_process(data, sites) as (proc, url):
            http = httpx.Client(base_url=url, timeout=10)
            r = http.post(
                f"/webhook/website/{wid}/setup",
                json={"url": receiver.url + "/hook"},
                headers=bearer(),
            )
            assert r.json()["enabled"] is True
            r = http.post(
                "/api/pub/auth/register",
                json={
                    "website_id": "demo",
                    "username": "bob",
                    "email": "b@example.com",
                    "password": "pw-123456789",
                },
            )
            session = r.json()["token"]
            for n in range(events):
                r = http.post(
                    "/api/pub/comments",
                    json={
                        "website_id": "demo",
                        "uid": "a1",
                        "url": "https://x.example/a1",
                        "page_title": "A1",
                        "content": f"comment {n}",
                    },
                    headers=bearer(session),
                )
                assert r.status_code == 201, r.text
            wait_for(lambda: len(received) >= 1, what="a delivery in flight")
            before = http.get(f"/webhook/website/{wid}/calls", headers=bearer()).json()["calls"]
            http.close()
            proc.kill()  # SIGKILL: no shutdown code runs
            proc.wait()
        assert len(before) == events
        assert all(c["status"] == "pending" for c in before)
        in_flight_before = set(received)
        release.set()

        with emulator_process(data, sites) as (proc, url):
            http = httpx.Client(base_url=url, timeout=10)

            def settled():  # type: ignore[no-untyped-def]
                calls = http.get(f"/webhook/website/{wid}/calls", headers=bearer()).json()["calls"]
                return calls if all(c["status"] == "succeeded" for c in calls) else None

            after = wait_for(settled, what="every call to succeed after the restart")
            http.close()

    ids = {c["delivery_id"] for c in before}
    assert {c["delivery_id"] for c in after} == ids  # same delivery ids, nothing lost, nothing new
    assert ids <= set(received)  # every event arrived at least once
    interrupted = [c for c in after if any(a["error"] == "interrupted" for a in c["attempts"])]
    # Everything the receiver saw before the kill was cut mid-attempt (an attempt may also
    # have been cut before its request left, so this is a subset).
    assert in_flight_before and in_flight_before <= {c["delivery_id"] for c in interrupted}
    for call in interrupted:  # resent with the same delivery id, counted as a retry
        assert call["attempts"][-1]["request_headers"]["X-Webhook-Retry-Count"] == "1"
    with sqlite3.connect(data / "emulator.sqlite3") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
