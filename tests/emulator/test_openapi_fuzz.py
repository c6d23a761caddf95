"""Fuzzing the emulator's HTTP API: schemathesis from its own OpenAPI schema, plus raw inputs.

Every operation of ``/openapi.json`` gets schema-generated requests (half of
them aimed at the real site and a real comment, with valid credentials) over
loopback: no answer may be a 5xx, every status code must be one the schema
documents, and every answer must match its documented schema and content type
(errors are ``ErrorBody`` ``{"gcCode", "error", "message"}``: 400 for validation,
never FastAPI's 422; HTTP 200 with gcCode 410 on a webhook auth failure). The
routes that read raw bodies or query strings by hand are described in the schema
through ``openapi_extra``; they also get Hypothesis-generated junk beyond the
schema directly: each answer is a 2xx or a JSON error with a ``gcCode``.

The dispatcher is off (``run_dispatcher=False``) so that a fuzzed webhook URL is
never contacted. Seeds are fixed (``SEED``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from gcbridge.emulator.service import create_app
from gcbridge.emulator.settings import Settings
from gcbridge.emulator.sites import Sites
from gcbridge.emulator.testing import EXAMPLE_SITE, OTHER_SITE
from gcbridge.serving import BackgroundServer

pytestmark = pytest.mark.slow

SEED = 20240603
EXAMPLES = 12
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    response_schema_conformance,
    content_type_conformance,
]
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


@dataclass
class Target:
    url: str
    app: Any
    user_token: str
    comment_id: str


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    base = Settings(
        sites=Sites([EXAMPLE_SITE, OTHER_SITE]), data_dir=Path(tmp_path_factory.mktemp("emu"))
    )
    with BackgroundServer(
        lambda port: create_app(replace(base, port=port), run_dispatcher=False)
    ) as srv:
        r = httpx.post(
            srv.url + "/api/pub/auth/register",
            json={
                "website_id": EXAMPLE_SITE.shortname,
                "username": "fuzzer",
                "email": "fuzz@example.com",
                "password": "correct horse battery staple",
            },
        )
        assert r.status_code == 201, r.text
        token = r.json()["token"]
        r = httpx.post(
            srv.url + "/api/pub/comments",
            headers={"Authorization": f"Bearer {token}"},
            json={
                "website_id": EXAMPLE_SITE.shortname,
                "uid": "fuzz-1",
                "url": "https://example.com/a",
                "page_title": "Fuzz",
                "content": "first",
            },
        )
        assert r.status_code == 201, r.text
        yield Target(srv.url, srv.app, token, r.json()["id"])


def _aim(case: Any, target: Target, real: bool) -> dict[str, str]:
    """Point half the cases at real ids; pick the credential the route expects."""
    params = case.path_parameters or {}
    if real:
        for name, value in (
            ("website_id", EXAMPLE_SITE.website_id),
            ("comment_id", target.comment_id),
        ):
            if name in params:
                params[name] = value
    path = case.operation.path
    if path.startswith(("/webhook", "/api/moderation", "/api/dashboard")):
        return {"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"}
    return {"Authorization": f"Bearer {target.user_token}"} if real else {}


def _assert_schema_tells_the_truth(spec: dict[str, Any]) -> None:
    """No FastAPI 422 (the app answers 400), hand-read inputs documented."""
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            assert "422" not in op["responses"], (method, path)
    paths = spec["paths"]
    thread_load = paths["/api/pub/thread-load/"]["get"]
    assert {p["name"] for p in thread_load["parameters"]} == {
        "service_id",
        "url",
        "uid",
        "page_title",
        "inapp",
        "redirect",
    }
    assert "400" in thread_load["responses"]
    for route in ("setup", "verify"):
        assert "requestBody" in paths["/webhook/website/{website_id}/" + route]["post"]
    error = spec["components"]["schemas"]["ErrorBody"]
    assert set(error["required"]) == {"gcCode", "error", "message"}


def test_every_operation_against_the_schema(target: Target) -> None:
    schema = schemathesis.openapi.from_dict(target.app.openapi())
    schema.config.update(base_url=target.url)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15  # the schema lists the service's routes
    _assert_schema_tells_the_truth(target.app.openapi())
    print(f"schemathesis: {len(operations)} operations x {EXAMPLES} examples, seed {SEED}")
    for operation in operations:

        @seed(SEED)
        @FUZZ
        @given(case=operation.as_strategy(), real=st.booleans())
        def check(case: Any, real: bool) -> None:
            headers = _aim(case, target, real)
            case.call_and_validate(headers=headers, checks=CHECKS, timeout=10)

        check()


junk = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=300).map(lambda b: b.decode("latin-1")),
    st.sampled_from(
        [
            "",
            "true",
            "false",
            "0",
            "-1",
            "\x00",
            "%00",
            "../../etc/passwd",
            "a" * 5000,
            "https://example.com/" + "x" * 3000,
            "javascript:alert(1)",
            "http://[::1]/",
        ]
    ),
)
json_junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | junk,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(junk, inner, max_size=4),
    max_leaves=15,
)


def _assert_graceful(r: httpx.Response) -> None:
    assert r.status_code < 500, (r.status_code, r.text[:500])
    if r.status_code >= 400:
        assert isinstance(r.json().get("gcCode"), int), r.text[:500]


@seed(SEED)
@FUZZ
@given(
    params=st.dictionaries(
        st.sampled_from(["service_id", "url", "uid", "page_title", "inapp", "redirect", "other"]),
        junk,
        max_size=7,
    ),
    valid_site=st.booleans(),
)
def test_thread_load_query_junk(target: Target, params: dict[str, str], valid_site: bool) -> None:
    if valid_site:
        params = {
            "service_id": EXAMPLE_SITE.shortname,
            "inapp": "true",
            "redirect": "true",
            **params,
        }
    _assert_graceful(httpx.get(target.url + "/api/pub/thread-load/", params=params, timeout=10))


@seed(SEED)
@FUZZ
@given(
    body=st.one_of(json_junk.map(lambda v: json.dumps(v).encode()), st.binary(max_size=500)),
    route=st.sampled_from(["setup", "verify"]),
    headers=st.dictionaries(
        st.sampled_from(["X-Webhook-Signature", "X-Webhook-Timestamp"]),
        junk.map(lambda s: s.encode("utf-8", "replace")[:200]),
        max_size=2,
    ),
)
def test_webhook_raw_body_junk(
    target: Target, body: bytes, route: str, headers: dict[str, bytes]
) -> None:
    auth = {"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"}
    try:
        r = httpx.post(
            f"{target.url}/webhook/website/{EXAMPLE_SITE.website_id}/{route}",
            content=body,
            headers={**auth, **headers},
            timeout=10,
        )
    except httpx.LocalProtocolError:
        return  # httpx itself refuses header values it cannot send: nothing reached the server
    _assert_graceful(r)
