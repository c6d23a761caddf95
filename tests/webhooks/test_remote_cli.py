"""gcbridge webhooks trigger | calls | replay against a real running emulator and receiver."""

from __future__ import annotations

import json
import re

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gcbridge.cli import main
from gcbridge.emulator.testing import EXAMPLE_SITE, running_emulator
from gcbridge.serving import BackgroundServer
from gcbridge.webhooks import EVENT_TYPES

WID = EXAMPLE_SITE.website_id


class Receiver:
    """Answers ``status`` to every POST and records the event types it got."""

    def __init__(self) -> None:
        self.status = 200
        self.events: list[str] = []

        async def hook(request: Request) -> Response:
            self.events.append(json.loads(await request.body())["event_type"])
            return Response(b"{}", status_code=self.status)

        self.server = BackgroundServer(
            lambda port: Starlette(routes=[Route("/hook", hook, methods=["POST"])])
        )


@pytest.fixture
def receiver():
    rcv = Receiver()
    with rcv.server:
        yield rcv


@pytest.fixture
def emulator(tmp_path, receiver, monkeypatch):
    monkeypatch.setenv("GC_ACCOUNT_TOKEN", EXAMPLE_SITE.account_token)
    with running_emulator(tmp_path / "data", retry_schedule=(0.0,)) as emu:
        import httpx

        r = httpx.post(
            f"{emu.url}/webhook/website/{WID}/setup",
            json={"url": receiver.server.url + "/hook"},
            headers={"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"},
        )
        assert "secret" in r.json(), r.text
        yield emu


def cli(emu, *args):
    return main(
        [
            "webhooks",
            *args[:1],
            "--emulator",
            emu.url,
            "--website-id",
            WID,
            "--token-env",
            "GC_ACCOUNT_TOKEN",
            *args[1:],
        ]
    )


@pytest.mark.parametrize("event", EVENT_TYPES)
def test_trigger_fires_a_real_event_and_prints_its_delivery(emulator, receiver, capsys, event):
    assert cli(emulator, "trigger", event) == 0
    out = capsys.readouterr().out
    assert f"fired {event}" in out
    assert "status succeeded, response 200" in out
    assert event in receiver.events
    assert EXAMPLE_SITE.account_token not in out


def test_a_failed_delivery_exits_1_then_calls_lists_it_and_replay_delivers_it(
    emulator, receiver, capsys
):
    receiver.status = 500
    assert cli(emulator, "trigger", "comment.created") == 1
    out = capsys.readouterr().out
    assert "status failed, response 500" in out
    call_id = re.search(r"^call (\S+), delivery ", out, re.M).group(1)

    assert cli(emulator, "calls", "--status", "failed") == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:4] == ["CALL", "EVENT", "STATUS", "CODE"]
    assert any(row.startswith(call_id) and " failed " in row and " 500 " in row for row in table)
    assert cli(emulator, "calls", "--status", "succeeded") == 0
    assert "(no calls)" in capsys.readouterr().out

    receiver.status = 200
    assert cli(emulator, "replay", call_id) == 0
    out = capsys.readouterr().out
    assert f"replayed {call_id} as call " in out
    assert "status succeeded, response 200" in out
    assert receiver.events == ["comment.created", "comment.created"]

    # Only a failed call can be replayed: the emulator's refusal, exit 1.
    new_id = out.split(" as call ")[1].split()[0]
    assert cli(emulator, "replay", new_id) == 1
    assert "only a failed call can be replayed" in capsys.readouterr().err


@pytest.mark.parametrize("given", ["full id", "prefix"])
def test_replay_needs_no_website_id_the_account_token_names_the_site(
    emulator, receiver, capsys, given
):
    receiver.status = 500
    assert cli(emulator, "trigger", "comment.created") == 1
    call_id = re.search(r"^call (\S+), delivery ", capsys.readouterr().out, re.M).group(1)
    receiver.status = 200
    wanted = call_id if given == "full id" else call_id[:10]
    argv = ["webhooks", "replay", "--emulator", emulator.url, "--token-env", "GC_ACCOUNT_TOKEN"]
    assert main([*argv, wanted]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert f"replayed {wanted} as call " in out
    assert "status succeeded, response 200" in out


def test_calls_follow_streams_new_attempts(emulator, capsys):
    assert cli(emulator, "trigger", "comment.created") == 0
    capsys.readouterr()
    assert cli(emulator, "calls", "--follow", "--polls", "2", "--interval", "0.01") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("CALL") and len(lines) == 2  # one call, printed once
    assert "comment.created" in lines[1] and "succeeded" in lines[1]


def test_wrong_token_is_exit_1_and_unreachable_is_exit_2(emulator, monkeypatch, capsys):
    monkeypatch.setenv("GC_ACCOUNT_TOKEN", "not-the-token")
    assert cli(emulator, "calls") == 1
    err = capsys.readouterr().err
    assert "[bad_token]" in err and "not-the-token" not in err
    monkeypatch.setenv("GC_ACCOUNT_TOKEN", EXAMPLE_SITE.account_token)
    assert (
        main(
            [
                "webhooks",
                "calls",
                "--emulator",
                "http://127.0.0.1:9",
                "--website-id",
                WID,
                "--token-env",
                "GC_ACCOUNT_TOKEN",
            ]
        )
        == 2
    )
    assert "[unreachable]" in capsys.readouterr().err


def test_token_of_another_site_is_refused_by_name(emulator, capsys):
    assert (
        main(
            [
                "webhooks",
                "calls",
                "--emulator",
                emulator.url,
                "--website-id",
                "0" * 24,
                "--token-env",
                "GC_ACCOUNT_TOKEN",
            ]
        )
        == 1
    )
    assert "[wrong_site]" in capsys.readouterr().err


def test_a_delivery_left_for_a_retry_is_exit_1_with_its_next_attempt(
    tmp_path, receiver, monkeypatch, capsys
):
    monkeypatch.setenv("GC_ACCOUNT_TOKEN", EXAMPLE_SITE.account_token)
    receiver.status = 503
    with running_emulator(tmp_path / "default-schedule") as emu:
        import httpx

        httpx.post(
            f"{emu.url}/webhook/website/{WID}/setup",
            json={"url": receiver.server.url + "/hook"},
            headers={"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"},
        )
        assert cli(emu, "trigger", "comment.created") == 1
    out = capsys.readouterr().out
    assert "status pending, response 503" in out and "next attempt " in out
