"""DeliveryLog on every backend (SQLite, PostgreSQL, Redis against real servers): one suite.

Claims are leases: held while the handler runs, released on failure, taken over
after the lease; processed ids are duplicates for the retention; signatures are
remembered for the tolerance window; an outage is DeliveryLogUnavailable.
"""

import sys
import threading

import pytest

from gcbridge.clock import ManualClock
from gcbridge.webhooks import DeliveryLog, WebhookReplayError
from gcbridge.webhooks.errors import DeliveryLogUnavailable

T = 1_700_000_000.0
TS = int(T * 1000)


@pytest.fixture
def open_log(shared_log_url):
    """Open logs on the backend under test (several = several instances); closed after."""
    logs = []

    def make(**kw):
        kw.setdefault("clock", ManualClock(start=T))
        log = DeliveryLog.from_url(shared_log_url, **kw)
        logs.append(log)
        return log

    yield make
    for log in logs:
        log.close()


def test_claim_complete_then_duplicate(open_log):
    log = open_log()
    claim = log.acquire("d1", "aa" * 32, TS)
    assert claim.status == "new"
    assert log.state("d1") == "in_flight"
    log.complete(claim)
    assert log.state("d1") == "processed"
    assert log.acquire("d1", "bb" * 32, TS + 60_000).status == "duplicate"


def test_in_flight_copy_is_not_a_duplicate_and_failure_lets_the_retry_in(open_log):
    clock = ManualClock(start=T)
    a, b = open_log(clock=clock), open_log(clock=clock)  # two instances, one log
    first = a.acquire("d1", "aa" * 32, TS)
    assert first.status == "new"
    assert b.acquire("d1", "bb" * 32, TS + 1000).status == "in_flight"
    a.release(first)  # the first handler failed
    retry = b.acquire("d1", "cc" * 32, TS + 60_000)
    assert retry.status == "new"
    b.complete(retry)
    assert a.acquire("d1", "dd" * 32, TS + 120_000).status == "duplicate"


def test_a_dead_instances_claim_is_taken_over_after_the_lease(open_log):
    clock = ManualClock(start=T)
    dead, alive = open_log(clock=clock, lease=30), open_log(clock=clock, lease=30)
    old = dead.acquire("d1", "aa" * 32, TS)
    assert old.status == "new"  # ... and its process dies
    clock.advance(30)
    assert alive.acquire("d1", "bb" * 32, TS + 30_000).status == "in_flight"
    clock.advance(1)
    new = alive.acquire("d1", "cc" * 32, TS + 31_000)
    assert new.status == "new"
    dead.release(old)  # a late release of the old claim leaves the new owner's alone
    assert alive.state("d1") == "in_flight"
    alive.complete(new)
    assert dead.state("d1") == "processed"


def test_captured_signature_under_a_new_id_is_refused_everywhere(open_log):
    a, b = open_log(), open_log()
    claim = a.acquire("d1", "aa" * 32, TS)
    assert claim.status == "new"
    with pytest.raises(WebhookReplayError) as info:
        b.acquire("forged", "AA" * 32, TS)
    assert info.value.reason == "replayed_signature"
    assert b.state("forged") is None
    a.release(claim)  # a failed handler: its signature stays remembered
    with pytest.raises(WebhookReplayError):
        b.acquire("forged-2", "aa" * 32, TS)


def test_claims_are_atomic_across_threads(open_log):
    log = open_log()
    outcomes = []
    barrier = threading.Barrier(8)

    def claim(i):
        barrier.wait()
        outcomes.append(log.acquire("d1", f"{i:02d}" * 32, TS + i).status)

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["in_flight"] * 7 + ["new"]


def test_signatures_are_forgotten_once_out_of_the_window(open_log):
    clock = ManualClock(start=T)
    log = open_log(clock=clock, tolerance=300)
    assert log.acquire(None, "dd" * 32, TS).status == "new"  # a delivery without an id
    with pytest.raises(WebhookReplayError):
        log.acquire(None, "dd" * 32, TS)
    clock.advance(300)
    with pytest.raises(WebhookReplayError):
        log.acquire(None, "dd" * 32, TS)
    clock.advance(1)
    assert log.prune() == 1
    assert log.acquire(None, "dd" * 32, TS).status == "new"


def test_future_dated_signature_is_kept_until_its_own_window_ends(open_log):
    clock = ManualClock(start=T)
    log = open_log(clock=clock, tolerance=300)
    log.acquire(None, "ee" * 32, TS + 300_000)
    clock.advance(599)
    with pytest.raises(WebhookReplayError):
        log.acquire(None, "ee" * 32, TS + 300_000)


def test_processed_ids_are_forgotten_after_retention(open_log):
    clock = ManualClock(start=T)
    log = open_log(clock=clock, retention=3600)
    log.complete(log.acquire("d1", "ff" * 32, TS))
    clock.advance(3600)
    assert log.state("d1") == "processed"
    clock.advance(1)
    assert log.state("d1") is None
    log.prune()
    assert log.acquire("d1", "01" * 32, TS + 3_601_000).status == "new"


def test_a_processed_id_is_a_duplicate_and_its_signature_is_refused_anywhere_else(open_log):
    log = open_log()
    log.complete(log.acquire("d1", "aa" * 32, TS))
    assert log.acquire("d1", "bb" * 32, TS + 60_000).status == "duplicate"
    with pytest.raises(WebhookReplayError):
        log.acquire("d2", "aa" * 32, TS)
    with pytest.raises(WebhookReplayError):
        log.acquire(None, "aa" * 32, TS)


def test_backend_clock_when_no_clock_is_injected(shared_log_url):
    import time

    log = DeliveryLog.from_url(shared_log_url)  # the database's clock, not ours
    now_ms = int(time.time() * 1000)
    claim = log.acquire("d1", "ab" * 32, now_ms)
    assert claim.status == "new"
    assert log.acquire("d1", "cd" * 32, now_ms).status == "in_flight"
    log.complete(claim)
    assert log.acquire("d1", "ef" * 32, now_ms).status == "duplicate"
    log.close()


@pytest.mark.parametrize("kw", [{"retention": 0}, {"tolerance": -1}, {"lease": 0}])
def test_bad_settings(kw):
    with pytest.raises(ValueError):
        DeliveryLog(**kw)


def test_file_log_persists_across_instances(tmp_path):
    path = tmp_path / "deliveries.db"
    first = DeliveryLog(path, clock=ManualClock(start=T))
    first.complete(first.acquire("d1", "12" * 32, TS))
    first.close()
    second = DeliveryLog.from_url(str(path), clock=ManualClock(start=T))
    assert second.state("d1") == "processed" and second.backend == "sqlite"
    with pytest.raises(WebhookReplayError):
        second.acquire("d9", "12" * 32, TS)
    second.close()


def test_unsupported_url_and_unreachable_servers():
    from gcbridge.webhooks.errors import DeliveryLogConfigError

    with pytest.raises(DeliveryLogConfigError) as info:
        DeliveryLog.from_url("mysql://user:hunter2@db/x")
    assert info.value.reason == "unsupported_url" and "hunter2" not in str(info.value)
    for url in ("postgresql://u:hunter2@127.0.0.1:1/x", "redis://:hunter2@127.0.0.1:1/0"):
        with pytest.raises(DeliveryLogUnavailable) as down:
            DeliveryLog.from_url(url)
        assert down.value.reason == "delivery_log_unavailable"
        assert "hunter2" not in str(down.value)


@pytest.mark.parametrize("backend", ["postgres", "redis"])
def test_an_outage_is_unavailable_and_the_log_recovers(backend):
    """The server goes away under a running log, then comes back (empty) on the same port."""
    from tests.free_ports import free_port
    from tests.webhooks.delivery_servers import ServerUnavailable, postgres_server, redis_server

    server = postgres_server if backend == "postgres" else redis_server
    port = free_port()
    try:
        with server(port) as url:
            log = DeliveryLog.from_url(url, clock=ManualClock(start=T))
            assert log.acquire("d1", "aa" * 32, TS).status == "new"
        with pytest.raises(DeliveryLogUnavailable) as info:
            log.acquire("d2", "bb" * 32, TS)
        assert info.value.reason == "delivery_log_unavailable"
        with server(port):
            assert log.acquire("d2", "bb" * 32, TS).status == "new"
            log.close()
    except ServerUnavailable as exc:
        pytest.skip(str(exc))


def test_a_copys_signature_is_remembered_too(open_log):
    """A copy answered in flight or duplicate could be captured and replayed under a new id."""
    a, b = open_log(), open_log()
    claim = a.acquire("d1", "aa" * 32, TS)
    assert claim.status == "new"
    assert b.acquire("d1", "bb" * 32, TS + 1).status == "in_flight"
    a.complete(claim)
    assert b.acquire("d1", "cc" * 32, TS + 2).status == "duplicate"
    for captured in ("bb" * 32, "cc" * 32):
        with pytest.raises(WebhookReplayError):
            a.acquire("forged", captured, TS + 3)


@pytest.mark.parametrize(
    ("module", "url", "extra"),
    [("psycopg", "postgresql://db/x", "postgres"), ("redis", "redis://cache/0", "redis")],
)
def test_a_missing_driver_names_the_extra_to_install(monkeypatch, module, url, extra):
    from gcbridge.webhooks.errors import DeliveryLogConfigError

    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    with pytest.raises(DeliveryLogConfigError) as info:
        DeliveryLog.from_url(url)
    assert info.value.reason == "missing_extra"
    assert f'pip install "gc-bridge[{extra}]"' in str(info.value)


def test_a_claim_not_held_settles_nothing(open_log):
    a, b = open_log(), open_log()
    claim = a.acquire("d1", "aa" * 32, TS)
    assert claim.status == "new"
    copy = b.acquire("d1", "bb" * 32, TS + 1)  # in flight: b holds no claim on d1
    assert b.release(copy) is False and b.state("d1") == "in_flight"  # a's live claim stays
    assert b.complete(copy) is False and b.state("d1") == "in_flight"
    a.complete(claim)
    assert b.state("d1") == "processed"
