"""Replay of a failed call, and the verify route (which never contacts the receiver)."""

from __future__ import annotations

from gcbridge.clock import ManualClock
from gcbridge.emulator.testing import OTHER_SITE
from tests.emulator.webhooks.support import Api, Receiver, Reply, bearer, hmac_hex


def test_replay_of_a_failed_call_is_a_fresh_delivery(api: Api, receiver: Receiver) -> None:
    api.setup(receiver.url)
    receiver.script = [Reply(404)]
    api.comment()
    [failed] = api.wait_settled(1)
    assert failed["status"] == "failed"

    r = api.http.post(f"/webhook/call/{failed['id']}/replay", headers=bearer())
    assert r.status_code == 200, r.text
    fresh = r.json()["call"]
    assert fresh["id"] != failed["id"]
    assert fresh["delivery_id"] != failed["delivery_id"]
    assert fresh["retry_count"] == 0 and fresh["replay_of"] == failed["id"]
    assert fresh["status"] == "pending" and fresh["event_type"] == failed["event_type"]

    calls = api.wait_settled(2)
    assert [c["id"] for c in calls] == [fresh["id"], failed["id"]]
    assert calls[0]["status"] == "succeeded"
    first, second = receiver.deliveries
    assert second.headers["x-webhook-delivery-id"] == fresh["delivery_id"]
    assert second.headers["x-webhook-retry-count"] == "0"
    assert second.body == first.body
    # The original is left as it was.
    assert calls[1]["status"] == "failed" and len(calls[1]["attempts"]) == 1


def test_only_failed_calls_are_replayable(api: Api, receiver: Receiver) -> None:
    api.setup(receiver.url)
    api.comment()
    [ok] = api.wait_settled(1)
    r = api.http.post(f"/webhook/call/{ok['id']}/replay", headers=bearer())
    assert r.status_code == 409
    assert r.json()["gcCode"] == 409 and r.json()["error"] == "not_replayable"


def test_replay_of_unknown_or_other_sites_call(api: Api, receiver: Receiver) -> None:
    api.setup(receiver.url)
    receiver.script = [Reply(400)]
    api.comment()
    [failed] = api.wait_settled(1)
    r = api.http.post("/webhook/call/nope/replay", headers=bearer())
    assert r.status_code == 404 and r.json()["error"] == "call_not_found"
    r = api.http.post(
        f"/webhook/call/{failed['id']}/replay", headers=bearer(OTHER_SITE.account_token)
    )
    assert r.status_code == 404 and r.json()["error"] == "call_not_found"
    r = api.http.post(f"/webhook/call/{failed['id']}/replay")
    assert r.status_code == 200 and r.json()["gcCode"] == 410


def test_replay_while_disabled_is_refused(api: Api, receiver: Receiver) -> None:
    api.setup(receiver.url)
    receiver.script = [Reply(400)]
    api.comment()
    [failed] = api.wait_settled(1)
    api.http.delete(f"/webhook/website/{api.wid}/disable", headers=bearer())
    r = api.http.post(f"/webhook/call/{failed['id']}/replay", headers=bearer())
    assert r.status_code == 409 and r.json()["error"] == "webhook_disabled"


def _verify(api: Api, body: bytes, headers: dict[str, str]) -> dict[str, object]:
    r = api.http.post(
        f"/webhook/website/{api.wid}/verify", content=body, headers={**bearer(), **headers}
    )
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_verify(api: Api, receiver: Receiver, clock: ManualClock) -> None:
    secret = api.setup(receiver.url)["secret"]
    body = b'{"event_type":"comment.created","timestamp":1}'
    ts = str(int(clock.now() * 1000))
    good = {"X-Webhook-Timestamp": ts, "X-Webhook-Signature": hmac_hex(secret, ts, body)}
    assert _verify(api, body, good) == {"valid": True, "reason": "ok"}
    assert _verify(api, body + b" ", good) == {"valid": False, "reason": "signature_mismatch"}
    wrong_key = {**good, "X-Webhook-Signature": hmac_hex("not-the-secret", ts, body)}
    assert _verify(api, body, wrong_key)["reason"] == "signature_mismatch"
    old = str(int((clock.now() - 301) * 1000))
    stale = {"X-Webhook-Timestamp": old, "X-Webhook-Signature": hmac_hex(secret, old, body)}
    assert _verify(api, body, stale) == {"valid": False, "reason": "timestamp_too_old"}
    assert _verify(api, body, {"X-Webhook-Timestamp": ts}) == {
        "valid": False,
        "reason": "missing_header",
    }
    assert receiver.deliveries == []  # verify never calls the receiver
    assert api.calls()["calls"] == []


def test_verify_needs_credentials_and_a_config(api: Api) -> None:
    r = api.http.post(f"/webhook/website/{api.wid}/verify", content=b"{}")
    assert r.json()["gcCode"] == 410
    r = api.http.post(f"/webhook/website/{api.wid}/verify", content=b"{}", headers=bearer())
    assert r.status_code == 404 and r.json()["error"] == "webhook_not_configured"
