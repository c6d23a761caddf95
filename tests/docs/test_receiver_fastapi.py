"""docs_src/receiver_fastapi.py (guide "Receive webhooks") receives a signed delivery."""

import importlib.util
import sys
from pathlib import Path

from gcbridge.serving import BackgroundServer
from gcbridge.webhooks.testing import WebhookPoster

DOCS_SRC = Path(__file__).parents[2] / "docs_src"


def load(name, monkeypatch, **env):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    spec = importlib.util.spec_from_file_location(f"docs_src_{name}", DOCS_SRC / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_receiver_example_verifies_dedupes_and_refuses(monkeypatch, tmp_path, capsys):
    module = load(
        "receiver_fastapi",
        monkeypatch,
        GC_WEBHOOK_SECRET="whsec_docs",
        GC_DELIVERY_LOG=str(tmp_path / "deliveries.db"),
    )
    with BackgroundServer(lambda port: module.create_app()) as server:
        post = WebhookPoster(server.url, secret="whsec_docs", path="/webhooks/gc")
        first = post("comment.created", content="First!", author_name="ada")
        assert first.status_code == 200 and first.json() == {"ok": True}
        again = post(duplicate=True)
        assert again.status_code == 200 and again.json()["duplicate"] is True
        forged = post("comment.created", wrong_secret=True)
        assert forged.status_code == 401 and forged.json()["error"] == "signature_mismatch"
    assert "comment.created: ada said 'First!'" in capsys.readouterr().out
    sys.modules.pop("docs_src_receiver_fastapi", None)
