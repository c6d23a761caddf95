# ruff: noqa: E501  (report prose and SQL read better unbroken)
"""Row 5: the harness and bridge.js.

- Wall time of the whole scenario matrix (``pytest --pyargs gcbridge_harness.scenarios``
  in a subprocess), and the cost of each scenario per injection point (from the
  JUnit XML report: test name -> seconds, grouped by the parametrize id).
- bridge.js size, raw and gzip -9.
- Forwarding 10,000 named messages in Chromium through bridge.js (transport =
  a counting function) against a bare listener doing the minimum (same-window
  and same-origin check, JSON.parse, name check, JSON.stringify, call), on a
  page served by Playwright's router on a loopback origin. Time in-page with
  ``performance.now()`` from the first ``postMessage`` to the 10,000th delivery.
"""

from __future__ import annotations

import gzip
import re
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET  # noqa: N817  (parsing our own pytest's report)
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchlib import REPO, Measure, Row

TITLE = "Harness matrix, bridge.js size and in-browser forwarding"

ORIGIN = "http://127.0.0.1:9"  # never contacted: Playwright's router answers
PAGE = b"<!doctype html><meta charset=utf-8><title>bench</title><body>bench</body>"

BARE_LISTENER = """
window.addEventListener('message', function (e) {
  if (e.source !== window || e.origin !== location.origin || typeof e.data !== 'string') return;
  var o;
  try { o = JSON.parse(e.data); } catch (x) { return; }
  if (o && typeof o === 'object' && typeof o.name === 'string') window.__sink(JSON.stringify(o));
});
"""

FLOOD = """
async (n) => {
  let count = 0, resolve;
  const done = new Promise((r) => { resolve = r; });
  window.__sinkImpl = () => { count += 1; if (count === n) resolve(); };
  const msg = JSON.stringify({name: 'gc-loaded', count: 3});
  const t0 = performance.now();
  for (let i = 0; i < n; i++) window.postMessage(msg, location.origin);
  await done;
  return performance.now() - t0;
}
"""

SINK = "window.__sink = function (t) { window.__sinkImpl(t); };"


def _forwarding(bridge_text: str, n: int, rounds: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    from gcbridge.browser import find_chromium

    times: dict[str, list[float]] = {"bridge": [], "bare": []}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_chromium(None), headless=True)
        try:
            page = browser.new_context().new_page()
            errors: list[Any] = []
            page.on("pageerror", lambda err: errors.append(err))
            page.route(
                f"{ORIGIN}/**",
                lambda route: route.fulfill(status=200, body=PAGE, content_type="text/html"),
            )
            setups = {
                "bridge": lambda: (
                    page.evaluate(
                        f"() => {{ {SINK} window.gcBridgeConfig = {{transport: window.__sink}}; }}"
                    ),
                    page.add_script_tag(content=bridge_text),
                ),
                "bare": lambda: page.evaluate(f"() => {{ {SINK} {BARE_LISTENER} }}"),
            }
            for i in range(rounds + 1):  # round 0 warms the browser up
                for name, setup in setups.items():
                    page.goto(f"{ORIGIN}/blank")
                    setup()
                    elapsed = float(page.evaluate(FLOOD, n))
                    if i:
                        times[name].append(elapsed)
            if errors:
                raise RuntimeError(f"page errors during the forwarding benchmark: {errors[:3]}")
        finally:
            browser.close()
    return {k: statistics.median(v) for k, v in times.items()}


_PARAM = re.compile(r"^(?P<test>[^\[]+)(?:\[(?P<param>.*)\])?$")


def _matrix(row: Row) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "--pyargs",
            "gcbridge_harness.scenarios",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={report}",
            "-o",
            "junit_family=xunit2",
        ]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900)
        wall = time.perf_counter() - t0
        if not report.exists() or proc.returncode in (4, 5):
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or ["no output"]
            row.notes.append(
                f"Scenario matrix not measured: pytest exit {proc.returncode} ({tail[0]})."
            )
            return
        cases = ET.parse(report).getroot().iter("testcase")
        per: dict[str, dict[str, float]] = defaultdict(dict)
        outcomes: dict[str, int] = defaultdict(int)
        for case in cases:
            match = _PARAM.match(case.get("name", ""))
            assert match is not None
            outcome = (
                "failed"
                if case.find("failure") is not None or case.find("error") is not None
                else ("skipped" if case.find("skipped") is not None else "passed")
            )
            outcomes[outcome] += 1
            per[match["test"]][match["param"] or "-"] = float(case.get("time", 0))
    count = sum(outcomes.values())
    row.measures.append(
        Measure(
            "scenario matrix wall time",
            "s",
            wall,
            higher_is_better=False,
            note=f"{count} tests: {dict(outcomes)}",
        )
    )
    row.measures.append(
        Measure(
            "mean cost per test",
            "s",
            sum(sum(v.values()) for v in per.values()) / max(count, 1),
            higher_is_better=False,
        )
    )
    _matrix_xdist(row, wall)
    params = sorted({p for v in per.values() for p in v})
    row.extra["matrix"] = {"wall_s": wall, "outcomes": dict(outcomes), "seconds": per}
    row.notes.append(
        f"Scenario matrix: {count} tests {dict(outcomes)} in {wall:.1f} s wall (pytest start-up and "
        "browser launch included). Seconds per scenario per injection point in the table below."
    )
    head = "| scenario | " + " | ".join(params) + " |"
    lines = [head, "|---|" + "---:|" * len(params)]
    for test, by_param in sorted(per.items()):
        cells = [f"{by_param[p]:.2f}" if p in by_param else "" for p in params]
        lines.append(f"| {test} | " + " | ".join(cells) + " |")
    row.extra.setdefault("tables", []).append("\n".join(lines))


def _matrix_xdist(row: Row, serial: float) -> None:
    """The same matrix under pytest-xdist ``-n 2`` (one worker per core here), against serial."""
    import importlib.util

    if importlib.util.find_spec("xdist") is None:
        row.notes.append("Matrix under -n 2 not measured: pytest-xdist is not installed.")
        return
    cmd = [sys.executable, "-m", "pytest", "--pyargs", "gcbridge_harness.scenarios", "-q"]
    t0 = time.perf_counter()
    proc = subprocess.run(
        [*cmd, "-p", "no:cacheprovider", "-n", "2"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    wall = time.perf_counter() - t0
    tail = (proc.stdout.strip().splitlines() or ["no output"])[-1]
    row.measures.append(
        Measure(
            "scenario matrix wall time, pytest -n 2",
            "s",
            wall,
            serial,
            "serial",
            higher_is_better=False,
            note=tail.strip("= "),
        )
    )
    row.notes.append(
        f"Matrix under pytest-xdist -n 2 (each worker its own emulator, backend and browser): "
        f"{wall:.1f} s wall against {serial:.1f} s serial, exit {proc.returncode} ({tail.strip('= ')})."
    )


def run(quick: bool) -> Row:
    """Size, forwarding and the scenario matrix."""
    from gcbridge.bridge import script

    row = Row(number=5, title=TITLE)
    data = script().text.encode("utf-8")
    row.measures.append(Measure("bridge.js size, raw", "bytes", len(data), higher_is_better=False))
    row.measures.append(
        Measure(
            "bridge.js size, gzip -9", "bytes", len(gzip.compress(data, 9)), higher_is_better=False
        )
    )

    n = 10_000
    rounds = 3 if quick else 7
    ms = _forwarding(data.decode("utf-8"), n, rounds)
    row.measures.append(
        Measure(
            f"forward {n:,} messages",
            "ms",
            ms["bridge"],
            ms["bare"],
            "bare listener",
            higher_is_better=False,
            rounds=rounds,
        )
    )
    row.notes.append(
        f"Forwarding: {n:,} window.postMessage calls of a named JSON string, timed in-page until the "
        f"transport received the last one; median of {rounds} rounds on fresh pages, headless Chromium. "
        f"Per message: bridge {ms['bridge'] * 1000 / n:.1f} us, bare listener {ms['bare'] * 1000 / n:.1f} us "
        "(both include the browser's own postMessage dispatch)."
    )
    _matrix(row)
    return row
