"""gcbridge webhooks sign | verify | listen (a real signed POST on loopback)."""

import os
import subprocess
import sys
import time

import httpx
import pytest

from gcbridge.cli import main
from gcbridge.webhooks import sign
from tests.webhooks.support import SECRET, TS, delivery_headers, event_body


@pytest.fixture
def body_file(tmp_path):
    path = tmp_path / "body.json"
    path.write_bytes(event_body())
    return path


def test_sign_prints_the_headers(monkeypatch, capsys, body_file):
    monkeypatch.setenv("GC_TEST_WH", SECRET)
    assert (
        main(
            [
                "webhooks",
                "sign",
                "--secret-env",
                "GC_TEST_WH",
                "--timestamp",
                str(TS),
                str(body_file),
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"X-Webhook-Timestamp: {TS}",
        f"X-Webhook-Signature: {sign(SECRET, TS, event_body())}",
    ]


def test_verify_valid_and_invalid(monkeypatch, capsys, body_file):
    monkeypatch.setenv("GC_TEST_WH", SECRET)
    good = sign(SECRET, TS, event_body())
    args = ["webhooks", "verify", "--secret-env", "GC_TEST_WH", "--timestamp", str(TS)]
    assert main([*args, "--signature", good, str(body_file)]) == 0
    assert capsys.readouterr().out.strip() == "valid"
    assert main([*args, "--signature", "0" * 64, str(body_file)]) == 1
    assert capsys.readouterr().err.startswith("invalid: signature_mismatch")
    assert main([*args, "--signature", good, "--check-time", str(body_file)]) == 1
    assert capsys.readouterr().err.startswith("invalid: timestamp_too_old")


def test_unset_env_and_unreadable_file(monkeypatch, capsys, tmp_path):
    monkeypatch.delenv("GC_TEST_WH", raising=False)
    assert (
        main(["webhooks", "sign", "--secret-env", "GC_TEST_WH", "--timestamp", "1", str(tmp_path)])
        == 1
    )
    assert "GC_TEST_WH" in capsys.readouterr().err
    monkeypatch.setenv("GC_TEST_WH", SECRET)
    assert (
        main(
            [
                "webhooks",
                "sign",
                "--secret-env",
                "GC_TEST_WH",
                "--timestamp",
                "1",
                str(tmp_path / "nope"),
            ]
        )
        == 1
    )
    assert "file_unreadable" in capsys.readouterr().err


def test_listen_verifies_and_prints_a_real_signed_post():
    env = {**os.environ, "GC_TEST_WH": SECRET, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gcbridge",
            "webhooks",
            "listen",
            "--port",
            "0",
            "--secret-env",
            "GC_TEST_WH",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        first = proc.stdout.readline().strip()
        assert first.startswith("gcbridge webhooks listening on http://127.0.0.1:")
        url = first.rsplit(" ", 1)[1]
        body = event_body(content="Looks great,\n ship it")
        ts = int(time.time() * 1000)
        with httpx.Client(base_url=url, timeout=10) as http:
            ok = http.post(
                "/any/path",
                content=body,
                headers=delivery_headers(body, ts=ts, delivery_id="dlv-9", retry=2),
            )
            bad = http.post(
                "/", content=body, headers=delivery_headers(body, ts=ts, secret="wrong")
            )
        assert ok.status_code == 200
        assert bad.status_code == 401 and bad.json()["error"] == "signature_mismatch"
        verified, rejected = proc.stdout.readline(), proc.stdout.readline()
        assert verified.startswith("VERIFIED")
        for part in (
            "comment.created",
            "delivery=dlv-9",
            "retry=2",
            "'ada'",
            "Looks great, ship it",
        ):
            assert part in verified
        assert rejected.startswith("REJECTED") and "signature_mismatch" in rejected
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()
        proc.stderr.close()


def test_sign_without_a_timestamp_signs_now(monkeypatch, capsys, tmp_path):
    """`webhooks sign` has a "now" default, the time it signs at."""
    import gcbridge.cli.webhooks_cmd as cmd
    from gcbridge.webhooks import verify_signature

    monkeypatch.setenv("GC_TEST_WH", SECRET)
    body = tmp_path / "body.json"
    body.write_bytes(b'{"x":1}')
    monkeypatch.setattr(cmd, "_now_ms", lambda: 1_800_000_000_123)
    assert main(["webhooks", "sign", "--secret-env", "GC_TEST_WH", str(body)]) == 0
    out = capsys.readouterr()
    headers = dict(line.split(": ", 1) for line in out.out.strip().splitlines())
    assert headers["X-Webhook-Timestamp"] == "1800000000123"
    assert "looks like seconds" not in out.err
    verify_signature(SECRET, b'{"x":1}', headers, now=1_800_000_000.123)
