"""``gcbridge harness run``: the harness's scenarios against your bridge.js, no pytest needed.

::

    gcbridge harness run --bridge App/Resources/gc-bridge.js --report harness-report
    gcbridge harness run --bridge gc-bridge.js -k "page-finished" -n 2

Runs the same scenarios as ``pytest --pyargs gcbridge_harness.scenarios``; the ``run``
parser's description says what it prints and what its exit statuses are.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import signal
import sys
import tempfile
from pathlib import Path

from gcbridge_harness.app.page_waits import DEFAULT_WAIT, wait_seconds

from gcbridge.cli.harness_progress import Interrupt, ProgressPrinter
from gcbridge.driver_after_stop import quiet_dead_driver_after_stop
from gcbridge.signals import stop_line

__all__ = ["register", "run", "ProgressPrinter"]

USAGE_ERROR = 2
_PYTEST_USAGE_ERROR = 4
ENGINES = ("chromium", "webkit", "all")
_NEEDS = ("pytest", "playwright", "pytest_playwright", "uvicorn", "fastapi", "fastapi_offline")


def register(parser: argparse.ArgumentParser) -> None:
    """Add ``run`` (the only sub-command for now)."""
    sub = parser.add_subparsers(dest="harness_command", metavar="COMMAND")
    run_parser = sub.add_parser(
        "run",
        help="run the harness scenarios against a bridge.js",
        description="Run the harness scenarios against your copy of bridge.js in a real browser. "
        "Exit status: 0 all passed, 1 a scenario failed or none ran, 2 a usage error, "
        "130 Ctrl-C. A run without WebKit ends with a notice saying so (iOS apps run in "
        "WebKit); --engine all fails instead when an engine is missing. The current "
        "directory's pytest configuration and conftest.py are not used.",
    )
    run_parser.add_argument(
        "--bridge", required=True, metavar="PATH", help="the bridge.js your app injects"
    )
    run_parser.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help="browser engine(s) to run in (default: every engine installed here; "
        "all: fail when one is missing)",
    )
    run_parser.add_argument(
        "--report",
        metavar="DIR",
        help="write an HTML report (DIR/index.html) and, for failures, screenshots and "
        "Playwright traces (Chromium only; ssoData masked in every file)",
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
    run_parser.add_argument(
        "--wait",
        metavar="SECONDS",
        type=wait_seconds,
        help="how long a scenario waits for what it expects before it fails (default "
        f"{DEFAULT_WAIT:g}; "
        "raise it for a slow CI machine)",
    )
    run_parser.set_defaults(func=run)


def _fail(reason: str, message: str, code: int = USAGE_ERROR) -> int:
    print(f"gcbridge harness: error [{reason}]: {message}", file=sys.stderr)
    return code


def _pytest_args(args: argparse.Namespace, bridge: Path, ini: Path) -> list[str] | int:
    pytest_args = [
        "-c",
        str(ini),
        "--rootdir",
        str(ini.parent),
        "--confcutdir",
        str(ini.parent),
        "-p",
        "no:cacheprovider",
        "-p",
        "no:terminal",
        # the full assertion text in the report (pytest would end it "Use -v to get more diff")
        "-o",
        "verbosity_assertions=2",
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
        browser = Path(args.browser)
        # a path relative to where the user stands (the run starts elsewhere), or a bare name
        shown = browser.resolve() if browser.parent != Path(".") or browser.exists() else browser
        pytest_args.append(f"--gc-browser={shown}")
    if args.junitxml:
        pytest_args.append(f"--junitxml={Path(args.junitxml).resolve()}")
    if args.wait is not None:
        pytest_args.append(f"--gc-wait={args.wait}")
    return pytest_args


def run(args: argparse.Namespace) -> int:
    """Run the scenarios; print progress and the matrix; return the exit code."""
    missing = [name for name in _NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        return _fail(
            "extra_missing",
            f"the harness needs {', '.join(missing)}: pip install 'gc-bridge[harness]' "
            "(or the wheel: pip install './dist/gc_bridge-<version>-py3-none-any.whl[harness]')",
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
        interrupt = Interrupt(printer)
        quiet_dead_driver_after_stop(lambda: interrupt.stopped)
        print(f"gcbridge harness: {bridge}", flush=True)
        code = int(pytest.ExitCode.INTERRUPTED)
        # Started from the temporary directory: pytest loads a conftest.py from where it
        # starts whatever the rootdir, and the user's directory must not change the run.
        with contextlib.chdir(tmp), interrupt.installed():
            code = int(pytest.main(pytest_args, plugins=[printer, interrupt.pytest_plugin()]))
    if interrupt.stopped:
        print(stop_line("gcbridge harness run", signal.SIGINT), file=sys.stderr, flush=True)
        return 130
    printer.summary(report=args.report, engine=args.engine, keyword=args.keyword)
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        what = f"-k {args.keyword!r}" if args.keyword else "the selection"
        return _fail("no_scenarios", f"no scenario matches {what}")
    if code == _PYTEST_USAGE_ERROR:
        return USAGE_ERROR
    return 0 if code == 0 else 1
