"""``--gc-report DIR``: the HTML report an app team opens from disk (run under pytest-xdist)."""

from __future__ import annotations

import re
import struct
import zipfile
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.harness.report.test_diagnosis import DROPS_CONFLICT
from tests.harness.scenarios.test_good_and_broken import MUTANT_WAIT

pytest_plugins = ["pytester"]

pytestmark = [pytest.mark.browser, pytest.mark.slow]


class _Report(HTMLParser):
    """The matrix cells, the run sections (their class, timelines, images, links)."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []
        self.runs: list[dict[str, object]] = []
        self.external: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in ("script", "link") or (tag == "img" and "://" in a.get("src", "")):
            self.external.append(tag)
        if tag == "td" and "data-engine" in a:
            self.cells.append(a)
        if tag in ("section", "details") and "run" in a.get("class", "").split():
            # a failure is an open section; a passed run, a collapsed <details>
            collapsed = tag == "details" and "open" not in a
            self.runs.append(
                {
                    **a,
                    "timelines": [],
                    "images": [],
                    "links": [],
                    "diagnosis": [],
                    "collapsed": collapsed,
                }
            )
        if tag == "pre" and a.get("class") == "timeline":
            self._in = "timelines"
        if tag == "p" and a.get("class") == "diagnosis":
            self._in = "diagnosis"
        if tag == "img" and self.runs:
            self.runs[-1]["images"].append(a["src"])  # type: ignore[union-attr]
        if tag == "a" and self.runs and "artifacts/" in a.get("href", ""):
            self.runs[-1]["links"].append(a["href"])  # type: ignore[union-attr]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("pre", "p"):
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in and self.runs:
            self.runs[-1][self._in].append(data)  # type: ignore[union-attr]


def _png_is_not_blank(path: Path) -> bool:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat = 8, b""
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        if kind == b"IDAT":
            idat += data[at + 8 : at + 8 + length]
        at += 12 + length
    pixels = zlib.decompress(idat)
    # A blank (one-colour) page has a handful of distinct byte values; text has dozens.
    return len(set(pixels)) > 24


def test_report_shows_matrix_timelines_and_failure_artifacts(pytester: pytest.Pytester) -> None:
    (pytester.path / "bridge.js").write_text(DROPS_CONFLICT, encoding="utf-8")

    result = pytester.runpytest_subprocess(
        "--pyargs",
        "gcbridge_harness.scenarios",
        "--gc-bridge=bridge.js",
        # Screenshots and traces are Playwright's: the Chromium runs have them.
        "--gc-engine",
        "chromium",
        "--gc-report",
        "report",
        "-k",
        "(conflict_resolved or login_on_ready) and not document-end and not page-started",
        "-p",
        "no:cacheprovider",
        "-n",
        "2",
        *MUTANT_WAIT,
        timeout=300,
    )

    assert result.ret == 1, result.stdout.str()
    report_dir = pytester.path / "report"
    parser = _Report()
    parser.feed((report_dir / "index.html").read_text(encoding="utf-8"))
    assert parser.external == [], "the report must open from disk: no script, no CDN"

    cells = {(c["data-engine"], c["data-point"], c["class"]) for c in parser.cells}
    assert cells == {
        ("chromium", "document-start", "passed"),
        ("chromium", "page-finished", "passed"),
        ("chromium", "document-start", "failed"),
        ("chromium", "page-finished", "failed"),
    }
    assert len(parser.cells) == 4  # 2 scenarios x 2 injection points

    failed = [run for run in parser.runs if "failed" in str(run["class"])]
    passed = [run for run in parser.runs if "passed" in str(run["class"])]
    assert len(failed) == 2 and len(passed) == 2
    for run in failed:
        assert "conflict_resolved" in str(run["data-nodeid"])
        timeline = "".join(run["timelines"])  # type: ignore[arg-type]
        assert "widget emitted         gc-sso-conflict" in timeline
        assert "service login answered         409 refused: username_conflict" in timeline
        assert any("gc-sso-conflict" in d for d in run["diagnosis"])  # type: ignore[union-attr]
        (shot,) = run["images"]  # type: ignore[misc]
        assert _png_is_not_blank(report_dir / str(shot))
        (trace,) = run["links"]  # type: ignore[misc]
        with zipfile.ZipFile(report_dir / str(trace)) as archive:
            assert any(name.endswith(".trace") for name in archive.namelist())
            # the kept trace holds no ssoData message part in clear
            # (base64 of '{"' is "eyJ"; masked, 4 characters stay)
            for name in archive.namelist():
                data = archive.read(name).decode("utf-8", "replace")
                assert not re.search(r"eyJ[A-Za-z0-9+/=]{12,}", data), name
    assert all(not run["collapsed"] for run in failed)
    for run in passed:
        assert run["collapsed"], "a passed run is one collapsed line"
        assert run["images"] == [] and run["links"] == []
        assert "inject gcSsoLogin" in "".join(run["timelines"])  # type: ignore[arg-type]
