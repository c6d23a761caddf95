"""``gcbridge harness run``: the harness's scenarios against your bridge.js, no pytest needed.

::

    gcbridge harness run --bridge App/Resources/bridge.js --report harness-report
    gcbridge harness run --bridge bridge.js -k "page-finished" -n 2

Runs the same scenarios as ``pytest --pyargs gcbridge_harness.scenarios``,
prints one line per scenario as it ends and the summary matrix (scenarios down,
engine x injection point across), writes the HTML report with ``--report``.
Exit codes: 0 every scenario passed, 1 a scenario failed (or none ran), 4 a
usage error (no bridge file, unknown engine, -k matching nothing), 2 when the
harness extra is not installed. The run ignores the current directory's pytest
configuration and conftest files: it is the same run wherever it starts.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

__all__ = ["register", "run", "ProgressPrinter"]

USAGE_ERROR = 4
ENGINES = ("chromium", "webkit", "all")
_NEEDS = ("pytest", "playwright", "pytest_playwright", "uvicorn", "fastapi")


def register(parser: argparse.ArgumentParser) -> None:
    """Add ``run`` (the only sub-command for now)."""
    sub = parser.add_subparsers(dest="harness_command", metavar="COMMAND")
    run_parser = sub.add_parser(
        "run",
        help="run the harness scenarios against a bridge.js",
        description="Run the harness scenarios against your copy of bridge.js in a real browser.",
    )
    run_parser.add_argument(
        "--bridge", required=True, metavar="PATH", help="the bridge.js your app injects"
    )
    run_parser.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help="browser engine(s) to run in (default: every engine installed here)",
    )
    run_parser.add_argument(
        "--report", metavar="DIR", help="write an HTML report (DIR/index.html) and artifacts"
    )
    run_parser.add_argument(
        "-k", dest="keyword", metavar="EXPR", help='only scenarios matching EXPR, e.g. "login"'
    )
    run_parser.add_argument(
        "-n", dest="workers", metavar="N", help="run on N worker processes (or auto)"
    )
    run_parser.add_argument(
        "--browser", metavar="PATH", help="a Chromium executable (default: GC_BROWSER, then found)"
    )
    run_parser.add_argument(
        "--junitxml", metavar="FILE", help="also write a JUnit XML file (one case per run)"
    )
    # argparse's own usage errors exit 2; this command's are 4, like pytest's.
    run_parser.error = _usage_error(run_parser)  # type: ignore[method-assign]
    run_parser.set_defaults(func=run)
    parser.set_defaults(func=lambda args: _no_command(parser))


def _usage_error(parser: argparse.ArgumentParser) -> Any:
    def error(message: str) -> None:
        parser.print_usage(sys.stderr)
        print(f"gcbridge harness run: error: {message}", file=sys.stderr)
        sys.exit(USAGE_ERROR)

    return error


def _no_command(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _fail(reason: str, message: str, code: int = USAGE_ERROR) -> int:
    print(f"gcbridge harness: error [{reason}]: {message}", file=sys.stderr)
    return code


def _pytest_args(args: argparse.Namespace, bridge: Path, ini: Path) -> list[str] | int:
    pytest_args = [
        "-c",
        str(ini),
        "--rootdir",
        str(ini.parent),
        "-p",
        "no:cacheprovider",
        "-p",
        "no:terminal",
        "--pyargs",
        "gcbridge_harness.scenarios",
        f"--gc-bridge={bridge}",
    ]
    if args.engine:
        if importlib.util.find_spec("gcbridge_harness.engines") is not None:
            pytest_args.append(f"--gc-engine={args.engine}")
        elif args.engine == "webkit":
            return _fail("engine_unavailable", "this harness version runs Chromium only")
    if args.report:
        pytest_args.append(f"--gc-report={Path(args.report).resolve()}")
    if args.keyword:
        pytest_args += ["-k", args.keyword]
    if args.workers:
        if importlib.util.find_spec("xdist") is None:
            return _fail("xdist_missing", "-n needs pytest-xdist: pip install pytest-xdist")
        pytest_args += ["-n", str(args.workers)]
    if args.browser:
        pytest_args.append(f"--gc-browser={args.browser}")
    if args.junitxml:
        pytest_args.append(f"--junitxml={Path(args.junitxml).resolve()}")
    return pytest_args


def run(args: argparse.Namespace) -> int:
    """Run the scenarios; print progress and the matrix; return the exit code."""
    missing = [name for name in _NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        return _fail(
            "extra_missing",
            f"the harness needs {', '.join(missing)}: pip install 'gc-bridge[harness]' "
            "(or the wheel: pip install './dist/gc_bridge-<version>-py3-none-any.whl[harness]')",
            2,
        )
    bridge = Path(args.bridge).resolve()
    try:
        bridge.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _fail("bridge_not_found", f"--bridge {args.bridge}: no such file")
    except IsADirectoryError:
        return _fail("bridge_unreadable", f"--bridge {args.bridge}: a directory, not bridge.js")
    except (OSError, UnicodeDecodeError) as exc:
        return _fail("bridge_unreadable", f"--bridge {args.bridge}: cannot read it ({exc})")

    import pytest

    with tempfile.TemporaryDirectory(prefix="gcbridge-harness-") as tmp:
        # An ini of our own: the current directory's pytest configuration does not apply.
        ini = Path(tmp, "pytest.ini")
        ini.write_text("[pytest]\n", encoding="utf-8")
        pytest_args = _pytest_args(args, bridge, ini)
        if isinstance(pytest_args, int):
            return pytest_args
        printer = ProgressPrinter(sys.stdout)
        print(f"gcbridge harness: {bridge}", flush=True)
        code = int(pytest.main(pytest_args, plugins=[printer]))
    printer.summary(report=args.report)
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        what = f"-k {args.keyword!r}" if args.keyword else "the selection"
        return _fail("no_scenarios", f"no scenario matches {what}")
    if code in (0, 1, USAGE_ERROR):
        return code
    return 1


class ProgressPrinter:
    """A pytest plugin: one line per scenario as it ends, then the matrix."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.rows: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.started = time.monotonic()

    def pytest_runtest_logreport(self, report: Any) -> None:
        row = getattr(report, "gc_scenario", None)
        if row is None:
            return
        self.rows.append(row)
        mark = {"passed": "pass", "failed": "FAIL", "skipped": "skip"}.get(row["outcome"], "?")
        line = f"{mark:>4}  {row['scenario']}  [{row['engine']}, {row['point']}]"
        print(line, file=self.stream, flush=True)
        if row["outcome"] == "failed":
            first = row["diagnosis"][0] if row["diagnosis"] else row["message"].splitlines()[0]
            print(f"      {first}", file=self.stream, flush=True)

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.errors.append(f"{report.nodeid}: {report.longreprtext.strip()}")

    def summary(self, *, report: str | None) -> None:
        # Imported by name: the harness is a layer below, outside mypy's files.
        matrix_text = importlib.import_module("gcbridge_harness.report").matrix_text
        out = self.stream
        for error in self.errors:
            print(f"collection error: {error}", file=out)
        if not self.rows:
            return
        counts = {o: sum(r["outcome"] == o for r in self.rows) for o in ("passed", "failed")}
        skipped = len(self.rows) - counts["passed"] - counts["failed"]
        for row in self.rows:
            if row["outcome"] != "failed":
                continue
            print(f"\n--- FAIL {row['nodeid']}", file=out)
            print("\n".join(row["message"].splitlines()[:6]), file=out)
            for number, timeline in enumerate(row["timelines"], 1):
                print(f"timeline of launch {number}:\n{timeline}", file=out)
            for line in row["diagnosis"]:
                print(f"diagnosis: {line}", file=out)
        print("", file=out)
        print(matrix_text(self.rows), file=out)
        print("", file=out)
        print(
            f"{counts['passed']} passed, {counts['failed']} failed, {skipped} skipped "
            f"in {time.monotonic() - self.started:.0f} s",
            file=out,
        )
        if report:
            print(f"report: {Path(report).resolve() / 'index.html'}", file=out)
        if counts["failed"] and not report:
            print("details: add --report DIR for timelines and screenshots", file=out)
        out.flush()
