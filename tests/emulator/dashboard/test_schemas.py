"""The dashboard's event catalog, and its test events checked against the schemas.

The catalog and the check route are exercised over HTTP; the page itself in headless
Chromium: it lists the four event types with their schema links, and after each test
event it shows whether the body of the delivery it caused matches the event's schema.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from gcbridge.emulator.testing import RunningEmulator
from gcbridge.webhooks.catalog import EVENT_TYPES, example_body, kind
from gcbridge.webhooks.event_schemas import body_schema
from tests.emulator.dashboard.support import console_errors, send_test_event


def test_catalog_route_lists_the_four_events_with_their_schemas(emu: RunningEmulator) -> None:
    catalog = httpx.get(f"{emu.url}/api/dashboard/events").json()
    assert [e["event_type"] for e in catalog["events"]] == list(EVENT_TYPES)
    for event in catalog["events"]:
        assert event["fires_when"] == kind(event["event_type"]).fires_when
        assert event["example"] == example_body(event["event_type"])
        r = httpx.get(emu.url + event["schema_url"])
        assert r.status_code == 200 and r.headers["content-type"] == "application/schema+json"
        assert r.json() == body_schema(event["event_type"])
    assert httpx.get(emu.url + catalog["any_event_schema_url"]).json() == body_schema()
    missing = httpx.get(f"{emu.url}/api/dashboard/events/comment.refused/schema")
    assert missing.status_code == 404 and missing.json()["error"] == "unknown_event_type"


@pytest.mark.parametrize(
    "request_body,valid,reason",
    [
        ({"body": json.dumps(example_body("comment.updated"))}, True, None),
        ({"body": json.dumps(example_body("comment.updated")), "event_type": "comment.updated"},
         True, None),
        ({"body": json.dumps(example_body("comment.updated")), "event_type": "comment.deleted"},
         False, "schema_mismatch"),
        ({"body": "{}"}, False, "unknown_event_type"),
        ({"body": "nope"}, False, "malformed_payload"),
    ],
)  # fmt: skip
def test_check_route(
    emu: RunningEmulator, request_body: dict[str, Any], valid: bool, reason: str | None
) -> None:
    verdict = httpx.post(f"{emu.url}/api/dashboard/events/check", json=request_body).json()
    assert verdict["valid"] is valid and verdict["reason"] == reason
    assert bool(verdict["problems"]) is not valid


@pytest.mark.parametrize("raw", [b"", b"[]", b'{"body": 3}', b'{"body": "{}", "event_type": 1}'])
def test_check_route_refuses_a_bad_request(emu: RunningEmulator, raw: bytes) -> None:
    r = httpx.post(f"{emu.url}/api/dashboard/events/check", content=raw)
    assert r.status_code == 400 and r.json()["error"] == "invalid_request"


@pytest.mark.browser
def test_the_page_lists_the_event_catalog(dashboard: Any) -> None:
    errors = console_errors(dashboard)
    entries = dashboard.locator("#catalog-events article.event-type")
    expect(entries).to_have_count(4)
    for event_type in EVENT_TYPES:
        entry = dashboard.locator(f'#catalog-events article[data-event="{event_type}"]')
        expect(entry.locator("h3")).to_have_text(event_type)
        expect(entry.locator(".fires")).to_have_text(kind(event_type).fires_when)
        href = entry.get_by_role("link", name="JSON Schema").get_attribute("href")
        assert href == f"/api/dashboard/events/{event_type}/schema"
        entry.locator("summary").click()
        shown = json.loads(entry.locator("pre").inner_text())
        assert shown == example_body(event_type)
    assert errors == []


@pytest.mark.browser
def test_each_test_event_s_body_is_checked_against_its_schema(
    dashboard: Any, webhook: dict[str, Any]
) -> None:
    verdict = dashboard.locator("#test-schema")
    for event_type in EVENT_TYPES:
        send_test_event(dashboard, event_type)
        expect(verdict).to_have_text(f"Its body matches the {event_type} JSON Schema.")
        expect(verdict).to_have_attribute("data-valid", "true")


@pytest.mark.browser
def test_a_body_off_the_schema_is_shown_as_such(
    dashboard: Any, webhook: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gcbridge.emulator.comments.routes as routes

    real = routes.event_body

    def wrong_timestamp(*args: Any, **kw: Any) -> bytes:
        body = json.loads(real(*args, **kw))
        body["timestamp"] = str(body["timestamp"])
        return json.dumps(body).encode()

    monkeypatch.setattr(routes, "event_body", wrong_timestamp)
    send_test_event(dashboard, "comment.created")
    verdict = dashboard.locator("#test-schema")
    expect(verdict).to_contain_text(
        "does NOT match the comment.created JSON Schema [schema_mismatch]"
    )
    expect(verdict).to_contain_text("timestamp")
    expect(verdict).to_have_attribute("data-valid", "false")


@pytest.mark.browser
def test_without_a_webhook_nothing_is_checked(dashboard: Any) -> None:
    send_test_event(dashboard, "comment.created")
    expect(dashboard.locator("#test-status")).to_contain_text("nothing is delivered")
    expect(dashboard.locator("#test-schema")).to_contain_text("No delivery of it was recorded")
