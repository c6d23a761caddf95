"""DeliveryLog: ids, signatures within the window, pruning, persistence, threads."""

import threading

import pytest

from gcbridge.clock import ManualClock
from gcbridge.webhooks import WebhookReplayError
from gcbridge.webhooks.delivery_log import DeliveryLog

T = 1_700_000_000.0
TS = int(T * 1000)


def test_record_then_seen():
    log = DeliveryLog(clock=ManualClock(start=T))
    assert not log.seen("d1")
    log.record("d1", "ab" * 32, TS)
    assert log.seen("d1") and not log.seen("d2")
    assert log.signature_seen("AB" * 32)


def test_check_new_duplicate_and_replayed_signature():
    log = DeliveryLog(clock=ManualClock(start=T))
    assert log.check("d1", "aa" * 32, TS) == "new"
    log.record("d1", "aa" * 32, TS)
    assert log.check("d1", "bb" * 32, TS + 60_000) == "duplicate"
    with pytest.raises(WebhookReplayError) as info:
        log.check("d2", "aa" * 32, TS)
    assert info.value.reason == "replayed_signature"


def test_claim_is_atomic_across_threads():
    log = DeliveryLog(clock=ManualClock(start=T))
    wins = []
    barrier = threading.Barrier(8)

    def claim():
        barrier.wait()
        wins.append(log.claim_signature("cc" * 32, TS))

    threads = [threading.Thread(target=claim) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(wins) == [False] * 7 + [True]


def test_signatures_are_forgotten_once_out_of_the_window():
    clock = ManualClock(start=T)
    log = DeliveryLog(clock=clock, tolerance=300)
    log.claim_signature("dd" * 32, TS)
    clock.advance(300)
    assert log.signature_seen("dd" * 32)
    clock.advance(1)
    assert not log.signature_seen("dd" * 32)
    assert log.prune() == 1


def test_future_dated_signature_is_kept_until_its_own_window_ends():
    clock = ManualClock(start=T)
    log = DeliveryLog(clock=clock, tolerance=300)
    log.claim_signature("ee" * 32, TS + 300_000)
    clock.advance(599)
    assert log.signature_seen("ee" * 32)


def test_delivery_ids_are_forgotten_after_retention():
    clock = ManualClock(start=T)
    log = DeliveryLog(clock=clock, retention=3600)
    log.record("d1", "ff" * 32, TS)
    clock.advance(3599)
    log.prune()
    assert log.seen("d1")
    clock.advance(2)
    log.prune()
    assert not log.seen("d1")


def test_pruning_happens_on_its_own():
    clock = ManualClock(start=T)
    log = DeliveryLog(clock=clock, retention=10)
    log.record("old", "01" * 32, TS)
    clock.advance(3600)
    log.record("new", "02" * 32, int(clock.now() * 1000))
    assert not log.seen("old") and log.seen("new")


def test_file_log_persists_across_instances(tmp_path):
    path = tmp_path / "deliveries.db"
    first = DeliveryLog(path, clock=ManualClock(start=T))
    first.record("d1", "12" * 32, TS)
    first.close()
    second = DeliveryLog(str(path), clock=ManualClock(start=T))
    assert second.seen("d1")
    with pytest.raises(WebhookReplayError):
        second.check("d9", "12" * 32, TS)
    second.close()


@pytest.mark.parametrize("kw", [{"retention": 0}, {"tolerance": -1}])
def test_bad_settings(kw):
    with pytest.raises(ValueError):
        DeliveryLog(**kw)


def test_claim_then_release():
    log = DeliveryLog(clock=ManualClock(start=T))
    assert log.claim("d1", "aa" * 32, TS) == "new"
    assert log.seen("d1")
    assert log.claim("d1", "bb" * 32, TS + 60_000) == "duplicate"
    with pytest.raises(WebhookReplayError):
        log.claim("d2", "aa" * 32, TS)
    assert not log.seen("d2")
    log.release("d1")
    assert not log.seen("d1")
    assert log.claim("d1", "cc" * 32, TS + 60_000) == "new"
