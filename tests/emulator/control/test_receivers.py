"""Receivers on the emulator's time: EmulatorClock, ``listen --respond``, WebhookReceiver."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi import Depends, FastAPI
from fastapi.responses import JSONResponse

from gcbridge.serving import BackgroundServer, bind_socket
from gcbridge.webhooks import EmulatorClock, WebhookEvent
from gcbridge.webhooks.emulator_clock import EmulatorClockError
from gcbridge.webhooks.listen import create_app
from gcbridge.webhooks.receiver import UNAVAILABLE_RETRY_AFTER, WebhookReceiver
from gcbridge.webhooks.respond import Responder
from tests.emulator.control.support import Client


def hook_url(port: int) -> str:
    return f"http://127.0.0.1:{port}/hook"


def test_emulator_clock_follows_every_move(client: Client) -> None:
    with EmulatorClock(client.emu.url) as clock:
        first = clock.now()
        assert first * 1000 == pytest.approx(client.health()["clock"]["now"], abs=1)
        assert clock.mode == "manual"
        client.clock(action="advance", seconds=6 * 3600)
        assert clock.now() == pytest.approx(first + 6 * 3600, abs=0.002)


def test_emulator_clock_with_max_age_reuses_a_reading(client: Client) -> None:
    clock = EmulatorClock(client.emu.url, max_age=3600)
    first = clock.now()
    client.clock(action="advance", seconds=60)
    assert clock.now() == first  # the documented trade-off: stale for max_age
    clock.close()


def test_emulator_clock_errors_have_reasons() -> None:
    with pytest.raises(EmulatorClockError) as info:
        EmulatorClock("ftp://x")
    assert info.value.reason == "bad_url"
    with pytest.raises(EmulatorClockError) as info:
        EmulatorClock("http://127.0.0.1:9", timeout=2).now()
    assert info.value.reason == "emulator_clock_unavailable"


def test_listen_respond_drives_the_real_schedule_on_the_emulator_clock(
    make_client: Callable[..., Client],
) -> None:
    client = make_client(attempt_timeout=0.5)  # the timeout step costs real time
    lines: list[str] = []
    clock = EmulatorClock(client.emu.url)

    def app(port: int) -> object:
        return create_app(
            client.setup(hook_url(port)),
            out=lines.append,
            clock=clock,
            respond=Responder.parse("500,429:retry-after=120,timeout,reset,200"),
        )

    with clock, BackgroundServer(app):
        client.comment()
        client.clock(action="advance", until="idle")
    (call,) = client.calls()
    attempts = call["attempts"]
    assert [a["response_code"] for a in attempts] == [500, 429, None, None, 200]
    assert attempts[2]["error"] == "timeout"
    assert attempts[3]["error"].startswith("network_error")  # the reset
    assert call["status"] == "succeeded"
    # the fifth attempt is 4860 s of emulator time after the first: on the wall
    # clock it would be refused as timestamp_too_new; on the emulator's it is fresh
    assert lines[-1].startswith("VERIFIED")
    assert [line.split()[0] for line in lines] == ["SCRIPTED"] * 4 + ["VERIFIED"]


def test_a_fastapi_receiver_on_the_emulator_clock_accepts_a_retry_six_hours_on(
    client: Client,
) -> None:
    failures = iter(range(5))  # the handler fails five times, then works
    clock = EmulatorClock(client.emu.url)

    def app(port: int) -> FastAPI:
        receiver = WebhookReceiver(client.setup(hook_url(port)), clock=clock)
        api = FastAPI(exception_handlers=receiver.exception_handlers)

        @api.post("/hook")
        def hook(event: WebhookEvent = Depends(receiver)) -> JSONResponse:  # noqa: B008
            if next(failures, None) is not None:
                return JSONResponse({"error": "try again"}, status_code=500)
            return JSONResponse({"ok": True})

        return api

    with clock, BackgroundServer(app):
        client.comment()
        client.clock(action="advance", until="idle")
    (call,) = client.calls()
    assert call["status"] == "succeeded"
    assert [a["response_code"] for a in call["attempts"]] == [500] * 5 + [200]


def test_on_the_wall_clock_the_same_retry_is_refused_as_too_new(client: Client) -> None:
    lines: list[str] = []

    def app(port: int) -> object:
        return create_app(
            client.setup(hook_url(port)),
            out=lines.append,
            respond=Responder.parse("500,500,500,200"),
        )

    with BackgroundServer(app):
        client.comment()
        client.clock(action="advance", until="idle")
    (call,) = client.calls()
    # the fourth attempt is 1260 s after the first: beyond the 300 s window of the wall
    assert [a["response_code"] for a in call["attempts"]] == [500, 500, 500, 401]
    assert "timestamp_too_new" in lines[-1]


@contextlib.contextmanager
def _silent_emulator(kind: str) -> Iterator[tuple[str, socket.socket | None]]:
    """The URL of an emulator that stopped answering: its port refused, or hanging (it
    accepts connections, the backlog of a socket never served, and never answers)."""
    sock = bind_socket()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    if kind == "refused":
        sock.close()
        yield url, None
        return
    try:
        yield url, sock
    finally:
        sock.close()


@pytest.mark.parametrize("kind", ["refused", "hanging"])
def test_listen_answers_503_when_its_emulator_stopped_answering(kind: str) -> None:
    import time

    from gcbridge.webhooks.testing import encode_event, sample_event, signed_headers

    lines: list[str] = []
    with _silent_emulator(kind) as (url, _):
        clock = EmulatorClock(url, timeout=0.3)
        app = create_app("whsec_clock", out=lines.append, clock=clock)
        with BackgroundServer(lambda port: app) as server:
            body = encode_event(sample_event())
            headers = signed_headers("whsec_clock", body, timestamp_ms=int(time.time() * 1000))
            response = httpx.post(server.url + "/hook", content=body, headers=headers, timeout=30)
    # as for a delivery log it cannot reach: the service retries later
    assert response.status_code == 503, response.text
    assert response.json()["error"] == "emulator_clock_unavailable"
    assert response.headers["retry-after"] == str(UNAVAILABLE_RETRY_AFTER)
    assert lines[0].split()[:2] == ["SKIPPED", "emulator_clock_unavailable"]


def test_an_emulator_that_does_not_answer_is_asked_once() -> None:
    with _silent_emulator("hanging") as (url, sock):
        assert sock is not None
        with pytest.raises(EmulatorClockError) as info:
            EmulatorClock(url, timeout=0.3).now()
        sock.setblocking(False)
        connections = []
        with contextlib.suppress(BlockingIOError):
            while True:
                connections.append(sock.accept()[0])
        for conn in connections:
            conn.close()
    assert info.value.reason == "emulator_clock_unavailable"
    assert "no answer in time" in str(info.value)
    assert len(connections) == 1  # not a second wait as long on a new connection


def test_the_emulator_clock_waits_a_short_documented_time() -> None:
    import inspect

    from gcbridge.webhooks.emulator_clock import DEFAULT_TIMEOUT

    default = inspect.signature(EmulatorClock).parameters["timeout"].default
    assert default == DEFAULT_TIMEOUT <= 2.0
