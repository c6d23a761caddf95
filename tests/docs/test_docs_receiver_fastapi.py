"""docs_src/receiver_fastapi.py (README "Receiving webhooks") receives a signed delivery."""

import importlib.util
import json
import sys
import time
from pathlib import Path

import httpx

from gcbridge.serving import BackgroundServer
from gcbridge.webhooks import signed_headers

DOCS_SRC = Path(__file__).parents[2] / "docs_src"


def load(name, monkeypatch, **env):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    spec = importlib.util.spec_from_file_location(f"docs_src_{name}", DOCS_SRC / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def event_body():
    comment = {
        "id": "c1",
        "external_id": None,
        "content": "First!",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "thread_id": "t1",
        "external_thread_id": "a-1",
        "parent_id": None,
        "external_parent_id": None,
        "status": "approved",
        "author": {
            "id": "u1",
            "external_id": "42",
            "guest": False,
            "name": "ada",
            "email": "ada@example.com",
            "avatar": "https://example.com/a.png",
        },
    }
    thread = {
        "id": "t1",
        "page_title": "Hello",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "external_id": "a-1",
    }
    body = {
        "event_type": "comment.created",
        "timestamp": int(time.time() * 1000),
        "website_id": "5f1c0ffee0ddba11c0ffee00",
        "data": {"comment": comment, "thread": thread},
    }
    return json.dumps(body, separators=(",", ":")).encode()


def test_receiver_example_verifies_dedupes_and_refuses(monkeypatch, tmp_path, capsys):
    module = load(
        "receiver_fastapi",
        monkeypatch,
        GC_WEBHOOK_SECRET="whsec_docs",
        GC_DELIVERY_LOG=str(tmp_path / "deliveries.db"),
    )
    body = event_body()
    ts = int(time.time() * 1000)
    headers = {
        **signed_headers("whsec_docs", ts, body),
        "X-Webhook-Delivery-Id": "dlv-1",
        "X-Webhook-Retry-Count": "0",
        "Content-Type": "application/json",
    }
    with (
        BackgroundServer(lambda port: module.app) as server,
        httpx.Client(base_url=server.url) as http,
    ):
        first = http.post("/webhooks/gc", content=body, headers=headers)
        assert first.status_code == 200 and first.json() == {"ok": True}
        again = http.post("/webhooks/gc", content=body, headers=headers)
        assert again.status_code == 200 and again.json()["duplicate"] is True
        forged = http.post(
            "/webhooks/gc", content=body, headers={**headers, "X-Webhook-Signature": "0" * 64}
        )
        assert forged.status_code == 401 and forged.json()["error"] == "signature_mismatch"
    assert "comment.created: ada said 'First!'" in capsys.readouterr().out
    sys.modules.pop("docs_src_receiver_fastapi", None)
