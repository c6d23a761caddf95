"""Testing your receiver in your own suite (guide "Receive webhooks"): the gc_webhook
fixture, no setup needed. ``pytest docs_src/test_receiver.py`` runs it."""

import pytest
from receiver_fastapi import create_app  # your app: here, the receiver of the guide


@pytest.fixture
def receiver(gc_webhook, tmp_path, monkeypatch):
    monkeypatch.setenv("GC_WEBHOOK_SECRET", "whsec_test")
    monkeypatch.setenv("GC_DELIVERY_LOG", str(tmp_path / "deliveries.db"))
    app = create_app()  # a fresh app per test: its own secret and delivery log
    return gc_webhook.configure(app, secret="whsec_test", path="/webhooks/gc")


def test_each_comment_is_processed_once(receiver):
    assert receiver("comment.created", content="First!").json() == {"ok": True}
    assert receiver(duplicate=True).json()["duplicate"] is True  # the service's retry


def test_forged_and_stale_deliveries_are_refused(receiver):
    assert receiver(wrong_secret=True).json()["error"] == "signature_mismatch"
    assert receiver(stale=True).json()["error"] == "timestamp_too_old"
