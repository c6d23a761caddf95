"""pytest plugin ``gcbridge_harness`` (registered through the ``pytest11`` entry point).

Options: ``--gc-bridge PATH`` (the bridge.js under test), ``--gc-browser PATH``
(a Chromium; otherwise :func:`gcbridge.browser.find_chromium`), ``--gc-engine
chromium|webkit|all`` (default: every engine found; one named here that is not
found fails the run).

Fixtures:

- ``engine``            parametrizes a test over the engines (``chromium``, ``webkit``)
- ``injection_point``   parametrizes a test over document-start, document-end, page-finished
- ``bridge_script``     the text of the bridge.js under test (session)
- ``emulator``          a running emulator on a free loopback port (session: one per worker)
- ``customer_backend``  the sample customer backend, signing for the emulator's site (session)
- ``service``           a :class:`~gcbridge_harness.world.service.ServiceClient` (session)
- ``native_app``        ``native_app(injection_point, **options) -> NativeApp``: launches the app
- ``frame_server``      serves test pages on another origin (a hostile frame) (session)

Test ids name both: ``test_login_on_ready[webkit-document-end]``.

This module is loaded by every pytest run in an environment where gc-bridge is
installed, so it imports nothing heavy at import time and defines no autouse
fixture: the emulator and the browser start only for tests that ask for them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gcbridge_harness.app.page_waits import DEFAULT_WAIT, wait_seconds
from gcbridge_harness.engines.selection import ENGINES, selected_engines

_CALL_PASSED = pytest.StashKey[bool]()
POINTS = ("document-start", "document-end", "page-finished", "page-started")

# Timelines and diagnoses in failures, stable ids, usage errors, --gc-report.
pytest_plugins = ["gcbridge_harness.report.reporting"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gcbridge", "gc-bridge harness")
    group.addoption(
        "--gc-bridge",
        dest="gc_bridge",
        default=None,
        metavar="PATH",
        help="bridge.js to test (default: the one shipped with gc-bridge)",
    )
    group.addoption(
        "--gc-browser",
        dest="gc_browser",
        default=None,
        metavar="PATH",
        help="Chromium executable (default: GC_BROWSER, Playwright's, then the system's)",
    )
    group.addoption(
        "--gc-engine",
        dest="gc_engine",
        default=None,
        choices=[*ENGINES, "all"],
        help="browser engine(s) to run the scenarios in (default: every engine found)",
    )
    group.addoption(
        "--gc-wait",
        dest="gc_wait",
        default=DEFAULT_WAIT,
        type=wait_seconds,
        metavar="SECONDS",
        help="how long a scenario waits for what it expects before it fails (default: 10);"
        " a failing scenario costs this long, a passing one only what it needs",
    )


def pytest_configure(config: pytest.Config) -> None:
    # The shipped scenarios run in app teams' projects too, under --strict-markers.
    config.addinivalue_line("markers", "browser: needs a browser engine (Chromium or WebKit)")
    # Registered now, after every entry-point plugin, so that its browser_type_launch_args
    # overrides pytest-playwright's whatever order the plugins were installed in.
    config.pluginmanager.import_plugin("gcbridge_harness.engines.launch_args")


def pytest_report_header(config: pytest.Config) -> list[str]:
    statuses, _ = selected_engines(config)
    ran = [s.name for s in statuses if s.found]
    lines = [f"gc-bridge harness engines: {', '.join(ran) or 'none'}"]
    for status in statuses:
        if not status.found:
            lines.append(f"  {status.name} not found ({status.problem}); install: {status.install}")
    return lines


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    direct = {
        name.strip()
        for mark in metafunc.definition.iter_markers("parametrize")
        for name in (mark.args[0].split(",") if isinstance(mark.args[0], str) else mark.args[0])
    }
    if "engine" in metafunc.fixturenames and "engine" not in direct:
        statuses, _ = selected_engines(metafunc.config)
        found = [s.name for s in statuses if s.found]
        if found:
            metafunc.parametrize("engine", found)
        else:
            metafunc.parametrize(
                "engine",
                [
                    pytest.param(s.name, marks=pytest.mark.skip(reason=f"{s.name}: {s.problem}"))
                    for s in statuses
                ],
            )
    if "injection_point" in metafunc.fixturenames and "injection_point" not in direct:
        metafunc.parametrize("injection_point", POINTS)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[_CALL_PASSED] = report.passed
    return report


@pytest.fixture
def injection_point(request: pytest.FixtureRequest) -> str:
    """Where the app installs bridge.js (see :mod:`gcbridge_harness.app.platforms`)."""
    point: str = request.param
    return point


@pytest.fixture
def engine(request: pytest.FixtureRequest) -> str:
    """The browser engine of the app: ``chromium`` or ``webkit``."""
    name: str = request.param
    statuses, _ = selected_engines(request.config)
    if name not in [s.name for s in statuses]:
        pytest.skip(f"engine {name} not selected (--gc-engine)")
    return name


@pytest.fixture(scope="session")
def webkit_process() -> Iterator[Any]:
    """The WebKit driver process (WebKitGTK under its own Xvfb) of the session."""
    from gcbridge_harness.engines.webkit.client import WebKitProcess

    process = WebKitProcess()
    yield process
    process.close()


@pytest.fixture(scope="session")
def bfcache_browser(
    browser_type: Any, browser_type_launch_args: dict[str, Any], pytestconfig: pytest.Config
) -> Iterator[Any]:
    """A Chromium of the worker with its back-forward cache on (launched when first asked for).

    The full browser: the headless shell the other scenarios run in keeps no
    back-forward cache.
    """
    from gcbridge.browser import find_chromium

    args = dict(browser_type_launch_args)
    args["executable_path"] = find_chromium(pytestconfig.getoption("gc_browser"))
    ignored = list(args.pop("ignore_default_args", None) or [])
    browser = browser_type.launch(
        **args, ignore_default_args=[*ignored, "--disable-back-forward-cache"]
    )
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def bridge_script(pytestconfig: pytest.Config) -> str:
    """The bridge.js under test: ``--gc-bridge PATH``, else the one shipped with gc-bridge."""
    option = pytestconfig.getoption("gc_bridge")
    if option:
        path = Path(pytestconfig.invocation_params.dir, option)
        if not path.is_file():
            raise pytest.UsageError(f"--gc-bridge {option}: no such file")
        # bridge.js itself, or the bridge.js a React Native app's bridgeSource.ts holds
        from gcbridge.bridge import BridgeError, bridge_text

        try:
            return bridge_text(path)
        except BridgeError as exc:
            raise pytest.UsageError(f"--gc-bridge {option}: [{exc.reason}] {exc}") from None
    return _shipped_bridge()


def _shipped_bridge() -> str:
    try:
        from gcbridge.bridge import script
    except ImportError:
        pass
    else:
        text: str = script().text
        return text
    # A source checkout whose gcbridge.bridge is not there yet: the single source file.
    import gcbridge

    source = Path(gcbridge.__file__).resolve().parents[2] / "bridge" / "bridge.js"
    if not source.is_file():
        raise pytest.UsageError("no bridge.js found: pass --gc-bridge PATH")
    return source.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def harness_clock() -> Any:
    """Real time plus what a scenario skipped (``advance``): the backend's and the emulator's."""
    from gcbridge_harness.world.clock import HarnessClock

    return HarnessClock()


@pytest.fixture(scope="session")
def emulator(tmp_path_factory: pytest.TempPathFactory, harness_clock: Any) -> Iterator[Any]:
    """A running emulator (``.url``, ``.site``) shared by the tests of a worker.

    Scenarios share it as apps share the service: each its own thread and users.
    """
    from gcbridge.emulator.testing import running_emulator

    directory = tmp_path_factory.mktemp("gc-emulator")
    with running_emulator(directory, request_log=True, clock=harness_clock) as emu:
        yield emu


@pytest.fixture(scope="session")
def customer_backend(emulator: Any, harness_clock: Any) -> Iterator[Any]:
    """The sample customer backend, signing ssoData with the emulator site's SSO secret."""
    from gcbridge_harness.world.backend import DEMO_USERS, UserDirectory, running_backend

    users = UserDirectory(DEMO_USERS)
    with running_backend(emulator.site.sso_secret, users=users, clock=harness_clock) as backend:
        yield backend


@pytest.fixture(scope="session")
def service(emulator: Any) -> Iterator[Any]:
    """An HTTP client of the emulator's public API, for the emulator's first site."""
    from gcbridge_harness.world.service import ServiceClient

    site = emulator.site
    client = ServiceClient(emulator.url, site.shortname, site.sso_public_key)
    yield client
    client.close()


@pytest.fixture(scope="session")
def frame_server() -> Iterator[Any]:
    """Test pages on an origin of their own: ``frame_server.serve(path, html) -> url``."""
    from gcbridge_harness.world.frames import FrameServer

    with FrameServer() as server:
        yield server


@pytest.fixture
def native_app(
    request: pytest.FixtureRequest,
    engine: str,
    emulator: Any,
    service: Any,
    customer_backend: Any,
    bridge_script: str,
    harness_clock: Any,
) -> Iterator[Callable[..., Any]]:
    """``native_app(injection_point, **options)`` launches a ``NativeApp`` and returns it.

    Apps a passing test did not ``finish()`` are checked at teardown (ssoData
    leaks, transport misuse, page errors); all are closed.
    """
    from gcbridge_harness.app.native_app import NativeApp
    from gcbridge_harness.app.options import AppOptions
    from gcbridge_harness.app.platforms import InjectionPoint
    from gcbridge_harness.report.reporting import APPS

    app_class: Any
    if engine == "webkit":
        from gcbridge_harness.engines.webkit.app import WebKitApp, WebKitRuntime

        app_class = WebKitApp
        runtime: Any = WebKitRuntime(request.getfixturevalue("webkit_process"))
    else:
        from gcbridge_harness.engines.chromium import ChromiumApp

        app_class = ChromiumApp
        runtime = request.getfixturevalue("browser")
    wait: float = request.config.getoption("gc_wait")
    apps: list[NativeApp] = []
    request.node.stash[APPS] = apps  # the reporting plugin's timelines and artifacts

    def launch(injection_point: InjectionPoint, **options: Any) -> NativeApp:
        engine_runtime = runtime
        if engine == "chromium" and options.get("bfcache"):
            # Playwright switches Chromium's back-forward cache off; this browser has it on.
            engine_runtime = request.getfixturevalue("bfcache_browser")
        app = app_class(
            engine_runtime,
            AppOptions(
                clock=harness_clock,
                service=service,
                backend=customer_backend,
                bridge=bridge_script,
                injection_point=injection_point,
                request_log=emulator.request_log,
                registry=apps,
                **options,
            ),
        )
        app.wait_seconds = wait
        launched: NativeApp = app.launch()
        return launched

    yield launch
    harness_clock.reset()
    passed = request.node.stash.get(_CALL_PASSED, False)
    failures: list[AssertionError] = []
    for app in apps:
        if passed and not app._finished:
            try:
                app.finish()
            except AssertionError as exc:
                failures.append(exc)
        else:
            app.close()
    if failures:
        raise failures[0]
