"""The manual clock moves a delivery through the production retry schedule (contract: advance)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from email.utils import format_datetime

import httpx
import pytest
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gcbridge.serving import BackgroundServer
from tests.emulator.control.support import Client, Receiver, Reply

DEADLINE = 10.0

SCHEDULE_GAPS_MS = [60_000, 300_000, 900_000, 3_600_000, 21_600_000]


def gaps(values: list[int]) -> list[int]:
    return [b - a for a, b in zip(values, values[1:], strict=False)]


def test_500_every_time_runs_the_six_attempts_at_their_due_times(
    client: Client, make_receiver: Callable[..., Receiver]
) -> None:
    rcv = make_receiver(Reply(500))
    client.setup(rcv.url)
    start_ms = client.health()["clock"]["now"]
    client.comment()  # the first attempt is due "immediately": it runs as usual
    # an advance by 0 s answers once what is due now has been made and journaled
    client.clock(action="advance", seconds=0)
    assert client.calls()[0]["attempts"]
    assert len(rcv.got) == 1

    answer = client.clock(action="advance", until="idle")

    assert answer["attempts"] == 5
    assert answer["mode"] == "manual"
    assert len(rcv.got) == 6
    assert rcv.retry_counts() == [0, 1, 2, 3, 4, 5]
    stamps = rcv.timestamps()
    assert gaps(stamps) == SCHEDULE_GAPS_MS
    assert stamps[0] == start_ms
    # the clock stops at the last attempt; the journal says the same times
    assert answer["now"] == stamps[-1]
    (call,) = client.calls()
    assert call["status"] == "failed"
    assert call["retry_count"] == 5
    assert len({g.headers["x-webhook-first-sent-at"] for g in rcv.got}) == 1
    assert client.health()["dispatcher"] == {"pending": 0, "next_due_at": None}


def test_retry_after_120_moves_the_next_attempt_to_the_300_s_slot(
    client: Client, make_receiver: Callable[..., Receiver]
) -> None:
    rcv = make_receiver(Reply(429, {"Retry-After": "120"}), Reply(200))
    client.setup(rcv.url)
    client.comment()
    client.clock(action="advance", seconds=0)
    first = rcv.timestamps()[0]
    health = client.health()
    assert health["dispatcher"]["next_due_at"] == first + 300_000

    # 299 s: nothing is due yet
    assert client.clock(action="advance", seconds=299)["attempts"] == 0
    assert len(rcv.got) == 1
    answer = client.clock(action="advance", seconds=1)
    assert answer["attempts"] == 1
    assert rcv.timestamps()[1] - first == 300_000
    assert client.calls()[0]["status"] == "succeeded"


def test_retry_after_as_an_http_date_is_read_on_the_emulator_clock(
    client: Client, make_receiver: Callable[..., Receiver]
) -> None:
    # The receiver's date is two minutes after the *emulator's* now: on the wall clock
    # it could be anything; the emulator must read it against its own time.
    client.clock(action="advance", seconds=3 * 24 * 3600)  # far from the wall
    now_s = client.health()["clock"]["now"] / 1000
    date = format_datetime(datetime.fromtimestamp(now_s + 120, tz=UTC), usegmt=True)
    rcv = make_receiver(Reply(503, {"Retry-After": date}), Reply(200))
    client.setup(rcv.url)
    client.comment()
    client.clock(action="advance", until="idle")
    assert gaps(rcv.timestamps()) == [300_000]


def test_an_advance_by_seconds_runs_only_what_falls_due_in_the_window(
    client: Client, make_receiver: Callable[..., Receiver]
) -> None:
    rcv = make_receiver(Reply(500))
    client.setup(rcv.url)
    before = client.health()["clock"]["now"]
    client.comment()
    client.clock(action="advance", seconds=0)
    answer = client.clock(action="advance", seconds=400)  # at 60 s and at 360 s
    assert answer["attempts"] == 2
    assert answer["now"] == before + 400_000
    assert gaps(rcv.timestamps()) == [60_000, 300_000]
    assert client.health()["dispatcher"]["next_due_at"] == rcv.timestamps()[-1] + 900_000


def test_freeze_and_resume(make_client: Callable[..., Client]) -> None:
    client = make_client(clock_mode="system")
    assert client.health()["clock"]["mode"] == "system"
    frozen = client.clock(action="freeze")
    assert frozen["mode"] == "manual"
    assert client.control("GET", "/clock")["now"] == frozen["now"]
    client.clock(action="advance", seconds=3600)
    resumed = client.clock(action="resume")
    assert resumed["mode"] == "system"
    assert resumed["now"] >= frozen["now"] + 3_600_000  # keeps running, ahead of the wall


def test_bad_clock_requests_are_refused_with_a_reason(client: Client) -> None:
    for body in (
        {"action": "rewind"},
        {"action": "advance", "seconds": -1},
        {"action": "advance", "seconds": "6h"},
        {"action": "advance", "seconds": 31 * 24 * 3600},
        {},
    ):
        r = client.http.post("/_emulator/clock", json=body, headers=client.admin)
        assert r.status_code == 400, body
        assert r.json()["error"] in ("invalid_action", "invalid_parameter")


def test_an_advance_on_a_running_clock_keeps_the_schedule_and_order(
    make_client: Callable[..., Client], make_receiver: Callable[..., Receiver]
) -> None:
    client = make_client(clock_mode="system")
    rcv = make_receiver(Reply(500))
    client.setup(rcv.url)
    client.comment()
    answer = client.clock(action="advance", until="idle")
    assert answer["mode"] == "system"  # still running, now ahead of the wall
    assert rcv.retry_counts() == [0, 1, 2, 3, 4, 5]
    # a running clock moves on while an attempt is made: never earlier than due
    for gap, due in zip(gaps(rcv.timestamps()), SCHEDULE_GAPS_MS, strict=True):
        assert gap >= due
    assert client.calls()[0]["status"] == "failed"


def test_an_advance_never_hangs_on_a_dead_dispatcher(client: Client) -> None:
    dispatcher = client.emu.app.state.control.dispatcher
    loop = dispatcher._loop
    loop.call_soon_threadsafe(dispatcher._task.cancel)  # as if the scheduler had crashed
    r = client.http.post(
        "/_emulator/clock", json={"action": "advance", "seconds": 60}, headers=client.admin
    )
    assert (r.status_code, r.json()["error"]) == (503, "dispatcher_stopped")


class HangingReceiver:
    """A receiver that never answers (until the test ends): every attempt to it hangs."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.release = threading.Event()

        async def hook(request: Request) -> Response:
            self.arrived.set()
            await run_in_threadpool(self.release.wait, DEADLINE * 6)
            return Response(b"{}")

        self.server = BackgroundServer(
            lambda port: Starlette(routes=[Route("/hook", hook, methods=["POST"])])
        )

    @property
    def url(self) -> str:
        return self.server.url + "/hook"


@pytest.fixture
def hanging() -> Iterator[HangingReceiver]:
    rcv = HangingReceiver()
    rcv.server.start()
    yield rcv
    rcv.release.set()
    rcv.server.stop()


@pytest.fixture
def advancing(
    make_client: Callable[..., Client], hanging: HangingReceiver, monkeypatch: pytest.MonkeyPatch
) -> tuple[Client, threading.Event]:
    """An emulator whose attempts hang for a minute, and an event: an advance holds the control."""
    client = make_client(attempt_timeout=60)
    control = client.emu.app.state.control
    holding = threading.Event()
    settle = control._settle

    async def settle_noting_the_advance() -> None:
        holding.set()  # called only by an advance, under the control's lock
        await settle()

    monkeypatch.setattr(control, "_settle", settle_noting_the_advance)
    client.setup(hanging.url)
    client.comment()  # its first attempt is due now, and hangs
    assert hanging.arrived.wait(DEADLINE)
    return client, holding


def _advance_request(client: Client) -> bytes:
    body = json.dumps({"action": "advance", "until": "idle"}).encode()
    host = client.emu.url.removeprefix("http://")
    head = (
        f"POST /_emulator/clock HTTP/1.1\r\nHost: {host}\r\n"
        f"Authorization: Bearer {client.emu.admin_token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def _reset_within_the_deadline(client: Client) -> dict[str, object]:
    with httpx.Client(base_url=client.emu.url, timeout=DEADLINE) as http:
        r = http.post("/_emulator/reset", headers=client.admin)
    assert r.status_code == 200, r.text
    answer: dict[str, object] = r.json()
    return answer


def test_an_advance_whose_client_disconnected_stops_and_lets_the_control_go(
    advancing: tuple[Client, threading.Event],
) -> None:
    client, holding = advancing
    host, port = client.emu.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=DEADLINE) as sock:
        sock.sendall(_advance_request(client))
        assert holding.wait(DEADLINE), "the advance never started"
    # the client is gone while the advance waits on the hanging attempt: the advance
    # stops and lets the control go, for a freeze (which interrupts nothing) as for a reset
    with httpx.Client(base_url=client.emu.url, timeout=DEADLINE) as http:
        r = http.post("/_emulator/clock", json={"action": "freeze"}, headers=client.admin)
    assert r.status_code == 200, r.text
    assert _reset_within_the_deadline(client)["reset"] is True
    assert client.calls() == []


def test_a_reset_interrupts_an_advance_under_way(
    advancing: tuple[Client, threading.Event],
) -> None:
    client, holding = advancing
    with (
        httpx.Client(base_url=client.emu.url, timeout=DEADLINE) as http,
        ThreadPoolExecutor(1) as pool,
    ):
        advance = pool.submit(
            http.post,
            "/_emulator/clock",
            json={"action": "advance", "until": "idle"},
            headers=client.admin,
        )
        assert holding.wait(DEADLINE), "the advance never started"

        assert _reset_within_the_deadline(client)["reset"] is True

        r = advance.result(DEADLINE)
    assert (r.status_code, r.json()["error"]) == (409, "advance_interrupted")
