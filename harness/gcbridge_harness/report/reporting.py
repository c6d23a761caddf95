"""pytest hooks that make a harness run readable by an app team and its CI.

- every failure of a scenario ends with the launches' timelines and, where a known
  pattern fits, a diagnosis line (:mod:`gcbridge_harness.report.diagnosis`); the diagnosis
  also leads the one-line failure message (short summary, JUnit ``message``);
- ids do not depend on where ``--gc-bridge`` lives: a shipped scenario is
  ``gcbridge_harness/scenarios/<module>.py::<test>[<params>]`` wherever the
  package is installed and whatever the rootdir;
- ``--gc-bridge`` that is missing or unreadable, or a browser that was asked for
  and is not there, is one usage error (exit 4); a run whose scenarios were all
  skipped fails (exit 1): zero executed scenarios is never success;
- ``--gc-report DIR`` writes ``DIR/index.html`` (:mod:`gcbridge_harness.report.html`);
- no ssoData part is written in clear: the failure text, the timelines, the
  report's rows and the Playwright traces it keeps are masked with every ssoData
  the launches handed out (:func:`gcbridge_harness.report.leaks.mask_sso`).

Registered by :mod:`gcbridge_harness.plugin`; works under pytest-xdist (each
worker adds its row to its reports, the controller writes the report).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import gcbridge_harness
from gcbridge_harness.report import observe
from gcbridge_harness.report.diagnosis import diagnose
from gcbridge_harness.report.leaks import mask_sso, mask_trace

__all__ = ["APPS", "scenario_params", "bridge_path"]

APPS = pytest.StashKey[list[Any]]()
"""The launches of a test (set by the ``native_app`` fixture)."""
_FAILED = pytest.StashKey[list[str]]()
_SKIPPED = pytest.StashKey[bool]()
_SKIP_REASON = pytest.StashKey[str]()
_REPORT_DIR = pytest.StashKey[Path]()

_PACKAGE_DIR = Path(gcbridge_harness.__file__).resolve().parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("gcbridge").addoption(
        "--gc-report",
        dest="gc_report",
        default=None,
        metavar="DIR",
        help="write an HTML report (matrix, timelines, screenshots, traces) to DIR/index.html",
    )


def bridge_path(config: pytest.Config) -> Path | None:
    """The ``--gc-bridge`` file, checked: one usage error if it is missing or unreadable."""
    option = config.getoption("gc_bridge", None)
    if not option:
        return None
    path = Path(config.invocation_params.dir, option)
    try:
        path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise pytest.UsageError(f"--gc-bridge {option}: no such file") from None
    except IsADirectoryError:
        raise pytest.UsageError(f"--gc-bridge {option}: a directory, not bridge.js") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise pytest.UsageError(f"--gc-bridge {option}: cannot read it ({exc})") from None
    # a React Native app's bridgeSource.ts: it must hold a bridge.js that matches its pin
    from gcbridge.bridge import BridgeError, bridge_text

    try:
        bridge_text(path)
    except BridgeError as exc:
        raise pytest.UsageError(f"--gc-bridge {option}: [{exc.reason}] {exc}") from None
    return path


def _check_engines(config: pytest.Config, *, running: bool) -> None:
    """One usage error (exit 4) for an engine asked for that is not there.

    Asked for: named by ``--gc-engine``; Chromium, by ``--gc-browser`` or
    ``GC_BROWSER`` (unless ``--gc-engine webkit``). When scenarios are to run
    (``running``) with the default selection, at least one engine must be found.
    """
    from gcbridge_harness.engines.selection import engine_status, not_usable, selected_engines

    option = config.getoption("gc_engine", None)
    statuses, _ = selected_engines(config)  # a named engine that is missing raises here
    explicit = config.getoption("gc_browser", None) or os.environ.get("GC_BROWSER")
    if explicit and option in (None, "chromium", "all"):
        chromium = engine_status("chromium", chromium_path=config.getoption("gc_browser", None))
        if not chromium.found:
            raise pytest.UsageError(not_usable(chromium))
    if running and not any(status.found for status in statuses):
        raise pytest.UsageError("\n".join(not_usable(status) for status in statuses))


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    bridge_path(config)
    _check_engines(config, running=any("gcbridge_harness" in str(a) for a in config.args))
    report_dir = config.getoption("gc_report", None)
    if report_dir:
        directory = Path(config.invocation_params.dir, report_dir)
        config.stash[_REPORT_DIR] = directory
        (directory / "artifacts").mkdir(parents=True, exist_ok=True)
    observe.configure(artifacts=bool(report_dir), trace=bool(report_dir))
    _show_ids_as_they_are(config)
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Recorder(config), "gcbridge-harness-recorder")


def _show_ids_as_they_are(config: pytest.Config) -> None:
    """Print a shipped scenario's id as is, not relative to the current directory.

    ``--gc-bridge PATH`` (two words) makes pytest take PATH for a place to look
    for its rootdir; the id would then be shown as ``../../that/dir/gcbridge_harness/...``.
    """
    relative = config.cwd_relative_nodeid

    def cwd_relative_nodeid(nodeid: Any) -> Any:
        if str(nodeid).startswith("gcbridge_harness/"):
            return nodeid
        return relative(nodeid)

    config.cwd_relative_nodeid = cwd_relative_nodeid  # type: ignore[method-assign]


def _is_harness(item: pytest.Item) -> bool:
    return "native_app" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        try:
            relative = Path(item.path).resolve().relative_to(_PACKAGE_DIR)
        except ValueError:
            continue
        _set_nodeid(item, f"gcbridge_harness/{relative.as_posix()}")
    if any(_is_harness(item) for item in items):
        _check_engines(config, running=True)


def _set_nodeid(item: pytest.Item, path: str) -> None:
    """Give ``item`` the file part ``path`` in its id (pytest 9 keeps a NodeId, older a str)."""
    current = getattr(item, "_id", None)
    if current is not None and dataclasses.is_dataclass(current):
        item._id = dataclasses.replace(current, path=path)
    else:  # pragma: no cover - pytest < 9
        rest = item.nodeid.split("::", 1)[1] if "::" in item.nodeid else item.name
        item._nodeid = f"{path}::{rest}"  # type: ignore[attr-defined]


def scenario_params(item: pytest.Item) -> tuple[str, str, str]:
    """``(scenario, engine, injection point)`` of a test, read from its parameters."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    engine = str(params.get("engine") or params.get("browser_name") or "chromium")
    point = str(params.get("injection_point") or "-")
    name = getattr(item, "originalname", None) or item.name.split("[")[0]
    scenario = name.removeprefix("test_")
    if "[" in item.name:
        own = item.name.split("[", 1)[1].rstrip("]")
        for known in (point, engine):
            own = own.replace(known, "")
        own = own.strip("-").replace("--", "-")
        if own:
            scenario += f" [{own}]"
    module = Path(str(item.path)).stem.removeprefix("test_")
    return f"{module}: {scenario}", engine, point


def _sso_data(apps: list[Any]) -> list[str]:
    """Every ssoData the launches handed to a page (what must never be written in clear)."""
    return [s for app in apps for s in getattr(getattr(app, "leaks", None), "sso_data", [])]


def _section(item: pytest.Item, apps: list[Any], failure: str) -> tuple[str, list[str]]:
    scenario, engine, point = scenario_params(item)
    lines = [f"{scenario} in {engine}, bridge injected at {point}"]
    found: list[str] = []
    for number, app in enumerate(apps, 1):
        observe.flush(app)
        user = getattr(getattr(app, "user", None), "username", None)
        lines.append(f"launch {number} (app user {user or 'nobody'}), timeline:")
        lines.append(app.timeline.format() or "   (nothing recorded)")
        found += [line for line in diagnose(app, failure) if line not in found]
    lines += [f"diagnosis: {line}" for line in found] or [
        "diagnosis: no known pattern fits; read the timeline above"
    ]
    secrets = _sso_data(apps)
    return mask_sso("\n".join(lines), secrets), [mask_sso(f, secrets) for f in found]


def _annotate(report: pytest.TestReport, text: str, found: list[str]) -> None:
    longrepr = report.longrepr
    if hasattr(longrepr, "addsection"):
        longrepr.addsection("gc-bridge harness: what happened", text)
        crash = getattr(longrepr, "reprcrash", None)
        if found and crash is not None:
            crash.message = f"{found[0]} -- {crash.message}"
            for _, chained, _ in getattr(longrepr, "chain", []):
                if chained is not None and chained is not crash:
                    chained.message = f"{found[0]} -- {chained.message}"
    else:
        report.longrepr = f"{longrepr}\n\n{text}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report: pytest.TestReport = yield
    if not _is_harness(item):
        return report
    report.gc_harness = True  # type: ignore[attr-defined]
    apps = item.stash.get(APPS, [])
    failed = item.stash.setdefault(_FAILED, [])
    if report.failed:
        crash = getattr(report.longrepr, "reprcrash", None)
        lines = report.longreprtext.strip().splitlines() or ["failed"]
        failed.append((crash.message if crash is not None else lines[-1])[:500])
        if apps:
            text, found = _section(item, apps, str(report.longrepr))
            _annotate(report, text, found)
            _mask_longrepr(report, _sso_data(apps))
    if report.skipped:
        item.stash[_SKIPPED] = True
        item.stash[_SKIP_REASON] = _skip_reason(report)
    if report.when == "setup" and report.failed and "BrowserType.launch" in report.longreprtext:
        _browser_cannot_launch(item, report)
    if report.when == "teardown":
        row = _row(item, apps, failed)
        if item.stash.get(_SKIPPED, False) and not failed:
            row["outcome"] = "skipped"
            row["skip_reason"] = item.stash.get(_SKIP_REASON, "")
        report.gc_scenario = row  # type: ignore[attr-defined]
    return report


def _skip_reason(report: pytest.TestReport) -> str:
    """Why a run was skipped, as ``pytest.skip`` said it (without pytest's ``Skipped:``)."""
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return str(text).removeprefix("Skipped: ").strip()[:300]


def _mask_longrepr(report: pytest.TestReport, secrets: list[str]) -> None:
    """A failure whose text shows an ssoData part (an assertion on it) is kept masked."""
    text = str(report.longrepr)
    masked = mask_sso(text, secrets)
    if masked != text:
        report.longrepr = masked


def _browser_cannot_launch(item: pytest.Item, report: pytest.TestReport) -> None:
    """Stop the run with one line: the browser was found but does not start."""
    from gcbridge.browser import install_hint

    _, engine, _ = scenario_params(item)
    error = next(
        (line for line in report.longreprtext.splitlines() if "BrowserType.launch" in line), ""
    )
    error = error.split("BrowserType.launch:", 1)[-1].strip()[:200]
    item.session.shouldstop = (
        f"{engine} cannot launch ({error}); install: {install_hint()}, or pass --gc-browser PATH"
    )


def _row(item: pytest.Item, apps: list[Any], failed: list[str]) -> dict[str, Any]:
    scenario, engine, point = scenario_params(item)
    directory = item.config.stash.get(_REPORT_DIR, None)
    shots: list[str] = []
    traces: list[str] = []
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", item.nodeid.split("::", 1)[-1])[:120].strip("_")
    secrets = _sso_data(apps)
    for number, app in enumerate(apps, 1):
        trace = getattr(app, "trace_path", None)
        if failed and directory is not None:
            png = getattr(app, "final_screenshot", None)
            if png:
                shot = directory / "artifacts" / f"{safe}-{number}.png"
                shot.write_bytes(png)
                shots.append(f"artifacts/{shot.name}")
            if trace is not None and Path(trace).is_file():
                kept = directory / "artifacts" / f"{safe}-{number}.trace.zip"
                mask_trace(Path(trace), secrets)  # it holds request bodies and arguments
                shutil.move(str(trace), kept)
                traces.append(f"artifacts/{kept.name}")
        if trace is not None:
            shutil.rmtree(Path(trace).parent, ignore_errors=True)
    diagnosis: list[str] = []
    for app in apps:
        diagnosis += [d for d in diagnose(app, "\n".join(failed)) if d not in diagnosis]
    return {
        "nodeid": item.nodeid,
        "scenario": scenario,
        "engine": engine,
        "point": point,
        "outcome": "failed" if failed else "passed",
        "message": mask_sso(failed[0], secrets) if failed else "",
        "diagnosis": [mask_sso(d, secrets) for d in diagnosis] if failed else [],
        "timelines": [mask_sso(app.timeline.format(), secrets) for app in apps],
        "screenshots": shots,
        "traces": traces,
    }


class _Recorder:
    """The controller's side (or the only process's): counts, rows, the report."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.rows: list[dict[str, Any]] = []
        self.harness = 0
        self.executed = 0
        self.zero = ""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not getattr(report, "gc_harness", False):
            return
        if report.when == "setup":
            self.harness += 1
        if report.when == "call":
            self.executed += 1
        row = getattr(report, "gc_scenario", None)
        if row is not None:
            self.rows.append(row)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.harness and not self.executed and exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            self.zero = (
                f"gc-bridge harness: none of the {self.harness} scenarios ran "
                "(all skipped): nothing was tested, so this run fails"
            )
        directory = self.config.stash.get(_REPORT_DIR, None)
        if directory is not None:
            from gcbridge_harness.report.html import write_report

            bridge = bridge_path(self.config)
            write_report(directory, self.rows, bridge=str(bridge) if bridge else "shipped")

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.zero:
            terminalreporter.write_line(self.zero, red=True, bold=True)
        directory = self.config.stash.get(_REPORT_DIR, None)
        if directory is not None:
            terminalreporter.write_line(f"gc-bridge harness report: {directory / 'index.html'}")
