"""The manual clock moves a delivery through the production retry schedule (contract: advance)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import format_datetime

from ctl_support import Client, Receiver, Reply

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
