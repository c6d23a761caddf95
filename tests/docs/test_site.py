"""The documentation site builds strictly (any warning fails), offline, and its reference pages
are generated from the code: every command of the parser, every route of the emulator's
OpenAPI schema, every reason code of the exception trees."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gcbridge.cli import build_parser
from gcbridge.sso.errors import EXPIRED_REASONS, INVALID_REASONS
from gcbridge.webhooks.errors import VERIFICATION_REASONS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "gen"))

from hooks import SPEC_CITATION  # noqa: E402
from ref_cli import walk  # noqa: E402
from ref_harness import FILES, matrix_text, stated  # noqa: E402
from ref_http import emulator_openapi  # noqa: E402


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "harness")])
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "WARNING" not in run.stderr, run.stderr
    return out


def text_of(page: Path) -> str:
    return re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))


def test_every_command_is_in_the_cli_reference(site: Path) -> None:
    page = text_of(site / "reference" / "cli.html")
    for path, parser in walk(build_parser()):
        assert f"gcbridge {' '.join(path)}".strip() in page
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:  # hidden from --help (test hooks)
                continue
            for option in action.option_strings:
                assert option in page, (path, option)


def test_every_route_is_in_the_http_reference(site: Path) -> None:
    page = text_of(site / "reference" / "http-api.html")
    for path, operations in emulator_openapi()["paths"].items():
        for method in operations:
            assert f"{method.upper()} {path}" in page


def test_every_published_reason_is_in_the_reason_codes(site: Path) -> None:
    page = text_of(site / "reference" / "reason-codes.html")
    for reason in VERIFICATION_REASONS | INVALID_REASONS | EXPIRED_REASONS:
        assert reason in page
    for reason in ("port_in_use", "missing_extra", "bridge_not_found", "invalid_request"):
        assert reason in page


def test_the_site_works_offline(site: Path) -> None:
    for page in site.rglob("*.html"):
        if page.name == "404.html":  # served by a web server, from the root
            continue
        html = page.read_text(encoding="utf-8")
        assert "fonts.googleapis" not in html and "fonts.gstatic" not in html, page
        for src in re.findall(r'<(?:script|img)[^>]+src="([^"]+)"', html):
            assert not src.startswith(("http:", "https:", "//")), (page, src)
            assert (page.parent / src.split("?")[0]).is_file(), (page, src)


def test_no_page_cites_the_specification(site: Path) -> None:
    for page in site.rglob("*.html"):
        found = SPEC_CITATION.search(text_of(page))
        assert found is None, (page.relative_to(site), found.group(0))


def test_the_readmes_are_pages_with_working_links(site: Path) -> None:
    harness = site / "guides" / "harness.html"
    html = harness.read_text(encoding="utf-8")
    assert 'href="../reference/bridge-js.html#security-model"' in html
    assert "bridge-harness-report" in (site / "quickstart" / "ci.html").read_text(encoding="utf-8")


def test_the_harness_matrix_is_stated_alike_everywhere(site: Path) -> None:
    """Size and time come from one place (the scenarios and bench/results.json)."""
    fresh = matrix_text()
    for name in FILES:
        texts = stated((ROOT / name).read_text(encoding="utf-8"))
        assert texts and all(t == fresh for t in texts), (
            f"{name} states another matrix: run python docs/gen/ref_harness.py"
        )
    assert re.search(r"\b\d+ runs in one engine\b", text_of(site / "guides" / "harness.html"))
    assert re.search(r"\b\d+ runs in one engine\b", text_of(site / "contributing.html"))


def test_a_page_citing_the_specification_fails_the_build() -> None:
    from types import SimpleNamespace

    from hooks import on_page_markdown
    from mkdocs.exceptions import PluginError

    page = SimpleNamespace(file=SimpleNamespace(src_uri="guides/x.md"))
    assert on_page_markdown("the widget's events", page, None, None) == "the widget's events"
    with pytest.raises(PluginError, match="spec 6.2"):
        on_page_markdown("as spec 6.2 says", page, None, None)


def test_readme_links_become_site_links_or_repository_paths() -> None:
    from include_readme import expand

    text = (
        "[bridge.js](../README.md#channels), [kits](ios/README.md), "
        "[`sync_kits.py`](sync_kits.py), [the table](../protocol/app-protocol.json)"
    )
    source = ROOT / "bridge" / "platforms" / "README.md"
    original = source.read_text(encoding="utf-8")
    assert "[[include:" not in original
    shown = expand("[[include: bridge/platforms/README.md]]", "kits/index.md")
    assert "](../reference/bridge-js.md" in shown and "](ios.md)" in shown
    from include_readme import _rewrite

    out = _rewrite("bridge/platforms/README.md", "kits/index.md", text)
    assert out == (
        "[bridge.js](../reference/bridge-js.md#channels), [kits](ios.md), "
        "`bridge/platforms/sync_kits.py`, "
        "the table (`bridge/protocol/app-protocol.json` in the repository)"
    )
