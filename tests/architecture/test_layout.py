"""The structure docs/explanation/architecture.md promises: no import circle, layers checked.

The layer rules themselves live in ``pyproject.toml`` (import-linter, run by
``make lint``); this module checks what import-linter does not: that no two
modules of ``src/`` or ``harness/`` import each other in a loop (at any depth,
function-level imports included). File sizes are reported by ``make lint``
(``.ci/size_report.py``), not capped.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]


def _cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.find_modules_directly_imported_by(node) & modules):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def test_no_import_circle_in_src_or_harness() -> None:
    graph = grimp.build_graph("gcbridge", "gcbridge_harness", cache_dir=None)
    modules = set(graph.modules)
    assert _cycles(graph, modules) == []


def test_the_layer_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout
