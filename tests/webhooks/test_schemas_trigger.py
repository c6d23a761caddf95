"""``webhooks trigger`` checks the body it made the emulator send, and
``check_body`` (the one validation function) gives reason codes, not only a verdict."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gcbridge.cli import main
from gcbridge.emulator.testing import EXAMPLE_SITE, RunningEmulator, running_emulator
from gcbridge.serving import BackgroundServer
from gcbridge.webhooks import WebhookPayloadError
from gcbridge.webhooks.catalog import EVENT_TYPES, example_body
from gcbridge.webhooks.schema_check import SCHEMA_REASONS, WebhookSchemaError, check_body

WID = EXAMPLE_SITE.website_id


@pytest.fixture
def emulator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RunningEmulator]:
    async def hook(request: Request) -> Response:
        await request.body()
        return Response(b"", status_code=204)

    server = BackgroundServer(
        lambda port: Starlette(routes=[Route("/hook", hook, methods=["POST"])])
    )
    monkeypatch.setenv("GC_ACCOUNT_TOKEN", EXAMPLE_SITE.account_token)
    with server, running_emulator(tmp_path / "data", retry_schedule=(0.0,)) as emu:
        r = httpx.post(
            f"{emu.url}/webhook/website/{WID}/setup",
            json={"url": server.url + "/hook"},
            headers={"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"},
        )
        assert "secret" in r.json(), r.text
        yield emu


def trigger(emu: RunningEmulator, event: str) -> int:
    return main(
        ["webhooks", "trigger", event, "--emulator", emu.url, "--website-id", WID,
         "--token-env", "GC_ACCOUNT_TOKEN", "--timeout", "20"]
    )  # fmt: skip


@pytest.mark.parametrize("event", EVENT_TYPES)
def test_trigger_checks_the_delivered_body_against_the_schema(
    emulator: RunningEmulator, capsys: pytest.CaptureFixture[str], event: str
) -> None:
    assert trigger(emulator, event) == 0
    out = capsys.readouterr().out
    assert f"body matches the {event} JSON Schema" in out


def test_trigger_fails_when_the_emulator_sends_a_body_off_the_schema(
    emulator: RunningEmulator, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gcbridge.emulator.comments.routes as routes

    real = routes.event_body

    def without_thread(*args: Any, **kw: Any) -> bytes:
        body = json.loads(real(*args, **kw))
        del body["data"]["thread"]
        return json.dumps(body).encode()

    monkeypatch.setattr(routes, "event_body", without_thread)
    assert trigger(emulator, "comment.created") == 1
    captured = capsys.readouterr()
    assert "matches" not in captured.out
    assert "[schema_mismatch]" in captured.err and "thread" in captured.err


def edited(change: Any, event_type: str = "comment.created") -> dict[str, Any]:
    body = copy.deepcopy(example_body(event_type))
    change(body)
    return body


@pytest.mark.parametrize(
    "body,reason",
    [
        (b"not json", "malformed_payload"),
        (b"[1, 2]", "malformed_payload"),
        (edited(lambda b: b.pop("event_type")), "unknown_event_type"),
        (edited(lambda b: b.update(event_type="comment.refused")), "unknown_event_type"),
        (edited(lambda b: b["data"].pop("thread")), "schema_mismatch"),
        (edited(lambda b: b["data"]["comment"].pop("author")), "schema_mismatch"),
        (edited(lambda b: b.update(timestamp=1.5)), "schema_mismatch"),
        (edited(lambda b: b.update(timestamp=2**64)), "schema_mismatch"),
        (edited(lambda b: b["data"]["thread"].update(updated_at="2023-02-30T00:00:00Z")),
         "schema_mismatch"),
        (edited(lambda b: b["data"]["comment"]["author"].update(avatar="not a url")),
         "schema_mismatch"),
    ],
    ids=["not-json", "array", "no-type", "unknown-type", "no-thread", "no-author", "float-ts",
         "ts-beyond-int64", "impossible-date", "relative-avatar"],
)  # fmt: skip
def test_check_body_reasons(body: Any, reason: str) -> None:
    with pytest.raises(WebhookSchemaError) as info:
        check_body(body)
    assert info.value.reason == reason and reason in SCHEMA_REASONS
    assert isinstance(info.value, WebhookPayloadError)  # one tree with the SDK's errors
    if reason == "schema_mismatch":
        assert info.value.problems


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_check_body_accepts_every_example_as_bytes_text_or_object(event_type: str) -> None:
    body = example_body(event_type)
    for form in (body, json.dumps(body), json.dumps(body).encode()):
        assert check_body(form) == event_type
        assert check_body(form, event_type) == event_type


def test_check_body_with_an_expected_type() -> None:
    with pytest.raises(WebhookSchemaError) as info:
        check_body(example_body("comment.created"), "comment.deleted")
    assert info.value.reason == "schema_mismatch"
    assert info.value.problems[0].startswith("event_type:")
    with pytest.raises(WebhookSchemaError) as info:
        check_body(example_body("comment.created"), "comment.refused")
    assert info.value.reason == "unknown_event_type"
