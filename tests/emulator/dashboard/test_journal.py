"""The live delivery journal: failed calls, replay, filters, attempt details (headless Chromium)."""

from __future__ import annotations

import hashlib
import hmac
import re
import shutil
import subprocess
from typing import Any

import pytest
from playwright.sync_api import expect

from gcbridge.emulator.testing import RunningEmulator
from tests.emulator.dashboard.support import calls, console_errors, send_test_event

pytestmark = pytest.mark.browser


def test_a_failing_receiver_shows_a_failed_call_and_replay_delivers_it(
    dashboard: Any, receiver: Any, webhook: dict[str, Any]
) -> None:
    errors = console_errors(dashboard)
    receiver.answer(400, "missing header")
    send_test_event(dashboard, "comment.created")

    failed = calls(dashboard, "[data-status=failed]")
    expect(failed).to_have_count(1)  # appears without a reload: the journal is live
    expect(failed.locator(".badge")).to_have_text("failed")
    expect(failed.locator(".code")).to_have_text("400")
    expect(failed.locator(".event")).to_have_text("comment.created")
    expect(failed.locator(".retries")).to_have_text("0")
    old_delivery = failed.locator(".delivery-id").inner_text()
    assert receiver.requests[-1]["headers"]["x-webhook-delivery-id"] == old_delivery

    receiver.answer(200, "ok")
    failed.locator("button.replay").click()
    succeeded = calls(dashboard, "[data-status=succeeded]")
    expect(succeeded).to_have_count(1)
    new_delivery = succeeded.locator(".delivery-id").inner_text()
    assert new_delivery != old_delivery
    assert receiver.requests[-1]["headers"]["x-webhook-delivery-id"] == new_delivery
    expect(succeeded.locator(".code")).to_have_text("200")
    # Only failed calls offer a replay.
    expect(succeeded.locator("button.replay")).to_have_count(0)
    assert errors == []


def test_an_expanded_call_shows_what_was_sent_exactly(
    dashboard: Any, receiver: Any, webhook: dict[str, Any]
) -> None:
    receiver.answer(401, "signature_mismatch")
    send_test_event(dashboard, "comment.created")
    row = calls(dashboard, "[data-status=failed]")
    row.locator(".call-summary").click()
    attempt = row.locator(".attempt")
    expect(attempt).to_have_count(1)
    expect(attempt.locator(".attempt-title")).to_contain_text("HTTP 401")
    expect(attempt.locator(".response-body")).to_have_text("signature_mismatch")

    sent = receiver.requests[-1]
    expect(row.locator(".request-body")).to_have_text(sent["body"].decode())
    headers_text = attempt.locator(".request-headers").inner_text()
    for name in (
        "X-Webhook-Signature",
        "X-Webhook-Timestamp",
        "X-Webhook-Delivery-Id",
        "X-Webhook-Retry-Count",
    ):
        assert f"{name}: {sent['headers'][name.lower()]}" in headers_text

    # The details stay open while the journal keeps polling (the live stamp moves on each poll).
    stamp = dashboard.locator("#live").inner_text()
    expect(dashboard.locator("#live")).not_to_have_text(stamp)
    expect(attempt).to_be_visible()

    attempt.get_by_role("button", name="Check signature (/verify)").click()
    expect(attempt.locator(".verdict")).to_contain_text("Valid signature")

    attempt.get_by_role("button", name="Copy as curl").click()
    curl = attempt.locator(".curl").inner_text()
    assert "--data-binary" in curl and "X-Webhook-Signature" in curl
    if shutil.which("curl") is None:
        return
    # The command re-sends the same bytes and headers: the receiver's signature check passes.
    receiver.answer(200, "ok")
    subprocess.run(["bash", "-c", curl], check=True, capture_output=True, timeout=10)
    again = receiver.requests[-1]
    assert again["body"] == sent["body"]
    # Checked here by hand, independently of gcbridge.webhooks
    # (docs/reference/wire-formats.md#webhook-deliveries).
    signed = again["headers"]["x-webhook-timestamp"].encode() + b"." + again["body"]
    expected = hmac.new(webhook["secret"].encode(), signed, hashlib.sha256).hexdigest()
    assert again["headers"]["x-webhook-signature"] == expected


def test_filters_by_status_and_event_type(
    dashboard: Any, receiver: Any, webhook: dict[str, Any]
) -> None:
    receiver.answer(422, "no")
    send_test_event(dashboard, "comment.created")
    # Failed (not merely listed as pending) before the receiver changes its answer.
    expect(calls(dashboard, "[data-status=failed]")).to_have_count(1)
    receiver.answer(204, "")
    send_test_event(dashboard, "comment.updated")
    send_test_event(dashboard, "comment.approved")
    expect(calls(dashboard)).to_have_count(3)
    expect(calls(dashboard, "[data-status=succeeded]")).to_have_count(2)

    dashboard.select_option("#filter-status", "failed")
    expect(calls(dashboard)).to_have_count(1)
    expect(calls(dashboard).locator(".event")).to_have_text("comment.created")

    dashboard.select_option("#filter-status", "")
    dashboard.select_option("#filter-event", "comment.approved")
    expect(calls(dashboard)).to_have_count(1)
    expect(calls(dashboard).locator(".badge")).to_have_text("succeeded")

    dashboard.select_option("#filter-status", "failed")
    expect(calls(dashboard)).to_have_count(0)
    expect(dashboard.locator("#calls-empty")).to_be_visible()


def test_each_kind_of_test_event_is_delivered(
    dashboard: Any, receiver: Any, webhook: dict[str, Any], emu: RunningEmulator
) -> None:
    kinds = ["comment.created", "comment.updated", "comment.approved", "comment.deleted"]
    for kind in kinds:
        send_test_event(dashboard, kind)
    expect(calls(dashboard, "[data-status=succeeded]")).to_have_count(4)
    delivered = [r["headers"].get("x-webhook-delivery-id") for r in receiver.requests]
    assert len(set(delivered)) == 4
    events = [r["body"] for r in receiver.requests]
    for kind, body in zip(kinds, events, strict=True):
        assert f'"event_type":"{kind}"'.encode() in body.replace(b" ", b"")


def test_a_retried_call_shows_pending_then_its_attempts(
    dashboard: Any, receiver: Any, webhook: dict[str, Any]
) -> None:
    receiver.answer(503, "busy")
    send_test_event(dashboard, "comment.created")
    pending = calls(dashboard, "[data-status=pending]")
    expect(pending).to_have_count(1)
    expect(pending.locator(".badge")).to_have_text("pending")
    expect(pending.locator(".next-at")).to_have_text(re.compile(r"^(in \d+ s|due now)$"))
    # The first attempt had its 503 (a pending call may show before it is made: "due now")
    receiver.wait_answered(1)
    receiver.answer(200, "ok")  # the retry 1 s later (schedule 0, 1, 2) succeeds
    done = calls(dashboard, "[data-status=succeeded]")
    expect(done).to_have_count(1)
    expect(done.locator(".retries")).to_have_text("1")
    expect(done.locator(".next-at")).to_have_text("—")
    done.locator(".call-summary").click()
    titles = done.locator(".attempt-title")
    expect(titles).to_have_count(2)
    expect(titles.nth(0)).to_contain_text("HTTP 503")
    expect(titles.nth(1)).to_contain_text("HTTP 200")
    expect(done.locator(".attempt").nth(1).locator(".request-headers")).to_contain_text(
        "X-Webhook-Retry-Count: 1"
    )
