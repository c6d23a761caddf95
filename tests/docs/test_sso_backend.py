"""docs_src/sso_backend.py (README) serves verifiable ssoData behind the app's sign-in."""

import importlib.util
from pathlib import Path

import httpx

from gcbridge.serving import BackgroundServer
from gcbridge.sso import SsoVerifier

DOCS_SRC = Path(__file__).parents[2] / "docs_src"


def test_sso_backend_example(monkeypatch):
    monkeypatch.setenv("GC_SSO_SECRET", "sso-docs-secret-0123")
    spec = importlib.util.spec_from_file_location(
        "docs_src_sso_backend", DOCS_SRC / "sso_backend.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with (
        BackgroundServer(lambda port: module.app) as server,
        httpx.Client(base_url=server.url) as http,
    ):
        assert http.get("/sso-data").status_code == 401
        response = http.get("/sso-data", headers={"Authorization": "Bearer session-of-ada"})
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    user = SsoVerifier("sso-docs-secret-0123").verify(response.json()["ssoData"])
    assert (user.id, user.username) == ("42", "ada")
