"""pytest plugin ``gcbridge_harness`` (registered through the ``pytest11`` entry point).

Options: ``--gc-bridge PATH`` (the bridge.js under test), ``--gc-browser PATH``
(a Chromium; otherwise :func:`gcbridge.browser.find_chromium`).

Fixtures:

- ``injection_point``   parametrizes a test over document-start, document-end, page-finished
- ``bridge_script``     the text of the bridge.js under test (session)
- ``emulator``          a running emulator on a free loopback port (module)
- ``customer_backend``  the sample customer backend, signing for the emulator's site (module)
- ``service``           a :class:`~gcbridge_harness.service.ServiceClient` of the emulator (module)
- ``native_app``        ``native_app(injection_point, **options) -> NativeApp``: launches the app

This module is loaded by every pytest run in an environment where gc-bridge is
installed, so it imports nothing heavy at import time and defines no autouse
fixture: the emulator and the browser start only for tests that ask for them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

_CALL_PASSED = pytest.StashKey[bool]()

# Timelines and diagnoses in failures, stable ids, usage errors, --gc-report.
pytest_plugins = ["gcbridge_harness.reporting"]


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


def pytest_configure(config: pytest.Config) -> None:
    # The shipped scenarios run in app teams' projects too, under --strict-markers.
    config.addinivalue_line("markers", "browser: needs a Chromium (Playwright)")
    # Registered now, after every entry-point plugin, so that its browser_type_launch_args
    # overrides pytest-playwright's whatever order the plugins were installed in.
    config.pluginmanager.import_plugin("gcbridge_harness.launch_args")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[_CALL_PASSED] = report.passed
    return report


@pytest.fixture(params=["document-start", "document-end", "page-finished"])
def injection_point(request: pytest.FixtureRequest) -> str:
    """Where the app installs bridge.js (see :mod:`gcbridge_harness.platforms`)."""
    point: str = request.param
    return point


@pytest.fixture(scope="session")
def bridge_script(pytestconfig: pytest.Config) -> str:
    """The bridge.js under test: ``--gc-bridge PATH``, else the one shipped with gc-bridge."""
    option = pytestconfig.getoption("gc_bridge")
    if option:
        path = Path(pytestconfig.invocation_params.dir, option)
        if not path.is_file():
            raise pytest.UsageError(f"--gc-bridge {option}: no such file")
        return path.read_text(encoding="utf-8")
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


@pytest.fixture(scope="module")
def emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A running emulator (``.url``, ``.site``) shared by the tests of a module."""
    from gcbridge.emulator.testing import running_emulator

    with running_emulator(tmp_path_factory.mktemp("gc-emulator")) as emu:
        yield emu


@pytest.fixture(scope="module")
def customer_backend(emulator: Any) -> Iterator[Any]:
    """The sample customer backend, signing ssoData with the emulator site's SSO secret."""
    from gcbridge_harness.backend import DEMO_USERS, UserDirectory, running_backend

    with running_backend(emulator.site.sso_secret, users=UserDirectory(DEMO_USERS)) as backend:
        yield backend


@pytest.fixture(scope="module")
def service(emulator: Any) -> Iterator[Any]:
    """An HTTP client of the emulator's public API, for the emulator's first site."""
    from gcbridge_harness.service import ServiceClient

    site = emulator.site
    client = ServiceClient(emulator.url, site.shortname, site.sso_public_key)
    yield client
    client.close()


@pytest.fixture
def native_app(
    request: pytest.FixtureRequest,
    browser: Any,
    service: Any,
    customer_backend: Any,
    bridge_script: str,
) -> Iterator[Callable[..., Any]]:
    """``native_app(injection_point, **options)`` launches a ``NativeApp`` and returns it.

    Apps a passing test did not ``finish()`` are checked at teardown (ssoData
    leaks, transport misuse, page errors); all are closed.
    """
    from gcbridge_harness.native_app import NativeApp
    from gcbridge_harness.platforms import InjectionPoint
    from gcbridge_harness.reporting import APPS

    apps: list[NativeApp] = []
    request.node.stash[APPS] = apps  # the reporting plugin's timelines and artifacts

    def launch(injection_point: InjectionPoint, **options: Any) -> NativeApp:
        app = NativeApp(
            browser,
            service=service,
            backend=customer_backend,
            bridge=bridge_script,
            injection_point=injection_point,
            registry=apps,
            **options,
        )
        return app.launch()

    yield launch
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
