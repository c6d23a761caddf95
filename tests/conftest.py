"""Suite-wide ordering, xdist grouping and the collection clock-skew check.

Ordering: pytest-playwright's sync API keeps an asyncio event loop running in the
main thread from the first browser test to the end of the session, and any later
``asyncio.run`` then fails. Browser tests therefore run last; their relative
order is kept. Under pytest-xdist each worker keeps that order (the scheduler
hands a worker its items in collection order). Tests that only run subprocesses
(the harness through ``pytester``, the wheel in a fresh venv) start no loop here
and are the longest: they run first, so the run does not end on one of them.

Grouping (``make test`` runs ``-n auto --dist loadgroup``): a test marked
``defaults`` runs a command on its default ports (the emulator on 8000, the
listener on 9000, the demo on 8470) or default paths in the repository root; two
of those at once would fight over the port, so they all run on one worker. The
tests of a module fixture that takes seconds (``BUILT_ONCE``) share one too. The
groups are added here, before xdist reads them; xdist runs them before the single
tests, so none may hold a test with a browser in this process (refused at
collection; tests/test_xdist_groups.py).

Clock skew (``make test-clock-skew``): with ``GC_CLOCK_SKEW_FILE`` set, the run has
.ci/clock_skew.c preloaded, which reads the wall clock's offset in seconds from
that file; the collection runs with the clock behind (``-400``) and the file is
set to ``0`` once collection is over, so a timestamp taken at import or
collection is 400 s old when a test uses it. tests/test_clock_skew_guard.py is the
cheap, always-on form of the check.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS_GROUP = "defaults"


def _order(item: pytest.Item) -> int:
    """0: only subprocesses (the harness or the wheel run as a user runs them), 1: the
    rest without a browser, 2: a browser in this process (see the module docstring)."""
    fixtures = getattr(item, "fixturenames", ())
    in_process = "playwright" in fixtures or "native_app" in fixtures
    if not in_process and ("pytester" in fixtures or item.get_closest_marker("wheel")):
        return 0
    return 2 if item.get_closest_marker("browser") is not None or in_process else 1


# Module fixtures that take seconds (an npm install, a Kotlin compile, the docs site
# build): their tests share a worker, so each is built once per run, not once per worker.
BUILT_ONCE = ("kit_tarball", "kotlin_output", "site")


@pytest.hookimpl(tryfirst=True)  # before xdist's worker tags each grouped test's id
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("defaults") is not None:
            item.add_marker(pytest.mark.xdist_group(DEFAULTS_GROUP))
            continue
        fixtures = getattr(item, "fixturenames", ())
        built = next((name for name in BUILT_ONCE if name in fixtures), None)
        if built is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(f"built-once-{built}"))
    # xdist's loadgroup sends every group before the single tests (largest first), so a
    # browser in a group would start before the worker's tests without one.
    for item in items:
        if _group(item) is not None and _order(item) == 2:
            raise pytest.UsageError(
                f"{item.nodeid}: a test with a browser in this process is in xdist group "
                f"{_group(item)!r}; groups run first under --dist loadgroup (tests/conftest.py)"
            )
    items.sort(key=_order)


def _group(item: pytest.Item) -> str | None:
    mark = item.get_closest_marker("xdist_group")
    if mark is None:
        return None
    return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))


def _end_collection_skew() -> None:
    skew = os.environ.get("GC_CLOCK_SKEW_FILE")
    if skew:
        Path(skew).write_text("0\n", encoding="ascii")


def pytest_collection_finish(session: pytest.Session) -> None:
    # A plain run: its collection is over. An xdist worker leaves it to the
    # controller, which waits for every worker's collection.
    if not hasattr(session.config, "workerinput"):
        _end_collection_skew()


class _XdistCollections:
    """On the xdist controller: ends the skew once every worker has collected."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.done: set[str] = set()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        self.done.add(str(getattr(node, "gateway", node)))
        if len(self.done) >= int(self.config.getoption("numprocesses") or 1):
            _end_collection_skew()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker per core, and one more.

    A good part of the suite waits (on subprocesses, browsers, servers starting, a
    lease running out), and a third worker fills it: on 2 cores 3 workers took 374 s
    where 2 took 457 s. A fourth took a fresh clone's run from 299 s to 280 s, but
    in 2 of 3 runs a test that holds under 3 workers (a wait of a few seconds in a
    browser) failed: the suite keeps its margin.
    """
    return len(os.sched_getaffinity(0)) + 1


def pytest_configure(config: pytest.Config) -> None:
    _ctrl_c_as_from_a_terminal()
    controller = config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput")
    if os.environ.get("GC_CLOCK_SKEW_FILE") and controller:
        config.pluginmanager.register(_XdistCollections(config), "gc-clock-skew-xdist")


def _ctrl_c_as_from_a_terminal() -> None:
    """Ctrl-C reaches this process and the commands it starts, as from a terminal.

    A shell without job control starts a background command with SIGINT ignored
    (``cmd &`` in a script), and an ignored signal stays ignored across ``exec``: every
    command the suite starts would shrug off the Ctrl-C its tests send (seen: a
    ``make test-under-load`` started that way). A handled signal is reset to its default
    at ``exec``, so Python's own handler here gives each command a terminal's Ctrl-C.
    """
    main = threading.current_thread() is threading.main_thread()
    if main and signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# Pytest plugins of this checkout's dev extra that an app team's install
# (gc-bridge[harness]) does not have: Hypothesis's and Schemathesis's. The pytest
# runs this suite starts in subprocesses (the harness as a team runs it, a
# receiver's suite, `gcbridge harness run`) go without them, as a team's run does,
# and each starts in 0.6 s instead of 1.8 s. This process keeps its own.
WITHOUT_DEV_PLUGINS = "-p no:hypothesispytest -p no:schemathesis"


@pytest.fixture(scope="session", autouse=True)
def _subprocess_pytest_without_dev_plugins() -> Iterator[None]:
    # A fixture: it runs where tests run (a worker, or a plain run), after this
    # process read its own PYTEST_ADDOPTS, and never on an xdist controller, whose
    # workers would read it as theirs.
    before = os.environ.get("PYTEST_ADDOPTS")
    os.environ["PYTEST_ADDOPTS"] = " ".join(filter(None, [before, WITHOUT_DEV_PLUGINS]))
    yield
    if before is None:
        os.environ.pop("PYTEST_ADDOPTS", None)
    else:
        os.environ["PYTEST_ADDOPTS"] = before


# The fixtures through which a test calls Playwright: pytest-playwright's (each depends on
# "playwright"), and the harness's native_app, which asks for its engine's browser only
# once it knows the engine (request.getfixturevalue).
_PLAYWRIGHT_USERS = frozenset({"playwright", "native_app"})


@pytest.fixture(autouse=True)
def _outside_playwrights_event_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that does not use Playwright runs outside its event loop, whatever ran before.

    Playwright's sync API marks its event loop as the thread's running loop between its
    calls (``wait_for_future`` in playwright/_impl/_greenlets.py), for as long as the
    worker's session-scoped Playwright lives. ``asyncio.run`` in any later test of that
    worker then fails ("cannot be called from a running event loop"), depending on
    which tests xdist happened to give the worker before. Such a test gets the mark
    cleared for its duration; it is put back before Playwright is called again.
    """
    loop = asyncio._get_running_loop()
    if loop is None or not _PLAYWRIGHT_USERS.isdisjoint(request.fixturenames):
        yield
        return
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(loop)


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytest's own, its runs without the dev plugins (it clears ``PYTEST_ADDOPTS``)."""
    monkeypatch.setenv("PYTEST_ADDOPTS", WITHOUT_DEV_PLUGINS)
    return pytester


@pytest.fixture(scope="session")
def gc_wheel() -> Path:
    """The wheel of this checkout, built once for every test that installs it.

    Cached by the hash of its sources (tests/built_artifacts.py): a run on unchanged
    sources takes it from the cache.
    """
    from tests import built_artifacts  # (this file is also copied alone, by a test)

    return built_artifacts.wheel()


@pytest.fixture(scope="session")
def gc_harness_venv(tmp_path_factory: pytest.TempPathFactory, gc_wheel: Path) -> Path:
    """A fresh venv with ``"<wheel>[harness]"`` installed, as the README and the CI recipes do.

    Installed once per run: the harness install's README commands and both CI recipes
    run in it (the recipes' own ``pip install`` of the same wheel then finds it there).
    """
    from tests import built_artifacts

    work = tmp_path_factory.mktemp("harness-install")
    venv = built_artifacts.fresh_venv(work / "venv")
    built_artifacts.pip_install(venv, f"{gc_wheel}[harness]", cwd=work)
    return venv


@pytest.fixture
def trickling_server() -> Iterator[str]:
    """A server that answers every request one byte at a time, 0.3 s apart, never whole.

    For the CLI clients' total deadline (``calls``, ``sso check``): each byte comes well
    within any per-read time-out, the answer never does. Yields its base URL.
    """
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: ab":
                    if stop.wait(0.3):
                        return
                    try:
                        conn.sendall(bytes([byte]))
                    except OSError:
                        break

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    listener.close()
    thread.join(5)
