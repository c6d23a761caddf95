"""Webhook configuration routes: authentication (gcCode 410), setup, config, disable, calls."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable

import httpx
import pytest

from gcbridge.clock import ManualClock
from gcbridge.emulator.testing import EXAMPLE_SITE, OTHER_SITE
from tests.emulator.webhooks.support import Api, Receiver, Reply, bearer

WID = EXAMPLE_SITE.website_id


def site_key_headers(
    method: str,
    target: str,
    body: bytes,
    ts_ms: int,
    *,
    key_id: str = EXAMPLE_SITE.site_key_id,
    secret: str = EXAMPLE_SITE.site_key_secret,
) -> dict[str, str]:
    message = f"{ts_ms}.{method}.{target}.".encode() + body
    return {
        "X-Site-Key-Id": key_id,
        "X-Site-Timestamp": str(ts_ms),
        "X-Site-Signature": hmac.new(secret.encode(), message, hashlib.sha256).hexdigest(),
    }


def assert_gc410(r: httpx.Response, reason: str) -> None:
    assert r.status_code == 200
    assert r.json()["gcCode"] == 410
    assert r.json()["error"] == reason
    assert "secret" not in r.json()


def test_routes_without_credentials_answer_gccode_410(api: Api) -> None:
    for method, path in [
        ("POST", f"/webhook/website/{WID}/setup"),
        ("GET", f"/webhook/website/{WID}/config"),
        ("DELETE", f"/webhook/website/{WID}/disable"),
        ("GET", f"/webhook/website/{WID}/calls"),
        ("POST", "/webhook/call/abc/replay"),
        ("POST", f"/webhook/website/{WID}/verify"),
    ]:
        assert_gc410(api.http.request(method, path), "auth_required")


def test_wrong_token_and_other_sites_token(api: Api) -> None:
    api.setup("http://127.0.0.1:9/hook")
    url = f"/webhook/website/{WID}/config"
    assert_gc410(api.http.get(url, headers=bearer("nope")), "invalid_token")
    assert_gc410(api.http.get(url, headers={"Authorization": "Basic abc"}), "invalid_token")
    # A valid credential, of another site.
    assert_gc410(api.http.get(url, headers=bearer(OTHER_SITE.account_token)), "wrong_website")


@pytest.mark.parametrize("website_id", [EXAMPLE_SITE.shortname, "ffffffffffffffffffffffff"])
def test_shortname_or_unknown_website_id_is_refused_alike(api: Api, website_id: str) -> None:
    r = api.http.get(f"/webhook/website/{website_id}/config", headers=bearer())
    assert_gc410(r, "wrong_website")
    assert "24-hex" in r.json()["message"]


def test_site_key_signature(api: Api, clock: ManualClock) -> None:
    ts = int(clock.now() * 1000)
    body = b'{"url": "http://127.0.0.1:9/hook", "events": ["comment.created"]}'
    target = f"/webhook/website/{WID}/setup"
    r = api.http.post(target, content=body, headers=site_key_headers("POST", target, body, ts))
    assert r.status_code == 200 and r.json()["events"] == ["comment.created"]
    # The query is part of what is signed.
    target = f"/webhook/website/{WID}/calls?limit=5"
    r = api.http.get(target, headers=site_key_headers("GET", target, b"", ts))
    assert r.json()["calls"] == []


def test_bad_site_key_signatures(api: Api, clock: ManualClock) -> None:
    ts = int(clock.now() * 1000)
    target = f"/webhook/website/{WID}/config"
    good = site_key_headers("GET", target, b"", ts)
    cases = {
        "invalid_site_signature": [
            {**good, "X-Site-Signature": "0" * 64},
            site_key_headers("GET", target + "?x=1", b"", ts),  # signed another target
            site_key_headers("POST", target, b"", ts),  # signed another method
            {**good, "X-Site-Key-Id": "sk_unknown"},
            site_key_headers("GET", target, b"", ts, secret="guess"),
        ],
        "stale_site_timestamp": [
            site_key_headers("GET", target, b"", ts - 301_000),
            site_key_headers("GET", target, b"", ts + 301_000),
        ],
        "malformed_site_timestamp": [
            {**good, "X-Site-Timestamp": "soon"},
            {**good, "X-Site-Timestamp": b"\xb2"},  # type: ignore[dict-item]
        ],
        "missing_site_signature": [{"X-Site-Key-Id": EXAMPLE_SITE.site_key_id}],
    }
    for reason, headers_list in cases.items():
        for headers in headers_list:
            assert_gc410(api.http.get(target, headers=headers), reason)
    other = site_key_headers(
        "GET", target, b"", ts, key_id=OTHER_SITE.site_key_id, secret=OTHER_SITE.site_key_secret
    )
    assert_gc410(api.http.get(target, headers=other), "wrong_website")


def test_setup_replaces_config_and_regenerates_secret(api: Api) -> None:
    first = api.setup("http://127.0.0.1:9/a")
    assert first["url"] == "http://127.0.0.1:9/a" and first["enabled"] is True
    assert first["events"] == [
        "comment.created",
        "comment.updated",
        "comment.approved",
        "comment.deleted",
    ]
    assert len(first["secret"]) >= 32
    second = api.setup(
        "http://127.0.0.1:9/b", ["comment.deleted", "comment.created", "comment.created"]
    )
    assert second["secret"] != first["secret"]
    assert second["events"] == ["comment.created", "comment.deleted"]
    config = api.http.get(f"/webhook/website/{WID}/config", headers=bearer()).json()
    assert config["url"] == "http://127.0.0.1:9/b" and config["secret"] == second["secret"]


def test_config_before_setup_is_404(api: Api) -> None:
    r = api.http.get(f"/webhook/website/{WID}/config", headers=bearer())
    assert r.status_code == 404 and r.json()["gcCode"] == 404


@pytest.mark.parametrize(
    ("body", "reason", "needle"),
    [
        ({}, "invalid_request", "url"),
        ({"url": 5}, "invalid_request", "url"),
        ({"url": "ftp://x.example/h"}, "invalid_url", "not_https"),
        ({"url": "https://u:p@x.example/h"}, "invalid_url", "userinfo"),
        ({"url": "https://x.example/" + "a" * 2100}, "invalid_url", "url_too_long"),
        (
            {"url": "https://x.example/h", "events": ["comment.refused"]},
            "unknown_event_type",
            "comment.refused",
        ),
        ({"url": "https://x.example/h", "events": "comment.created"}, "invalid_request", "events"),
        ({"url": "https://x.example/h", "events": []}, "invalid_request", "events"),
    ],
)
def test_setup_validation(api: Api, body: dict[str, object], reason: str, needle: str) -> None:
    r = api.http.post(f"/webhook/website/{WID}/setup", json=body, headers=bearer())
    assert r.status_code == 400
    assert r.json()["gcCode"] == 400 and r.json()["error"] == reason
    assert needle in r.json()["message"]


def test_public_only_receivers_by_default(make_api: Callable[..., Api]) -> None:
    api = make_api(allow_private_receivers=False)
    for url, needle in [
        ("http://x.example/h", "not_https"),
        ("https://127.0.0.1/h", "loopback_address"),
        ("https://[::ffff:192.168.1.1]/h", "private_address"),
    ]:
        r = api.http.post(f"/webhook/website/{WID}/setup", json={"url": url}, headers=bearer())
        assert r.status_code == 400 and needle in r.json()["message"]
    assert api.setup("https://receiver.example/hook")["url"] == "https://receiver.example/hook"


def test_disable_stops_queuing(api: Api, receiver: Receiver) -> None:
    api.setup(receiver.url)
    r = api.http.delete(f"/webhook/website/{WID}/disable", headers=bearer())
    assert r.status_code == 200 and r.json()["enabled"] is False
    api.comment()
    assert api.calls()["calls"] == []
    assert receiver.deliveries == []
    # Set up again: events flow again.
    api.setup(receiver.url)
    api.comment()
    assert [c["status"] for c in api.wait_settled(1)] == ["succeeded"]


def test_unsubscribed_events_are_not_queued(api: Api, receiver: Receiver) -> None:
    api.setup(receiver.url, ["comment.updated"])
    comment = api.comment()
    assert api.calls()["calls"] == []
    api.edit(comment["id"], "edited")
    assert [c["event_type"] for c in api.wait_settled(1)] == ["comment.updated"]


def test_calls_filters_and_cursor(api: Api, receiver: Receiver) -> None:
    api.setup(receiver.url)
    receiver.script = [Reply(204), Reply(404), Reply(204), Reply(422)]
    first = api.comment()
    api.wait_settled(1)
    api.comment()
    api.wait_settled(2)
    api.comment()
    api.wait_settled(3)
    api.edit(first["id"], "changed")
    calls = api.wait_settled(4)
    assert [c["status"] for c in calls] == ["failed", "succeeded", "failed", "succeeded"]
    assert [c["event_type"] for c in calls] == ["comment.updated"] + ["comment.created"] * 3

    seen, cursor = [], None
    while True:
        page = api.calls(limit=3, **({"cursor": cursor} if cursor else {}))
        seen += [c["id"] for c in page["calls"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [c["id"] for c in calls]

    failed = api.calls(status="failed")["calls"]
    assert [c["response_code"] for c in failed] == [422, 404]
    assert [c["id"] for c in api.calls(event_type="comment.updated")["calls"]] == [calls[0]["id"]]
    assert (
        api.calls(status="failed", event_type="comment.created")["calls"][0]["response_code"] == 404
    )
    for bad in (
        {"status": "done"},
        {"event_type": "comment.refused"},
        {"limit": 0},
        {"cursor": "x"},
        {"cursor": "\xb2"},
        {"limit": "\xb2"},
    ):
        r = api.http.get(f"/webhook/website/{WID}/calls", params=bad, headers=bearer())
        assert r.status_code == 400 and r.json()["gcCode"] == 400


def test_calls_of_another_site_are_not_listed(api: Api, receiver: Receiver) -> None:
    api.setup(receiver.url)
    api.comment()
    api.wait_settled(1)
    r = api.http.get(
        f"/webhook/website/{OTHER_SITE.website_id}/calls", headers=bearer(OTHER_SITE.account_token)
    )
    assert r.json() == {"calls": [], "next_cursor": None}
