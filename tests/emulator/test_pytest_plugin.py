"""The ``gc_emulator`` pytest fixture, run the way a customer's suite runs it (pytester)."""

from __future__ import annotations

import pytest

from gcbridge.emulator.pytest_plugin import parse_duration

pytest_plugins = ["pytester"]

CUSTOMER_SUITE = """
import httpx
from fastapi import Depends, FastAPI
from fastapi.responses import JSONResponse

from gcbridge.serving import BackgroundServer
from gcbridge.webhooks import WebhookEvent
from gcbridge.webhooks.receiver import WebhookReceiver

received = []


def start_receiver(gc_emulator, fail_times):
    failures = iter(range(fail_times))

    def app(port):
        secret = gc_emulator.setup_webhook(f"http://127.0.0.1:{port}/hook")
        receiver = WebhookReceiver(secret, clock=gc_emulator.clock)
        api = FastAPI(exception_handlers=receiver.exception_handlers)

        @api.post("/hook")
        def hook(event: WebhookEvent = Depends(receiver)):
            received.append(event.timestamp)
            if next(failures, None) is not None:
                return JSONResponse({"error": "down"}, status_code=503)
            return {"ok": True}

        return api

    return BackgroundServer(app).start()


def comment(gc_emulator, text):
    http = gc_emulator.http
    token = http.post("/api/pub/auth/register", json={
        "website_id": gc_emulator.shortname, "username": "bob",
        "email": "bob@example.com", "password": "correct horse battery staple",
    }).json()["token"]
    r = http.post("/api/pub/comments", json={
        "website_id": gc_emulator.shortname, "uid": "p1", "url": "https://x.example/p1",
        "page_title": "P1", "content": text,
    }, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201, r.text


def test_first_retries_through_six_hours(gc_emulator):
    server = start_receiver(gc_emulator, fail_times=4)
    try:
        comment(gc_emulator, "hello")
        gc_emulator.settle()
        assert len(gc_emulator.calls()[0]["attempts"]) == 1
        answer = gc_emulator.advance("6h")
        assert answer["attempts"] == 4
        (call,) = gc_emulator.calls()
        assert call["status"] == "succeeded" and call["retry_count"] == 4
    finally:
        server.stop()


def test_second_starts_from_a_reset_and_restores_a_snapshot(gc_emulator):
    assert gc_emulator.calls() == []
    assert gc_emulator.health()["clock"]["mode"] == "manual"
    server = start_receiver(gc_emulator, fail_times=100)
    try:
        comment(gc_emulator, "kept")
        gc_emulator.settle()
        name = gc_emulator.snapshot()
        gc_emulator.advance_until_idle()
        assert gc_emulator.calls()[0]["status"] == "failed"
        gc_emulator.restore(name)
        assert gc_emulator.calls()[0]["status"] == "pending"
    finally:
        server.stop()


def test_credentials(gc_emulator):
    assert len(gc_emulator.website_id) == 24
    assert gc_emulator.account_token and gc_emulator.sso_secret and gc_emulator.sso_public_key
    assert gc_emulator.url.startswith("http://127.0.0.1:")
    before = gc_emulator.now()
    gc_emulator.advance(90)
    assert gc_emulator.clock.now() == before + 90
"""


def _plugin() -> list[str]:
    """``-p`` for the plugin unless the installed package's entry point loads it already."""
    from importlib.metadata import entry_points

    installed = {ep.name for ep in entry_points(group="pytest11")}
    return [] if "gcbridge_emulator" in installed else ["-p", "gcbridge.emulator.pytest_plugin"]


def test_a_customer_suite_uses_the_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_customer=CUSTOMER_SUITE)
    result = pytester.runpytest_subprocess(*_plugin(), "-q")
    result.assert_outcomes(passed=3)


@pytest.mark.parametrize(
    "text,seconds",
    [
        (90, 90.0),
        ("90", 90.0),
        ("90s", 90.0),
        ("5m", 300.0),
        ("6h", 21600.0),
        ("1d", 86400.0),
        ("1h30m", 5400.0),
        ("0.5s", 0.5),
    ],
)
def test_durations(text: str | int, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "6x", "h", "1h 30m", "-5", "six hours"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_the_plugin_loads_without_the_emulator_extra() -> None:
    # pytest loads the plugin in every suite of a project that installs gc-bridge:
    # without FastAPI, uvicorn or httpx it must still import (the fixture needs them).
    import subprocess
    import sys

    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('fastapi', 'uvicorn', 'httpx', 'starlette'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import gcbridge.emulator.pytest_plugin\n"
        "import gcbridge.webhooks.respond, gcbridge.webhooks.emulator_clock\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


SITES_TOML = """
[[site]]
shortname = "acme"
website_id = "aaaaaaaaaaaaaaaaaaaaaaaa"
sso_public_key = "pk_acme"
sso_secret = "acme-sso-secret-0123456789"
account_token = "acme-account-token"
site_key_id = "sk_acme"
site_key_secret = "acme-site-key-secret"
"""


def test_the_fixture_takes_the_projects_sites_file(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", sites=SITES_TOML)
    pytester.makeini("[pytest]\ngc_emulator_sites = sites.toml\n")
    pytester.makepyfile(
        test_sites="""
def test_site(gc_emulator):
    assert gc_emulator.shortname == "acme"
    assert gc_emulator.website_id == "a" * 24
    assert gc_emulator.account_token == "acme-account-token"
"""
    )
    result = pytester.runpytest_subprocess(*_plugin(), "-q")
    result.assert_outcomes(passed=1)
