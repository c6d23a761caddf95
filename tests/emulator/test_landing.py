"""``GET /`` leads to the dashboard; ``/docs`` and ``/redoc`` work offline."""

from __future__ import annotations

import re

from tests.emulator.core_support import Emu


def test_the_root_leads_to_the_dashboard(emu: Emu) -> None:
    root = emu.http.get("/", follow_redirects=False)
    assert root.status_code in (302, 307) and root.headers["location"] == "/dashboard/"
    page = emu.http.get("/", follow_redirects=True)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert str(page.url).endswith("/dashboard/")


def _urls(html: str) -> list[str]:
    return re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", html)


def test_the_api_pages_load_nothing_from_elsewhere(emu: Emu) -> None:
    for page in ("/docs", "/redoc"):
        resp = emu.http.get(page)
        assert resp.status_code == 200, page
        urls = _urls(resp.text)
        assert urls, resp.text
        for url in urls:
            assert url.startswith("/"), (page, url)  # this emulator, never a CDN
            asset = emu.http.get(url)
            assert asset.status_code == 200 and asset.content, url
    docs = emu.http.get("/docs").text
    assert "/openapi.json" in docs and "/docs-static/swagger-ui-bundle.js" in docs
    bundle = emu.http.get("/docs-static/swagger-ui-bundle.js")
    assert "SwaggerUIBundle" in bundle.text
    # the OpenAPI document Swagger UI renders (3.1: Swagger UI 5 reads it)
    assert emu.http.get("/openapi.json").json()["openapi"].startswith("3.1")
