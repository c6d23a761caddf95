"""The OpenAPI 3.1 ``webhooks`` section, held to real deliveries.

Real deliveries of the four events (made by the emulator: a comment created, edited,
approved, deleted and refused, with a receiver set up) are validated with jsonschema's
Draft202012Validator against the OpenAPI document's webhook schemas and headers, and
against what ``gcbridge webhooks schema`` prints; broken copies of them are not.
The whole document is validated as OpenAPI 3.1 by openapi-spec-validator.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_openapi
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from gcbridge.cli import main
from gcbridge.webhooks.catalog import EVENT_TYPES
from tests.emulator.webhooks.support import Api, Receiver, bearer

SPEC_2_6_HEADERS = {
    "X-Webhook-Signature",
    "X-Webhook-Timestamp",
    "X-Webhook-Delivery-Id",
    "X-Webhook-Retry-Count",
    "X-Webhook-First-Sent-At",
    "User-Agent",
}
FORMATS = Draft202012Validator.FORMAT_CHECKER


def openapi_document(api: Api) -> dict[str, Any]:
    r = api.http.get("/openapi.json")
    assert r.status_code == 200
    return r.json()


def body_validator(doc: dict[str, Any], event_type: str) -> Draft202012Validator:
    """The webhook's request body schema, taken on its own (it holds no ``$ref``)."""
    media = doc["webhooks"][event_type]["post"]["requestBody"]["content"]["application/json"]
    assert "$ref" not in json.dumps(media["schema"])
    return Draft202012Validator(media["schema"], format_checker=FORMATS)


def component_validator(doc: dict[str, Any], name: str) -> Draft202012Validator:
    """A named ``components/schemas`` entry, its ``$ref``s resolved inside the document."""
    schema = {"$ref": f"#/components/schemas/{name}", "components": doc["components"]}
    return Draft202012Validator(schema, format_checker=FORMATS)


COMPONENT = {
    "comment.created": "CommentCreatedEvent",
    "comment.updated": "CommentUpdatedEvent",
    "comment.approved": "CommentApprovedEvent",
    "comment.deleted": "CommentDeletedEvent",
}


def cli_schema(capsys: pytest.CaptureFixture[str], event_type: str | None) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["webhooks", "schema", *([event_type] if event_type else [])]) == 0
    schema: dict[str, Any] = json.loads(capsys.readouterr().out)
    Draft202012Validator.check_schema(schema)
    return schema


def header_errors(doc: dict[str, Any], event_type: str, headers: dict[str, str]) -> list[str]:
    """Each header parameter of the webhook checked against the headers a receiver got."""
    errors = []
    lowered = {k.lower(): v for k, v in headers.items()}
    for param in doc["webhooks"][event_type]["post"]["parameters"]:
        raw = lowered.get(param["name"].lower())
        if raw is None:
            errors.append(f"{param['name']}: missing")
            continue
        value: Any = raw
        if param["schema"].get("type") == "integer":
            if not raw.isdigit():
                errors.append(f"{param['name']}: {raw!r} is not an integer")
                continue
            value = int(raw)
        for err in Draft202012Validator(param["schema"], format_checker=FORMATS).iter_errors(value):
            errors.append(f"{param['name']}: {err.message}")
    return errors


def test_the_document_is_valid_openapi_3_1_with_the_four_webhooks(api: Api) -> None:
    doc = openapi_document(api)
    assert doc["openapi"].startswith("3.1.")
    validate_openapi(doc)
    assert list(doc["webhooks"]) == list(EVENT_TYPES)
    for event_type in EVENT_TYPES:
        item = doc["webhooks"][event_type]
        assert list(item) == ["post"]
        op = item["post"]
        assert op["requestBody"]["required"] is True
        assert {p["name"] for p in op["parameters"]} == SPEC_2_6_HEADERS
        assert all(p["in"] == "header" and p["required"] for p in op["parameters"])
        params = {p["name"]: p["schema"] for p in op["parameters"]}
        for param in op["parameters"]:  # each example fits its own schema
            if "example" in param:
                assert Draft202012Validator(param["schema"]).is_valid(param["example"])
        assert params["X-Webhook-Signature"]["pattern"] == "^[0-9a-f]{64}$"
        assert params["User-Agent"]["const"] == "Service-Webhook/1.0"
        assert params["X-Webhook-First-Sent-At"]["format"] == "date-time"
        assert {"2XX", "4XX", "5XX"} <= set(op["responses"])
        # event_type is fixed to the entry's name, and the example is such a body
        schema = op["requestBody"]["content"]["application/json"]["schema"]
        assert schema["properties"]["event_type"]["const"] == event_type
        validator = body_validator(doc, event_type)
        (example,) = op["requestBody"]["content"]["application/json"]["examples"].values()
        assert example["value"]["event_type"] == event_type
        assert validator.is_valid(example["value"])
        for other in EVENT_TYPES:
            assert validator.is_valid(example["value"] | {"event_type": other}) is (
                other == event_type
            )


def test_the_validator_does_check_the_webhooks_section(api: Api) -> None:
    """A negative control: a broken webhook entry makes the document invalid."""
    doc = openapi_document(api)
    broken = copy.deepcopy(doc)
    broken["webhooks"]["comment.created"]["post"]["parameters"][0]["in"] = "body"
    with pytest.raises(OpenAPIValidationError):
        validate_openapi(broken)
    broken = copy.deepcopy(doc)
    del broken["webhooks"]["comment.updated"]["post"]["requestBody"]["content"]
    with pytest.raises(OpenAPIValidationError):
        validate_openapi(broken)


def fire_all_events(api: Api) -> None:
    """What a user does: comment, edit, approve, delete; a refusal is a comment.deleted too."""
    first = api.comment("Hello schemas")
    api.edit(first["id"], "Hello schemas, edited")
    r = api.http.post(f"/api/moderation/comments/{first['id']}/approve", headers=bearer())
    assert r.status_code == 200, r.text
    r = api.http.delete(f"/api/pub/comments/{first['id']}", headers=bearer(api.session()))
    assert r.status_code in (200, 204), r.text
    second = api.comment("Refuse me")
    r = api.http.post(f"/api/moderation/comments/{second['id']}/refuse", headers=bearer())
    assert r.status_code == 200, r.text


@pytest.fixture
def deliveries(api: Api, receiver: Receiver) -> list[tuple[dict[str, str], bytes]]:
    api.setup(receiver.url, list(EVENT_TYPES))
    fire_all_events(api)
    calls = api.wait_settled(6)
    assert all(c["status"] == "succeeded" for c in calls), calls
    got = [(d.headers, d.body) for d in receiver.deliveries]
    types = sorted(json.loads(body)["event_type"] for _, body in got)
    assert types == sorted([*EVENT_TYPES, "comment.created", "comment.deleted"])
    return got


def test_real_deliveries_validate_against_openapi_and_cli_schemas(
    api: Api, deliveries: list[tuple[dict[str, str], bytes]], capsys: pytest.CaptureFixture[str]
) -> None:
    doc = openapi_document(api)
    any_body = cli_schema(capsys, None)
    for headers, raw in deliveries:
        body = json.loads(raw)
        event_type = body["event_type"]
        errors = [e.message for e in body_validator(doc, event_type).iter_errors(body)]
        assert errors == [], (event_type, errors)
        assert component_validator(doc, COMPONENT[event_type]).is_valid(body)
        assert component_validator(doc, "WebhookEvent").is_valid(body)
        cli = Draft202012Validator(cli_schema(capsys, event_type), format_checker=FORMATS)
        assert [e.message for e in cli.iter_errors(body)] == []
        assert Draft202012Validator(any_body, format_checker=FORMATS).is_valid(body)
        assert header_errors(doc, event_type, headers) == []


BREAKS: dict[str, Callable[[dict[str, Any]], object]] = {
    "missing field": lambda b: b["data"]["comment"].pop("status"),
    "missing nullable key": lambda b: b["data"]["thread"].pop("external_id"),
    "wrong type": lambda b: b.update(timestamp=str(b["timestamp"])),
    "wrong nested type": lambda b: b["data"]["comment"]["author"].update(guest=0),
    "unknown event type": lambda b: b.update(event_type="comment.refused"),
    "missing data.thread": lambda b: b["data"].pop("thread"),
}


@pytest.mark.parametrize("name", list(BREAKS))
def test_broken_copies_of_real_deliveries_do_not_validate(
    name: str,
    api: Api,
    deliveries: list[tuple[dict[str, str], bytes]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = openapi_document(api)
    any_body = Draft202012Validator(cli_schema(capsys, None), format_checker=FORMATS)
    per_type = {t: cli_schema(capsys, t) for t in EVENT_TYPES}
    for _, raw in deliveries:
        body = json.loads(raw)
        event_type = body["event_type"]
        BREAKS[name](body)
        assert not any_body.is_valid(body)
        # the schema of the type it was sent as, and every other one
        assert not component_validator(doc, "WebhookEvent").is_valid(body)
        for schema_type in EVENT_TYPES:
            assert not body_validator(doc, schema_type).is_valid(body), (event_type, schema_type)
            assert not component_validator(doc, COMPONENT[schema_type]).is_valid(body)
            assert not Draft202012Validator(per_type[schema_type], format_checker=FORMATS).is_valid(
                body
            )


def test_header_check_catches_a_bad_signature_header(
    api: Api, deliveries: list[tuple[dict[str, str], bytes]]
) -> None:
    doc = openapi_document(api)
    headers, raw = deliveries[0]
    event_type = json.loads(raw)["event_type"]
    bad = {**headers, "x-webhook-signature": "sha256=" + headers["x-webhook-signature"]}
    assert any("X-Webhook-Signature" in e for e in header_errors(doc, event_type, bad))
    bad = {**headers, "user-agent": "curl/8"}
    assert any("User-Agent" in e for e in header_errors(doc, event_type, bad))
