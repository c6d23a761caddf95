"""The harness's HTML report (``--gc-report DIR``) and its summary matrix.

``DIR/index.html`` is self-contained (inline CSS, no script, no CDN: it opens
from disk): the matrix on top (scenarios down, engine x injection point across),
then one section per run in the matrix's order (failures first; scenario, engine,
injection point): outcome, diagnosis, the timeline of every launch, and for a
failure the widget's last screenshot and, in Chromium, the Playwright trace
(``playwright show-trace DIR/artifacts/<run>.trace.zip``) under ``DIR/artifacts/``.
Failures are open; passed and skipped runs are one collapsed line each (a
skipped one with its reason), so a green matrix is a short page.

A row is the dict :mod:`gcbridge_harness.report.reporting` builds per run: ``nodeid``,
``scenario``, ``engine``, ``point``, ``outcome`` (passed/failed/skipped),
``message``, ``diagnosis``, ``timelines``, ``screenshots``, ``traces``, and for a
skipped run ``skip_reason``.
"""

from __future__ import annotations

import html
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["columns_of", "matrix", "matrix_text", "write_report", "SYMBOLS"]

POINT_ORDER = ("document-start", "document-end", "page-finished", "page-started", "-")
ENGINE_ORDER = ("chromium", "webkit")
SYMBOLS = {"passed": "pass", "failed": "FAIL", "skipped": "skip"}

_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
table.matrix { border-collapse: collapse; margin: 1em 0; }
table.matrix th, table.matrix td { border: 1px solid #ccc; padding: .25em .6em; }
table.matrix th.scenario { text-align: left; font-weight: normal; }
td.passed { background: #dff5df; } td.failed { background: #f9d6d5; font-weight: bold; }
td.skipped { background: #eee; color: #777; } td.none { background: #fff; }
td a { color: inherit; }
section.run { border-top: 1px solid #ddd; padding: .5em 0; }
details.run { border-top: 1px solid #eee; padding: .15em 0; }
details.run > summary { cursor: pointer; color: #555; }
section.failed h3 { color: #a00; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; font-size: 12px; }
p.diagnosis { background: #fff4d6; padding: .4em .6em; border-left: 4px solid #e0a800; }
img.shot { max-width: 480px; border: 1px solid #999; display: block; margin: .4em 0; }
"""


def _sort_key(column: tuple[str, str]) -> tuple[int, int, str]:
    engine, point = column
    e = ENGINE_ORDER.index(engine) if engine in ENGINE_ORDER else len(ENGINE_ORDER)
    p = POINT_ORDER.index(point) if point in POINT_ORDER else len(POINT_ORDER)
    return (e, p, engine + point)


def columns_of(rows: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """The matrix's columns: every (engine, injection point) seen, in a stable order."""
    return sorted({(row["engine"], row["point"]) for row in rows}, key=_sort_key)


def matrix(rows: list[dict[str, Any]]) -> dict[str, dict[tuple[str, str], dict[str, Any]]]:
    """scenario -> (engine, point) -> row (a failure wins over a pass of the same cell)."""
    cells: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
    for row in rows:
        line = cells.setdefault(row["scenario"], {})
        key = (row["engine"], row["point"])
        if key not in line or row["outcome"] == "failed":
            line[key] = row
    return cells


def matrix_text(rows: list[dict[str, Any]]) -> str:
    """The matrix for a terminal: one line per scenario, one column per engine x point."""
    columns = columns_of(rows)
    cells = matrix(rows)
    width = max([len(name) for name in cells] + [8])
    heads = [f"{engine}/{point}" for engine, point in columns]
    lines = [" " * width + "  " + "  ".join(f"{h:<22}" for h in heads)]
    for scenario in sorted(cells):
        marks = [
            SYMBOLS.get(cells[scenario][c]["outcome"], "?") if c in cells[scenario] else ""
            for c in columns
        ]
        lines.append(f"{scenario:<{width}}  " + "  ".join(f"{m:<22}" for m in marks))
    return "\n".join(line.rstrip() for line in lines)


def _matrix_html(rows: list[dict[str, Any]], anchors: dict[int, str]) -> str:
    columns = columns_of(rows)
    cells = matrix(rows)
    engines: dict[str, int] = {}
    for engine, _ in columns:
        engines[engine] = engines.get(engine, 0) + 1
    out = ['<table class="matrix"><thead><tr><th rowspan="2">scenario</th>']
    out += [f'<th colspan="{n}">{html.escape(e)}</th>' for e, n in engines.items()]
    out.append("</tr><tr>")
    out += [f"<th>{html.escape(point)}</th>" for _, point in columns]
    out.append("</tr></thead><tbody>")
    for scenario in sorted(cells):
        out.append(f'<tr><th class="scenario">{html.escape(scenario)}</th>')
        for column in columns:
            row = cells[scenario].get(column)
            if row is None:
                out.append('<td class="none"></td>')
                continue
            label = SYMBOLS.get(row["outcome"], row["outcome"])
            anchor = anchors[id(row)]
            out.append(
                f'<td class="{row["outcome"]}" data-engine="{html.escape(column[0])}" '
                f'data-point="{html.escape(column[1])}"><a href="#{anchor}">{label}</a></td>'
            )
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _run_order(row: dict[str, Any]) -> tuple[bool, str, tuple[int, int, str], str]:
    """Failures first, then by scenario and the matrix's column order (not the ids' ABC)."""
    column = _sort_key((row["engine"], row["point"]))
    return (row["outcome"] != "failed", row["scenario"], column, row["nodeid"])


def _run_html(row: dict[str, Any], anchor: str) -> str:
    outcome = row["outcome"]
    title = f"{row['scenario']} — {row['engine']}, {row['point']}: {outcome}"
    nodeid = html.escape(row["nodeid"])
    if outcome == "failed":
        out = [
            f'<section class="run {outcome}" id="{anchor}" data-nodeid="{nodeid}">',
            f"<h3>{html.escape(title)}</h3>",
        ]
        end = "</section>"
    else:  # one collapsed line; opened on demand
        if row.get("skip_reason"):
            title += f" ({row['skip_reason']})"
        out = [
            f'<details class="run {outcome}" id="{anchor}" data-nodeid="{nodeid}">',
            f"<summary>{html.escape(title)}</summary>",
        ]
        end = "</details>"
    out.append(f"<p><code>{nodeid}</code></p>")
    if row.get("message"):
        out.append(f'<pre class="message">{html.escape(row["message"])}</pre>')
    out += [f'<p class="diagnosis">{html.escape(line)}</p>' for line in row.get("diagnosis", [])]
    for number, timeline in enumerate(row.get("timelines", []), 1):
        opened = " open" if outcome == "failed" else ""
        out.append(
            f"<details{opened}><summary>timeline of launch {number}</summary>"
            f'<pre class="timeline">{html.escape(timeline)}</pre></details>'
        )
    for shot in row.get("screenshots", []):
        out.append(f'<img class="shot" src="{html.escape(shot)}" alt="the widget at the end">')
    for trace in row.get("traces", []):
        out.append(
            f'<p>Playwright trace: <a href="{html.escape(trace)}">{html.escape(trace)}</a> '
            f"(open with <code>playwright show-trace {html.escape(trace)}</code>)</p>"
        )
    out.append(end)
    return "\n".join(out)


def write_report(directory: Path, rows: list[dict[str, Any]], *, bridge: str) -> Path:
    """Write ``directory/index.html`` for ``rows``; returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    ordered = sorted(rows, key=_run_order)
    anchors = {id(row): f"run-{number}" for number, row in enumerate(ordered, 1)}
    counts = {outcome: 0 for outcome in SYMBOLS}
    for row in rows:
        counts[row["outcome"]] = counts.get(row["outcome"], 0) + 1
    summary = ", ".join(f"{n} {outcome}" for outcome, n in counts.items())
    page = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>gc-bridge harness report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>gc-bridge harness report</h1>",
        f"<p>bridge: <code>{html.escape(bridge)}</code> · {len(rows)} runs: "
        f'<span class="summary">{summary}</span> · {time.strftime("%Y-%m-%d %H:%M:%S %Z")}</p>',
        "<h2>Matrix</h2>",
        _matrix_html(rows, anchors),
        "<h2>Runs</h2>",
        *(_run_html(row, anchors[id(row)]) for row in ordered),
        "</body></html>",
    ]
    path = directory / "index.html"
    path.write_text("\n".join(page), encoding="utf-8")
    return path
