# ruff: noqa: E501  (report prose and SQL read better unbroken)
"""``make bench``: run every benchmark row of issue #6, write bench/results.md and results.json.

    python bench/run.py                 # all rows, a few minutes on 2 cores
    python bench/run.py --rows 1,2      # some rows
    python bench/run.py --quick         # smaller N and fewer rounds (smoke run)

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
from report import render_markdown  # noqa: E402

ROWS: dict[int, str] = {
    1: "row1_sso",
    2: "row2_signature",
    3: "row3_dispatcher",
    4: "row4_scheduler",
    5: "row5_harness",
    6: "row6_threadload",
    9: "row9_delivery_log",
}


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


def main(argv: list[str] | None = None) -> int:
    """Run the selected rows and write the results; 1 if a row crashed."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rows", default=",".join(map(str, ROWS)), help="comma-separated row numbers"
    )
    parser.add_argument("--quick", action="store_true", help="smaller N, fewer rounds")
    parser.add_argument("--out", default=str(BENCH_DIR), help="directory for results.md/.json")
    args = parser.parse_args(argv)
    numbers = [int(n) for n in args.rows.split(",") if n.strip()]

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
            ratio = f"{m.ratio:.2f}x" if m.ratio is not None else "-"
            verdict = {True: "goal met", False: "GOAL MISSED", None: ""}[m.met]
            print(
                f"    {m.name}: ours {m.ours} {m.unit}, baseline {m.baseline}, {ratio} {m.goal} {verdict}"
            )
        print(f"    ({row.seconds:.1f} s)", flush=True)
    total = time.perf_counter() - started

    out = Path(args.out)
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
    print(f"wrote {out / 'results.md'} and results.json in {total:.0f} s")
    return 1 if any(r.extra.get("crashed") for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
