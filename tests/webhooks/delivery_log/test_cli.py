"""``gcbridge webhooks listen --delivery-log URL``: listeners sharing one log skip copies."""

import os
import subprocess
import sys
import time

import httpx
import pytest

from gcbridge.cli import main
from tests.webhooks.support import SECRET, delivery_headers, event_body


def listen(*extra):
    env = {**os.environ, "GC_TEST_WH": SECRET, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "gcbridge", "webhooks", "listen", "--port", "0"]
    return subprocess.Popen(
        [*cmd, "--secret-env", "GC_TEST_WH", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_two_listeners_on_one_log_print_each_delivery_once(shared_log_url):
    procs = [listen("--delivery-log", shared_log_url) for _ in range(2)]
    try:
        urls = []
        for proc in procs:
            first = proc.stdout.readline().strip()
            assert first.startswith("gcbridge webhooks listening on http://127.0.0.1:")
            urls.append(first.rsplit(" ", 1)[1])
            assert proc.stdout.readline().startswith("de-duplicating with a ")
        body = event_body()
        ts = int(time.time() * 1000)
        first_try = delivery_headers(body, ts=ts, delivery_id="dlv-1")
        with httpx.Client(timeout=10) as http:
            ok = http.post(urls[0], content=body, headers=first_try)
            retry = delivery_headers(body, ts=ts + 1, delivery_id="dlv-1", retry=1)
            again = http.post(urls[1], content=body, headers=retry)
            forged = {**first_try, "X-Webhook-Delivery-Id": "dlv-2"}
            replay = http.post(urls[1], content=body, headers=forged)
        assert ok.status_code == 200 and ok.json() == {"ok": True}
        assert again.status_code == 200 and again.json()["duplicate"] is True
        assert replay.status_code == 401 and replay.json()["error"] == "replayed_signature"
        assert procs[0].stdout.readline().startswith("VERIFIED")
        skipped, rejected = procs[1].stdout.readline(), procs[1].stdout.readline()
        assert skipped.startswith("SKIPPED") and "duplicate" in skipped and "dlv-1" in skipped
        assert rejected.startswith("REJECTED") and "replayed_signature" in rejected
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=10)
            proc.stdout.close()
            proc.stderr.close()


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("mysql://u:hunter2@db/x", "unsupported_url"),
        ("redis://:hunter2@127.0.0.1:1/0", "delivery_log_unavailable"),
    ],
)
def test_a_bad_or_unreachable_log_is_a_clear_error(monkeypatch, capsys, url, reason):
    monkeypatch.setenv("GC_TEST_WH", SECRET)
    args = ["webhooks", "listen", "--port", "0", "--secret-env", "GC_TEST_WH"]
    assert main([*args, "--delivery-log", url]) == 1
    captured = capsys.readouterr()
    assert reason in captured.err and "hunter2" not in captured.err + captured.out
    assert "Traceback" not in captured.err
