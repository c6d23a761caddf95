"""The report's layout: runs in the matrix's order, passed runs collapsed,
skip reasons shown. No browser: rows as :mod:`gcbridge_harness.report.reporting` builds them."""

from __future__ import annotations

import re
from pathlib import Path

from gcbridge_harness.report import write_report

POINTS = ("document-start", "document-end", "page-finished")


def _row(scenario: str, point: str, outcome: str, **extra: object) -> dict[str, object]:
    return {
        "nodeid": f"gcbridge_harness/scenarios/test_x.py::test_{scenario}[chromium-{point}]",
        "scenario": f"x: {scenario}",
        "engine": "chromium",
        "point": point,
        "outcome": outcome,
        "message": "assert False" if outcome == "failed" else "",
        "diagnosis": [],
        "timelines": ["  0.100 s  app     loaded\n" * 30],
        "screenshots": [],
        "traces": [],
        **extra,
    }


def test_runs_follow_the_matrix_order_and_passed_runs_are_collapsed(tmp_path: Path) -> None:
    rows = [_row(name, point, "passed") for name in ("b", "a") for point in POINTS]
    rows.append(_row("c", "page-finished", "failed"))
    rows.append(_row("c", "document-start", "failed"))
    rows.append(_row("d", "document-end", "skipped", skip_reason="no WebKit here"))
    page = write_report(tmp_path, rows, bridge="bridge.js").read_text(encoding="utf-8")

    runs = re.findall(r'<(section|details) class="run (\w+)"[^>]*data-nodeid="([^"]+)"', page)
    order = [(tag, outcome, nodeid.split("[")[1].rstrip("]")) for tag, outcome, nodeid in runs]
    assert order[:2] == [
        ("section", "failed", "chromium-document-start"),
        ("section", "failed", "chromium-page-finished"),
    ]
    passed = [o for o in order if o[1] == "passed"]
    assert [p[2] for p in passed] == [f"chromium-{p}" for p in POINTS] * 2  # a's, then b's
    assert all(tag == "details" for tag, outcome, _ in order if outcome != "failed")
    # collapsed: no passed or skipped run opens by itself
    for match in re.finditer(r'<details class="run (passed|skipped)"([^>]*)>', page):
        assert " open" not in match.group(2)
    assert "no WebKit here" in page
