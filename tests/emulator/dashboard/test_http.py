"""The dashboard's files and its site-info route, over plain HTTP."""

from __future__ import annotations

import re
from importlib import resources

import httpx
import pytest

from gcbridge.emulator.dashboard.pages import SCRIPT_MODULES, STATIC_FILES
from gcbridge.emulator.testing import OTHER_SITE, RunningEmulator

STATIC = resources.files("gcbridge.emulator.dashboard").joinpath("static")


@pytest.mark.parametrize(
    ("path", "media_type"),
    [
        ("/dashboard/", "text/html"),
        ("/dashboard/dashboard.css", "text/css"),
        # Module scripts are refused by the browser unless served as JavaScript.
        *((f"/dashboard/{name}", "text/javascript") for name in SCRIPT_MODULES),
    ],
)
def test_files_are_served_with_strict_headers(
    emu: RunningEmulator, path: str, media_type: str
) -> None:
    answer = httpx.get(emu.url + path)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith(media_type)
    csp = answer.headers["content-security-policy"]
    assert "default-src 'none'" in csp
    assert "script-src 'self'" in csp
    assert "unsafe-inline" not in csp and "http" not in csp.replace(emu.url, "")
    assert "frame-ancestors 'none'" in csp
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["cache-control"] == "no-store"


def test_the_page_loads_nothing_from_elsewhere(emu: RunningEmulator) -> None:
    html = httpx.get(emu.url + "/dashboard/").text
    links = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert sorted(links) == ["dashboard.css", "main.js"]
    assert '<script type="module" src="main.js"></script>' in html
    assert "<script>" not in html and "style=" not in html  # no inline code the CSP would refuse


def test_every_module_import_is_a_served_file(emu: RunningEmulator) -> None:
    """The modules import each other by relative path only, each one on the served list."""
    imported = set()
    for name in SCRIPT_MODULES:
        source = httpx.get(emu.url + "/dashboard/" + name).text
        assert source.startswith("/*"), f"{name} opens with a comment saying what it owns"
        specifiers = re.findall(r"^import [^;]* from '([^']+)';$", source, flags=re.M)
        assert not re.search(r"\bimport\s*\(", source)  # no dynamic import
        # Data reaches the page through textContent only.
        assert not re.search(r"\.(inner|outer)HTML\b|insertAdjacentHTML|document\.write", source)
        for spec in specifiers:
            assert spec.startswith("./") and spec[2:] in SCRIPT_MODULES, (name, spec)
            imported.add(spec[2:])
    assert imported | {"main.js"} == set(SCRIPT_MODULES)


def test_the_package_ships_every_static_file() -> None:
    """Every file in static/ is served (the list, or /favicon.ico's own route), and every listed
    file is in the package."""
    shipped = {entry.name for entry in STATIC.iterdir() if entry.is_file()}
    assert shipped == set(STATIC_FILES) | {"favicon.ico"}


def test_unknown_files_are_not_found(emu: RunningEmulator) -> None:
    for path in ("/dashboard/api.py", "/dashboard/..%2Fapi.py", "/dashboard/static"):
        assert httpx.get(emu.url + path).status_code == 404


def test_dashboard_without_slash_redirects(emu: RunningEmulator) -> None:
    answer = httpx.get(emu.url + "/dashboard")
    assert answer.status_code == 308
    assert answer.headers["location"] == "/dashboard/"


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic x"}]
)
def test_site_route_refuses_without_a_valid_token(
    emu: RunningEmulator, headers: dict[str, str]
) -> None:
    answer = httpx.get(emu.url + "/api/dashboard/site", headers=headers)
    body = answer.json()
    assert body["gcCode"] == 410
    assert body["error"] == "invalid_account_token"
    assert emu.site.website_id not in answer.text


def test_site_route_answers_the_site_of_the_token(emu: RunningEmulator) -> None:
    answer = httpx.get(
        emu.url + "/api/dashboard/site",
        headers={"Authorization": f"Bearer {OTHER_SITE.account_token}"},
    )
    body = answer.json()
    assert body["shortname"] == OTHER_SITE.shortname
    assert body["website_id"] == OTHER_SITE.website_id
    assert body["sso_public_key"] == OTHER_SITE.sso_public_key
    assert body["thread_load_url"] == emu.url + "/api/pub/thread-load/"
    assert body["widget_url"].startswith(emu.url)
    assert answer.headers["cache-control"] == "no-store"
    for secret in (OTHER_SITE.sso_secret, OTHER_SITE.site_key_secret, OTHER_SITE.account_token):
        assert secret not in answer.text
