"""``listen --respond``: the steps read, and answered in order on a real connection."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from gcbridge.serving import BackgroundServer
from gcbridge.webhooks.errors import RespondStepsError
from gcbridge.webhooks.listen import create_app
from gcbridge.webhooks.respond import Responder, Step, parse_steps, perform
from gcbridge.webhooks.signature import RETRY_COUNT_HEADER
from gcbridge.webhooks.testing import encode_event, sample_event, signed_headers

SECRET = "whsec_respond"


@pytest.mark.parametrize(
    "text,steps",
    [
        ("500", (Step("status", 500),)),
        (
            "500,429:retry-after=120,timeout,reset,200",
            (
                Step("status", 500),
                Step("status", 429, 120),
                Step("timeout"),
                Step("reset"),
                Step("status", 200),
            ),
        ),
        (" 503:Retry-After=0 , 410 ", (Step("status", 503, 0), Step("status", 410))),
    ],
)
def test_steps_are_read(text: str, steps: tuple[Step, ...]) -> None:
    assert parse_steps(text) == steps


@pytest.mark.parametrize(
    "text",
    [
        "",
        "500,",
        ",200",
        "99",
        "600",
        "abc",
        "429:retry-after=",
        "429:retry-after=-1",
        "429:retry-after=1.5",
        "429:delay=3",
        "2OO",
        "500;200",
        "²00",
        "100",
        "101",
        "199",
        "304",
        "103:retry-after=5",
        "500,304,200",
    ],
)
def test_bad_steps_are_refused_with_a_reason(text: str) -> None:
    with pytest.raises(RespondStepsError) as info:
        parse_steps(text)
    assert info.value.reason == "bad_respond_steps"


def test_the_last_step_repeats() -> None:
    responder = Responder.parse("500,200")
    assert [str(responder.next()) for _ in range(4)] == ["500", "200", "200", "200"]


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    lines: list[str] = []
    app = create_app(
        SECRET,
        out=lines.append,
        respond=Responder.parse("500,429:retry-after=120,timeout,reset,410,200"),
    )
    with BackgroundServer(lambda port: app) as server:
        yield server.url + "/hook", lines


def _post(url: str, retry: int, timeout: float = 10.0) -> httpx.Response:
    import time

    body = encode_event(sample_event())
    headers = signed_headers(SECRET, body, timestamp_ms=int(time.time() * 1000))
    headers[RETRY_COUNT_HEADER] = str(retry)
    headers["Content-Type"] = "application/json"
    with httpx.Client(timeout=timeout) as client:
        return client.post(url, content=body, headers=headers)


def test_listen_answers_deliveries_in_the_scripted_order(
    listener: tuple[str, list[str]],
) -> None:
    url, lines = listener
    assert _post(url, 0).status_code == 500
    second = _post(url, 1)
    assert (second.status_code, second.headers["retry-after"]) == (429, "120")
    with pytest.raises(httpx.ReadTimeout):  # no answer: the sender gives up
        _post(url, 2, timeout=0.5)
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):  # closed, no answer
        _post(url, 3)
    assert _post(url, 4).status_code == 410
    ok = _post(url, 5)
    assert ok.status_code == 200 and ok.json() == {"ok": True}  # verified as usual
    assert _post(url, 6).status_code == 200  # the last step repeats
    assert [line.split()[:2] for line in lines[:5]] == [
        ["SCRIPTED", "500"],
        ["SCRIPTED", "429:retry-after=120"],
        ["SCRIPTED", "timeout"],
        ["SCRIPTED", "reset"],
        ["SCRIPTED", "410"],
    ]
    assert lines[5].startswith("VERIFIED")


def _listen_refused(*options: str) -> subprocess.CompletedProcess[str]:
    """``webhooks listen --port 0 --secret s OPTIONS``, expected to stop before listening."""
    return subprocess.run(
        [sys.executable, "-m", "gcbridge", "webhooks", "listen", "--port", "0", "--secret", "s"]
        + list(options),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_listen_refuses_bad_steps_before_listening() -> None:
    result = _listen_refused("--respond", "500,700")
    assert result.returncode == 1
    assert "[bad_respond_steps]" in result.stderr
    assert "listening" not in result.stdout


@pytest.mark.parametrize("steps", ["", "100", "304"])
def test_listen_refuses_empty_or_unsendable_steps_in_one_line(steps: str) -> None:
    result = _listen_refused("--respond", steps)
    assert result.returncode == 1
    assert "[bad_respond_steps]" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "listening" not in result.stdout


@pytest.mark.parametrize("steps", ["204:retry-after=3", "205:retry-after=1"])
def test_a_bodyless_status_with_retry_after_is_sent_without_a_body(steps: str) -> None:
    # a body under 204 makes the server fail mid-answer ("Too much data for declared
    # Content-Length"), though the client has its status already
    step = parse_steps(steps)[0]
    scripted = asyncio.run(perform(step, request=None))
    assert (scripted.status_code, scripted.body) == (step.status, b"")
    app = create_app(SECRET, out=lambda line: None, respond=Responder((step,)))
    with BackgroundServer(lambda port: app) as server:
        response = _post(server.url + "/hook", 0)
    assert response.status_code == step.status
    assert response.headers["retry-after"] == str(step.retry_after)
    assert response.content == b""


def test_listen_refuses_an_emulator_that_does_not_answer() -> None:
    from gcbridge.serving import bind_socket

    sock = bind_socket()  # a port that accepts nothing (listen backlog, never served)
    port = sock.getsockname()[1]
    sock.close()
    result = _listen_refused("--emulator", f"http://127.0.0.1:{port}")
    assert result.returncode == 1
    assert "[emulator_clock_unavailable]" in result.stderr
