"""The HTTP API page's example answers: one per JSON answer, each with a live answer's fields.

The examples live in :mod:`gcbridge.emulator.api_examples`; a live emulator answers
each route here and every example must have exactly the fields of that answer (the
first item stands for a list), so a changed route cannot leave its example behind.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gcbridge.emulator.api_examples import EXAMPLES
from gcbridge.emulator.testing import EXAMPLE_SITE, running_emulator
from gcbridge.sso import SsoIssuer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "gen"))

from ref_http import emulator_openapi, http_reference  # noqa: E402

# JSON answers without an example, and why
NO_EXAMPLE = {
    ("get", "/api/dashboard/events"): "the event catalog: the Event schemas page shows it",
    ("get", "/api/dashboard/events/{event_type}/schema"): "a JSON Schema: the Event schemas page",
}


def shape(value: Any) -> Any:
    """The fields of ``value``, recursively (a list stands for its first item)."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__ if value is not None else None


def _same_fields(example: Any, live: Any) -> bool:
    if isinstance(example, dict) and isinstance(live, dict):
        return example.keys() == live.keys() and all(
            _same_fields(example[k], live[k]) for k in example
        )
    if isinstance(example, list) and isinstance(live, list):
        return not example or not live or _same_fields(example[0], live[0])
    return True


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, str, int], Any]]:
    """Every route answered once by a live emulator: (method, path, status) -> body."""
    seen: dict[tuple[str, str, int], Any] = {}
    with (
        running_emulator(tmp_path_factory.mktemp("examples") / "data") as emu,
        httpx.Client(base_url=emu.url, timeout=30) as http,
    ):
        account = {"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"}
        admin = {"Authorization": f"Bearer {emu.admin_token}"}
        site = EXAMPLE_SITE.website_id

        def call(method: str, path: str, url: str | None = None, **kw: Any) -> Any:
            answer = http.request(method, url or path, **kw)
            body = answer.json() if answer.content else None
            assert answer.status_code < 300 and not (isinstance(body, dict) and "gcCode" in body), (
                method,
                path,
                answer.text[:300],
            )
            seen[(method.lower(), path, answer.status_code)] = body
            return body

        call("POST", "/_emulator/clock", headers=admin, json={"action": "freeze"})
        thread = {"url": "https://news.example.com/articles/42", "uid": "article-42"}
        call(
            "GET",
            "/api/pub/thread-load/",
            params={
                "service_id": "demo",
                **thread,
                "page_title": "A",
                "inapp": "true",
                "redirect": "true",
            },
        )
        call(
            "POST",
            "/webhook/website/{website_id}/setup",
            f"/webhook/website/{site}/setup",
            headers=account,
            json={"url": "https://hooks.example.com/gc", "events": ["comment.created"]},
        )
        sso = SsoIssuer(EXAMPLE_SITE.sso_secret, allow_weak_secret=True).issue(
            {"id": "42", "username": "ada", "email": "ada@example.com"}
        )
        signed = call(
            "POST",
            "/api/pub/sso/login",
            json={"api_public_key": EXAMPLE_SITE.sso_public_key, "ssoData": sso},
        )
        user = {"Authorization": f"Bearer {signed['token']}"}
        call("GET", "/api/pub/me", headers=user)
        grace = {"website_id": "demo", "username": "grace", "password": "long-enough"}
        call("POST", "/api/pub/auth/register", json={**grace, "email": "g@example.com"})
        call("POST", "/api/pub/auth/login", json=grace)
        comment = call(
            "POST",
            "/api/pub/comments",
            headers=user,
            json={"website_id": "demo", **thread, "page_title": "A", "content": "Hello"},
        )
        one = f"/api/pub/comments/{comment['id']}"
        call("GET", "/api/pub/comments", params={"website_id": "demo", "uid": "article-42"})
        call("PATCH", "/api/pub/comments/{comment_id}", one, headers=user, json={"content": "Hi"})
        moderation = f"/api/moderation/comments/{comment['id']}"
        call(
            "POST",
            "/api/moderation/comments/{comment_id}/approve",
            f"{moderation}/approve",
            headers=account,
        )
        call(
            "POST",
            "/api/moderation/comments/{comment_id}/refuse",
            f"{moderation}/refuse",
            headers=account,
        )
        call("DELETE", "/api/pub/comments/{comment_id}", one, headers=user)
        call(
            "GET",
            "/webhook/website/{website_id}/config",
            f"/webhook/website/{site}/config",
            headers=account,
        )
        call(
            "POST",
            "/webhook/website/{website_id}/verify",
            f"/webhook/website/{site}/verify",
            headers=account,
        )
        calls_path = f"/webhook/website/{site}/calls"
        listed = call("GET", "/webhook/website/{website_id}/calls", calls_path, headers=account)
        for _ in range(100):  # the receiver does not resolve: the call fails at once
            if listed["calls"] and listed["calls"][0]["status"] == "failed":
                break
            advance = {"action": "advance", "seconds": 7 * 3600}  # past the whole schedule
            call("POST", "/_emulator/clock", headers=admin, json=advance)
            listed = call("GET", "/webhook/website/{website_id}/calls", calls_path, headers=account)
        call(
            "POST",
            "/webhook/call/{call_id}/replay",
            f"/webhook/call/{listed['calls'][0]['id']}/replay",
            headers=account,
        )
        call(
            "DELETE",
            "/webhook/website/{website_id}/disable",
            f"/webhook/website/{site}/disable",
            headers=account,
        )
        call("GET", "/_emulator/health")
        call("GET", "/_emulator/clock", headers=admin)
        call(
            "PUT", "/_emulator/snapshots/{name}", "/_emulator/snapshots/before-test", headers=admin
        )
        call("GET", "/_emulator/snapshots", headers=admin)
        call(
            "POST",
            "/_emulator/snapshots/{name}/restore",
            "/_emulator/snapshots/before-test/restore",
            headers=admin,
        )
        call("POST", "/_emulator/reset", headers=admin)
        call("GET", "/api/dashboard/site", headers=account)
        call("POST", "/api/dashboard/events/check", headers=account, json={"body": "{}"})
        yield seen


def test_every_example_has_the_fields_of_a_live_answer(live) -> None:
    for (method, path), answers in EXAMPLES.items():
        for status, example in answers.items():
            assert (method, path, status) in live, f"{method.upper()} {path} {status} not called"
            body = live[(method, path, status)]
            assert _same_fields(example, body), (method, path, shape(example), shape(body))


def test_every_json_answer_has_an_example_on_the_page() -> None:
    schema = emulator_openapi()
    page = http_reference(schema)
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, answer in operation.get("responses", {}).items():
                if not status.startswith("2") or "content" not in answer:
                    continue
                if (method, path) in NO_EXAMPLE:
                    continue
                assert "example" in answer["content"]["application/json"], (method, path, status)
    section = page.split("### `POST /api/pub/sso/login`", 1)[1].split("\n### ", 1)[0]
    assert '"token":' in section and "Answer 200, for example" in section
    section = page.split("### `POST /webhook/website/{website_id}/setup`", 1)[1].split("\n### ")[0]
    assert '"secret":' in section
