"""``calls --follow`` shows the error and the next attempt,
honours ``--limit`` and stops with one line; ``calls --show ID`` prints a call's attempts;
call ids are accepted by unique prefix, as the README shows them shortened."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gcbridge.cli import main
from gcbridge.cli.webhooks_remote import EmulatorClient, RemoteError
from gcbridge.emulator.testing import EXAMPLE_SITE, running_emulator
from gcbridge.serving import BackgroundServer

WID = EXAMPLE_SITE.website_id
ROOT = Path(__file__).parents[2]


@pytest.fixture
def receiver():
    state = {"status": 503}

    async def hook(request: Request) -> Response:
        return Response(b'{"busy": true}', status_code=state["status"])

    server = BackgroundServer(
        lambda port: Starlette(routes=[Route("/hook", hook, methods=["POST"])])
    )
    with server:
        yield server, state


@pytest.fixture
def emulator(tmp_path, receiver, monkeypatch):
    """The default schedule: after a 503 the next attempt is a minute away (left pending)."""
    monkeypatch.setenv("GC_ACCOUNT_TOKEN", EXAMPLE_SITE.account_token)
    server, _ = receiver
    with running_emulator(tmp_path / "data") as emu:
        r = httpx.post(
            f"{emu.url}/webhook/website/{WID}/setup",
            json={"url": server.url + "/hook"},
            headers={"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"},
        )
        assert "secret" in r.json(), r.text
        yield emu


def cli(emu, command, *rest):
    return main(
        [
            "webhooks",
            command,
            "--emulator",
            emu.url,
            "--website-id",
            WID,
            "--token-env",
            "GC_ACCOUNT_TOKEN",
            *rest,
        ]
    )


def _pending_calls(emu, capsys, count):
    for _ in range(count):
        assert cli(emu, "trigger", "comment.created", "--timeout", "20") == 1
    capsys.readouterr()


def test_follow_shows_the_error_and_the_next_attempt_and_honours_limit(emulator, capsys):
    _pending_calls(emulator, capsys, 3)
    assert cli(emulator, "calls", "--follow", "--limit", "2", "--polls", "1") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("CALL") and len(lines) == 3  # the newest two of three calls
    for row in lines[1:]:
        assert " pending " in row and " 503 " in row, row
        assert "(error http_503; next attempt 20" in row, row


def test_show_prints_every_attempt_and_takes_a_prefix(emulator, capsys):
    _pending_calls(emulator, capsys, 1)
    assert cli(emulator, "calls") == 0
    call_id = capsys.readouterr().out.splitlines()[1].split()[0]
    assert cli(emulator, "calls", "--show", call_id[:6] + "…") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"call       {call_id}"
    assert any(line.startswith("next       20") for line in out)
    header = next(i for i, line in enumerate(out) if line.strip().startswith("ATTEMPT"))
    assert out[header + 1].split()[0] == "0" and " 503 " in out[header + 1]


def test_replay_takes_a_unique_prefix(emulator, receiver, capsys, tmp_path):
    _, state = receiver
    state["status"] = 410  # final: the call fails at once
    assert cli(emulator, "trigger", "comment.created") == 1
    call_id = capsys.readouterr().out.split("call ")[1].split(",")[0]
    state["status"] = 200
    assert cli(emulator, "replay", call_id[:8]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"replayed {call_id[:8]} as call ") and "status succeeded" in out
    assert cli(emulator, "replay", call_id[:8], "--no-wait") == 0
    assert "already replayed (no new delivery)" in capsys.readouterr().out


def _client(calls):
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"calls": calls, "next_cursor": None})

    return EmulatorClient("http://emu.test", WID, "t", transport=httpx.MockTransport(handler))


def test_an_ambiguous_or_unknown_prefix_is_named():
    calls = [{"id": "abcd1111" + "0" * 16, "attempts": []}, {"id": "abcd2222" + "0" * 16}]
    with pytest.raises(RemoteError) as exc:
        _client(calls).find_call("abcd")
    assert exc.value.reason == "ambiguous_id" and "abcd1111" in str(exc.value)
    assert _client(calls).find_call("abcd2")["id"].startswith("abcd2222")
    for wanted, reason in (("ffff", "call_not_found"), ("ab", "usage")):
        with pytest.raises(RemoteError) as exc:
            _client(calls).find_call(wanted)
        assert exc.value.reason == reason


def test_ctrl_c_stops_follow_with_one_line(emulator):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "harness")])}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gcbridge",
            "webhooks",
            "calls",
            "--follow",
            "--emulator",
            emulator.url,
            "--website-id",
            WID,
            "--token-env",
            "GC_ACCOUNT_TOKEN",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout.readline().startswith("CALL")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert err.splitlines() == ["gcbridge webhooks calls: stopped following (Ctrl-C)"], err
