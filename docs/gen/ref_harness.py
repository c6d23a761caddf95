"""The harness matrix's size and cost, from the one place each is kept.

Size: counted in the shipped scenarios (``harness/gcbridge_harness/scenarios``: each
test function, times its ``parametrize`` lists) and the harness's engines and
injection points. Cost: the last published bench run, ``bench/results.json`` (row 5),
with its date and what it ran. Pages say ``[[harness-matrix]]`` and get this text.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

__all__ = ["MARKER", "matrix_facts", "matrix_text"]

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "harness" / "gcbridge_harness"
MARKER = "[[harness-matrix]]"


def _tuple_constant(path: Path, name: str) -> tuple[str, ...]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            value = node.value
            if isinstance(value, ast.Tuple | ast.List):
                return tuple(e.value for e in value.elts if isinstance(e, ast.Constant))
    raise LookupError(f"{name} not found in {path}")


def _scenario_runs(points: int) -> tuple[int, int]:
    """(scenarios with their variants, runs in one engine): a scenario that names its own
    injection points (``parametrize("injection_point", [...])``) runs at those only."""
    scenarios = runs = 0
    for path in sorted((HARNESS / "scenarios").glob("test_*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test_"
            ):
                variants, at = 1, points
                for deco in node.decorator_list:
                    if (
                        isinstance(deco, ast.Call)
                        and getattr(deco.func, "attr", "") == "parametrize"
                        and len(deco.args) >= 2
                        and isinstance(deco.args[1], ast.List | ast.Tuple)
                    ):
                        name = deco.args[0].value if isinstance(deco.args[0], ast.Constant) else ""
                        if name == "injection_point":
                            at = len(deco.args[1].elts)
                        else:
                            variants *= len(deco.args[1].elts)
                scenarios += variants
                runs += variants * at
    return scenarios, runs


def matrix_facts() -> dict[str, object]:
    """Scenarios, points, engines, and the last measured run of row 5."""
    points = _tuple_constant(HARNESS / "app" / "platforms.py", "INJECTION_POINTS")
    engines = _tuple_constant(HARNESS / "engines" / "selection.py", "ENGINES")
    scenarios, runs = _scenario_runs(len(points))
    facts: dict[str, object] = {
        "scenarios": scenarios,
        "runs": runs,
        "points": len(points),
        "engines": list(engines),
    }
    results = json.loads((ROOT / "bench" / "results.json").read_text(encoding="utf-8"))
    for row in results["rows"]:
        if row.get("number") != 5:
            continue
        measures = {m["name"]: m for m in row["measures"]}
        matrix = row.get("extra", {}).get("matrix", {})
        facts["measured_at"] = results.get("generated_at", "")[:10]
        facts["cores"] = results.get("machine", {}).get("cores")
        facts["measured"] = [
            {
                "engine": engine,
                "runs": sum(map(len, matrix["seconds"][engine].values())),
                "wall_s": measures[f"{engine}: matrix wall time, serial"]["ours"],
                "per_run_s": measures[f"{engine}: cost per scenario run"]["ours"],
            }
            for engine in engines
            if engine in matrix.get("seconds", {})
        ]
        both = measures.get("both engines' matrix, pytest -n 2", {})
        facts["both_wall_s"] = both.get("ours")
    return facts


def matrix_text() -> str:
    """One paragraph: the matrix's size now, and its last measured cost."""
    f = matrix_facts()
    scenarios, points, engines = f["scenarios"], f["points"], f["engines"]
    per_engine = f["runs"]
    assert isinstance(scenarios, int) and isinstance(points, int) and isinstance(engines, list)
    assert isinstance(per_engine, int)
    text = (
        f"The matrix is {scenarios} scenarios (variants counted) at up to {points} injection"
        f" points in each engine: {per_engine} runs in one engine, {per_engine * len(engines)}"
        f" with {' and '.join(engines)} (`--engine all`)."
    )
    measured = f.get("measured") or []
    assert isinstance(measured, list)
    if measured:
        each = "; ".join(
            f"{m['engine']} {m['runs']} runs in {m['wall_s']} s, {m['per_run_s']} s per run"
            for m in measured
        )
        text += (
            " Last measured by `make bench-publish`"
            f" (row 5 of `bench/results.md`, {f['measured_at']}, {f['cores']} cores), each"
            f" engine alone: {each}"
        )
        if f.get("both_wall_s") is not None:
            text += f"; both engines under `pytest -n 2`: {f['both_wall_s']} s"
        text += "."
    return text


START = "<!-- harness-matrix: written by docs/gen/ref_harness.py -->"
END = "<!-- /harness-matrix -->"
FILES = ("harness/README.md", "CONTRIBUTING.md")
"""The repository files that state the matrix's size and cost, between START and END."""


def stated(text: str) -> list[str]:
    """The texts between the markers of ``text``."""
    parts = text.split(START)[1:]
    return [part.split(END, 1)[0].strip() for part in parts]


def rewrite() -> list[str]:
    """Put :func:`matrix_text` between the markers of every file of ``FILES``; the changed ones."""
    changed = []
    fresh = matrix_text()
    for name in FILES:
        path = ROOT / name
        text = path.read_text(encoding="utf-8")
        out, rest = [], text
        while START in rest:
            head, tail = rest.split(START, 1)
            _, after = tail.split(END, 1)
            out.append(f"{head}{START}\n{fresh}\n{END}")
            rest = after
        new = "".join(out) + rest
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(name)
    return changed


if __name__ == "__main__":
    print("\n".join(f"rewrote {name}" for name in rewrite()) or "up to date")
