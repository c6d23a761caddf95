# ruff: noqa: E501  (report prose and SQL read better unbroken)
"""``make bench``: run the benchmark rows (bench/README.md); results.md and results.json go to --out.

    python bench/run.py                 # all rows, a few minutes on 2 cores -> bench/out/
    python bench/run.py --rows 1,2      # some rows
    python bench/run.py --quick         # smaller N and fewer rounds (smoke run)
    python bench/run.py --out /tmp/b    # write the results elsewhere
    python bench/run.py --publish       # `make bench-publish`: a full run -> bench/results.*

Only --publish rewrites the committed bench/results.md and results.json, and only
from a full run (every row, not --quick). Figures carry 3 significant digits and
their unit. A missing extra is one line naming it and the pip command (exit 2).

Each row compares our code with its baseline in this one process run (medians
of several interleaved rounds) and reports the ratio. Timing never fails the
run: a missed goal is printed and recorded, the exit status stays 0 unless a
row crashed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import BENCH_DIR, Row, Skipped, machine_info  # noqa: E402
from report import figure, ratio_text, render_markdown  # noqa: E402

ROWS: dict[int, str] = {
    1: "row1_sso",
    2: "row2_signature",
    3: "row3_dispatcher",
    4: "row4_scheduler",
    5: "row5_harness",
    6: "row6_threadload",
    7: "row7_fairness",
    9: "row9_delivery_log",
}

# What each row imports beyond the base install, and the extra that brings it.
NEEDS: dict[int, tuple[str, tuple[str, ...]]] = {
    1: ("bench", ("jwt",)),
    2: ("bench", ("standardwebhooks",)),
    3: ("bench", ("fastapi", "uvicorn", "httpx")),
    4: ("bench", ("fastapi", "uvicorn", "httpx")),
    5: ("harness", ("playwright", "fastapi", "uvicorn", "httpx")),
    6: ("bench", ("fastapi", "uvicorn", "httpx")),
    7: ("bench", ("fastapi", "uvicorn", "httpx")),
    9: ("postgres,redis", ("psycopg", "redis", "uvicorn")),
}
DEFAULT_OUT = BENCH_DIR / "out"


def _missing_extra(numbers: list[int]) -> str | None:
    """One line naming the missing extra(s) and the pip command, or None."""
    import importlib.util

    missing: dict[str, set[str]] = {}
    for number in numbers:
        extra, modules = NEEDS[number]
        for name in modules:
            try:
                found = importlib.util.find_spec(name) is not None
            except (ImportError, ValueError):
                found = False
            if not found:
                missing.setdefault(extra, set()).add(name)
    if not missing:
        return None
    extras = ",".join(sorted(missing))
    names = ", ".join(sorted(set().union(*missing.values())))
    try:
        from gcbridge.cli.extras import install_command

        command = install_command(extras)
    except ImportError:
        command = f'pip install -e ".[{extras}]"'
    return (
        f"bench/run.py: rows {','.join(map(str, numbers))} need the [{extras}] extra"
        f" (not installed: {names}); install it with: {command}"
    )


def _run_row(number: int, quick: bool) -> Row:
    module = importlib.import_module(ROWS[number])
    t0 = time.perf_counter()
    try:
        row: Row = module.run(quick=quick)
    except Skipped as exc:
        row = Row(number=number, title=module.TITLE, skipped=str(exc))
    except Exception as exc:  # noqa: BLE001 (one broken row must not hide the others)
        traceback.print_exc()
        row = Row(number=number, title=module.TITLE, skipped=f"error: {type(exc).__name__}: {exc}")
        row.extra["crashed"] = True
    row.seconds = time.perf_counter() - t0
    return row


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rows", default=",".join(map(str, ROWS)), help="comma-separated row numbers"
    )
    parser.add_argument("--quick", action="store_true", help="smaller N, fewer rounds")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help=f"directory for results.md/.json (default {DEFAULT_OUT.relative_to(BENCH_DIR.parent)}/)",
    )
    where.add_argument(
        "--publish",
        action="store_true",
        help="rewrite the committed bench/results.md and .json (a full run only: make bench-publish)",
    )
    args = parser.parse_args(argv)
    try:
        args.numbers = [int(n) for n in args.rows.split(",") if n.strip()]
    except ValueError:
        parser.error(f"--rows {args.rows!r}: comma-separated row numbers, e.g. 1,2")
    unknown = [n for n in args.numbers if n not in ROWS]
    if unknown or not args.numbers:
        parser.error(f"--rows {args.rows!r}: rows are {','.join(map(str, ROWS))}")
    if args.publish and (args.quick or sorted(args.numbers) != sorted(ROWS)):
        parser.error(
            "--publish rewrites the committed results: a full run only (no --rows, no --quick)"
        )
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the selected rows and write the results; 1 if a row crashed, 2 if an extra is missing."""
    args = _parse(argv)
    numbers = args.numbers
    problem = _missing_extra(numbers)
    if problem:
        print(problem, file=sys.stderr)
        return 2

    info = machine_info()
    print(f"gc-bridge bench on {info['cores']} cores, {info['cpu']}, {info['python']}", flush=True)
    started = time.perf_counter()
    rows = []
    for number in numbers:
        print(f"--> row {number}: {ROWS[number]}", flush=True)
        row = _run_row(number, args.quick)
        rows.append(row)
        if row.skipped:
            print(f"    skipped: {row.skipped}", flush=True)
        for m in row.measures:
            verdict = {True: "goal met", False: "GOAL MISSED", None: ""}[m.met]
            baseline = figure(m.baseline, m.unit) if m.baseline is not None else "-"
            print(
                f"    {m.name}: ours {figure(m.ours, m.unit)}, baseline {baseline},"
                f" {ratio_text(m.ratio)} {m.goal} {verdict}".rstrip()
            )
        print(f"    ({figure(row.seconds, 's')})", flush=True)
    total = time.perf_counter() - started

    out = BENCH_DIR if args.publish else Path(args.out) if args.out else DEFAULT_OUT
    out.mkdir(parents=True, exist_ok=True)
    data = {
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "quick": args.quick,
        "total_seconds": round(total, 1),
        "machine": info,
        "rows": [r.to_json() for r in rows],
    }
    (out / "results.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    (out / "results.md").write_text(render_markdown(data), encoding="utf-8")
    print(f"wrote {out / 'results.md'} and results.json in {figure(total, 's')}")
    return 1 if any(r.extra.get("crashed") for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
