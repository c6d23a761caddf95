# ruff: noqa: E501  (report prose and SQL read better unbroken)
"""Row 5: the harness and bridge.js.

- The scenario matrix as a team runs it (``pytest --pyargs gcbridge_harness.scenarios``
  in a subprocess), in each engine serially: wall time per scenario run (goal 0.5 s),
  and each scenario's seconds per run from the JUnit XML report. Then both engines
  under ``-n 2`` against the two serial runs (goal under 60 s on 2 cores).
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

TITLE = "Harness matrix in both engines, bridge.js size and in-browser forwarding"

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
ENGINES = ("chromium", "webkit")
PER_RUN_GOAL = 0.5  # seconds per scenario run, in each engine
BOTH_ENGINES_GOAL = 60.0  # seconds for the matrix of both engines on 2 cores


def _pytest_matrix(
    engine: str, report: Path, *extra: str
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """The scenario matrix as a team runs it (``pytest --pyargs``), one engine or ``all``."""
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "--pyargs",
        "gcbridge_harness.scenarios",
        "--gc-engine",
        engine,
        "-q",
        "-p",
        "no:cacheprovider",
        f"--junitxml={report}",
        "-o",
        "junit_family=xunit2",
        *extra,
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900)
    return time.perf_counter() - t0, proc


def _cases(report: Path) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Seconds per scenario run (setup, call and teardown, as JUnit counts them) by test."""
    per: dict[str, list[float]] = defaultdict(list)
    outcomes: dict[str, int] = defaultdict(int)
    for case in ET.parse(report).getroot().iter("testcase"):
        match = _PARAM.match(case.get("name", ""))
        assert match is not None
        if case.find("skipped") is not None:
            outcomes["skipped"] += 1
            continue
        failed = case.find("failure") is not None or case.find("error") is not None
        outcomes["failed" if failed else "passed"] += 1
        per[match["test"]].append(float(case.get("time", 0)))
    return per, outcomes


def _matrix(row: Row) -> None:
    """Each engine's matrix serially (cost per run), then both engines under ``-n 2``."""
    serial: dict[str, float] = {}
    by_engine: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for engine in ENGINES:
            report = Path(tmp) / f"{engine}.xml"
            wall, proc = _pytest_matrix(engine, report)
            if not report.exists() or proc.returncode not in (0, 1):
                tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or ["no output"]
                row.notes.append(
                    f"{engine} matrix not measured: pytest exit {proc.returncode} ({tail[0]})."
                )
                continue
            per, outcomes = _cases(report)
            runs = sum(outcomes[k] for k in ("passed", "failed"))
            serial[engine], by_engine[engine] = wall, per
            cost = sum(map(sum, per.values())) / max(runs, 1)
            row.measures.append(
                Measure(
                    f"{engine}: cost per scenario run",
                    "s",
                    cost,
                    higher_is_better=False,
                    goal=f"<= {PER_RUN_GOAL} s",
                    goal_value=PER_RUN_GOAL,
                    note=f"mean of {runs} runs, setup to teardown",
                )
            )
            row.measures.append(
                Measure(
                    f"{engine}: matrix wall time, serial",
                    "s",
                    wall,
                    higher_is_better=False,
                    note=f"{runs} runs {dict(outcomes)}, {wall / max(runs, 1):.3f} s per run",
                )
            )
            row.notes.append(
                f"{engine}, serial: {runs} runs {dict(outcomes)}. Cost per run as the row has always "
                f"counted it (JUnit's time of each run, setup to teardown, averaged; 1.44 s in "
                f"Chromium on 2026-11-22): {cost:.3f} s. The matrix's wall time, pytest start-up, "
                f"engine launch, emulator and backend included: {wall:.1f} s, "
                f"{wall / max(runs, 1):.3f} s per run."
            )
    if len(serial) == len(ENGINES):
        _matrix_both(row, sum(serial.values()))
    row.extra["matrix"] = {"serial_wall_s": serial, "seconds": by_engine}
    if by_engine:
        lines = ["| scenario | " + " | ".join(f"{e} (s per run)" for e in by_engine) + " |"]
        lines.append("|---|" + "---:|" * len(by_engine))
        for test in sorted({t for per in by_engine.values() for t in per}):
            cells = [
                f"{statistics.mean(per[test]):.2f}" if per.get(test) else ""
                for per in by_engine.values()
            ]
            lines.append(f"| {test} | " + " | ".join(cells) + " |")
        row.extra.setdefault("tables", []).append("\n".join(lines))
        row.notes.append(
            "Seconds per run of each scenario, the mean over its injection points and variants, in the table below."
        )


def _matrix_both(row: Row, serial: float) -> None:
    """Both engines' matrix under pytest-xdist ``-n 2`` (a worker per core here)."""
    import importlib.util

    if importlib.util.find_spec("xdist") is None:
        row.notes.append("Both engines under -n 2 not measured: pytest-xdist is not installed.")
        return
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "both.xml"
        wall, proc = _pytest_matrix("all", report, "-n", "2")
        _, outcomes = _cases(report) if report.exists() else ({}, {})
    tail = (proc.stdout.strip().splitlines() or ["no output"])[-1].strip("= ")
    row.measures.append(
        Measure(
            "both engines' matrix, pytest -n 2",
            "s",
            wall,
            serial,
            "the two engines serially, one after the other",
            higher_is_better=False,
            goal=f"< {BOTH_ENGINES_GOAL:.0f} s on 2 cores",
            goal_value=BOTH_ENGINES_GOAL,
            note=tail,
        )
    )
    row.notes.append(
        f"Both engines under pytest-xdist -n 2 (each worker its own emulator, backend, Chromium and "
        f"WebKit driver): {wall:.1f} s wall against {serial:.1f} s for the two serial runs, exit "
        f"{proc.returncode}, {dict(outcomes)}."
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
