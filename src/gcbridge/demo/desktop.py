"""Desktop mode: a pywebview window (Qt backend) that behaves like a native app.

The widget is the window's top-level document (a standalone WebView, no iframe, no
overlay: anything else would test something other than what apps ship), with native Qt
widgets around it (:mod:`.qtchrome`); bridge.js goes in the Android way, on every page
finished (docs/guides/demo.md, "Two modes, two platforms' timing"), and forwards over a
QWebChannel object of the demo's own (no pywebview ``js_api``: see
:data:`PYWEBVIEW_TRANSPORT_JS`). The profile is persistent, so the session survives a relaunch.

Threads: Qt owns the main thread; all app logic runs on one "app thread" (an
executor), because ``evaluate_js`` blocks until the GUI thread answers and must never
be called from it. UI updates cross back through a Qt signal. SIGINT/SIGTERM close the
window (:mod:`.stopping`); every wait for the GUI thread gives up once it is gone.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from gcbridge.demo.actions import AppActions
from gcbridge.demo.errors import NO_GUI_HINT, NoGuiBackend
from gcbridge.demo.paths import absolute
from gcbridge.demo.qtchrome import build_chrome
from gcbridge.demo.qtlog import (
    chromium_flags,
    install_message_filter,
    is_root,
)
from gcbridge.demo.stopping import DemoStopped, Stopper
from gcbridge.demo.timeline import Timeline

__all__ = ["probe_gui", "run_desktop", "QtDriver", "prepare_qt_environment"]

T = TypeVar("T")

_PROBE = (
    "from qtpy.QtWidgets import QApplication\n"
    "from qtpy import QtWebEngineWidgets  # noqa: F401\n"
    "app = QApplication(['gcbridge-probe'])\n"
    "print('ok')\n"
)

# ``window.pywebview.api.gc_bridge_message`` without pywebview's ``js_api`` (its ``new
# Function`` and ``eval`` are refused by the widget's CSP: see gcbridge.demo.qtlog), over
# pywebview's Qt WebChannel to a native object of ours (``gcBridgeNative``). Run through
# runJavaScript, which the page's CSP does not govern; messages before the channel opens
# are queued, in order.
PYWEBVIEW_TRANSPORT_JS = """
(function () {
  var pv = window.pywebview = window.pywebview || {};
  pv.api = pv.api || {};
  if (typeof pv.api.gc_bridge_message === 'function') { return 'pywebview'; }
  if (typeof QWebChannel !== 'function' || !window.qt) { return 'no-channel'; }
  var queue = [];
  pv.api.gc_bridge_message = function (message) {
    queue.push(String(message));
    return Promise.resolve(null);
  };
  new QWebChannel(window.qt.webChannelTransport, function (channel) {
    var nativeEnd = channel.objects.gcBridgeNative;
    pv.api.gc_bridge_message = function (message) {
      nativeEnd.post(String(message));
      return Promise.resolve(null);
    };
    queue.splice(0).forEach(function (message) { nativeEnd.post(message); });
  });
  return 'qwebchannel';
})()
"""


def prepare_qt_environment(environ: MutableMapping[str, str] | None = None) -> None:
    """Chromium's flags: the sandbox off only as root (Qt refuses it), its log quiet."""
    chromium_flags(os.environ if environ is None else environ, root=is_root())


def probe_gui(environ: Mapping[str, str] | None = None, *, timeout: float = 30.0) -> None:
    """Raise :class:`NoGuiBackend` unless a Qt WebEngine window can start here.

    Qt aborts the whole process (no exception) when the display is dead, so the probe
    runs in a child process.
    """
    env = dict(os.environ if environ is None else environ)
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        raise NoGuiBackend(f"no display (DISPLAY and WAYLAND_DISPLAY are unset); {NO_GUI_HINT}")
    prepare_qt_environment(env)
    try:
        probe = subprocess.run(  # noqa: S603 - our own interpreter, fixed script
            [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise NoGuiBackend(
            f"the Qt backend did not start in {timeout:.0f}s; {NO_GUI_HINT}"
        ) from None
    if probe.returncode != 0 or "ok" not in probe.stdout:
        lines = [ln.strip() for ln in probe.stderr.splitlines() if ln.strip()]
        why = next(
            (ln for ln in reversed(lines) if "Error" in ln or "could not" in ln),
            lines[-1] if lines else "",
        )
        where = env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")
        raise NoGuiBackend(
            f"the Qt backend cannot open a window on {where!r} ({why[:160]}); {NO_GUI_HINT}"
        )


def _wait(done: threading.Event, gone: Callable[[], bool], timeout: float, what: str) -> None:
    """Wait for ``done``; stop waiting once the window is gone (closed, or a stop signal)."""
    deadline = time.monotonic() + timeout
    while not done.wait(0.1):
        if gone():
            raise DemoStopped("the window is closed")
        if time.monotonic() > deadline:
            raise TimeoutError(what)


class QtDriver:
    """The desktop :class:`~gcbridge.demo.flow.FlowDriver`: the app thread is an executor."""

    def __init__(self, executor: ThreadPoolExecutor, gone: Callable[[], bool]) -> None:
        self._executor = executor
        self._gone = gone

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the app thread and wait for it."""
        return self._executor.submit(fn).result()

    def wait_until(self, check: Callable[[], T | None], timeout: float) -> T | None:
        """Poll ``check`` on the app thread every 100 ms."""
        deadline = time.monotonic() + timeout
        while True:
            if self._gone():
                raise DemoStopped("the window is closed")
            found = self.call(check)
            if found is not None or time.monotonic() > deadline:
                return found
            time.sleep(0.1)


class _QtHost:
    """:class:`~gcbridge.demo.app.WebViewHost` over the window's QWebEnginePage.

    Not ``window.evaluate_js``: pywebview wraps scripts in ``eval()``, which the
    widget's Content-Security-Policy (no 'unsafe-eval') refuses. ``runJavaScript``
    is Qt's ``evaluateJavascript``: it runs in the page's main world, exempt from
    the page's CSP, exactly as Android and iOS inject.
    """

    def __init__(self, window: Any, gone: Callable[[], bool], *, timeout: float = 15.0) -> None:
        self.window = window
        self.gone = gone
        self.timeout = timeout

    def evaluate_js(self, script: str) -> Any:
        """Evaluate ``script`` on the GUI thread; wait for and return its value."""
        done = threading.Event()
        box: list[Any] = [None]

        def answer(value: Any) -> None:
            box[0] = value
            done.set()

        def run() -> None:
            self.window.native.webview.page().runJavaScript(script, 0, answer)

        self.window.native.create_window_trigger.emit(run)
        _wait(done, self.gone, self.timeout, "the WebView did not answer evaluateJavaScript")
        return box[0]

    def on_gui(self, fn: Callable[[], None], timeout: float = 10.0) -> None:
        """Run ``fn`` on the GUI thread and wait until it has run; its exception re-raised."""
        # pywebview's Qt BrowserView runs callables on the GUI thread through this signal
        # (it is how it creates windows from other threads)
        done = threading.Event()
        error: list[BaseException] = []

        def run() -> None:
            try:
                fn()
            except BaseException as exc:  # re-raised on the calling thread
                error.append(exc)
            finally:
                done.set()

        self.window.native.create_window_trigger.emit(run)
        _wait(done, self.gone, timeout, "the GUI thread did not answer")
        if error:
            raise error[0]


def _register_native_end(window: Any, sink: Callable[[str], object]) -> None:
    """Register ``gcBridgeNative`` on the page's QWebChannel once (GUI thread)."""
    native = window.native
    if getattr(native, "_gcbridge_native_end", None) is not None:
        return
    qt_core: Any = importlib.import_module("qtpy.QtCore")

    class NativeEnd(qt_core.QObject):  # type: ignore[misc]
        @qt_core.Slot(str)  # type: ignore[untyped-decorator]
        def post(self, message: str) -> None:
            sink(str(message))

    end = NativeEnd(native)
    native.channel.registerObject("gcBridgeNative", end)
    native._gcbridge_native_end = end


def run_desktop(
    widget_url: str,
    data_dir: Path,
    timeline: Timeline,
    make_app: Callable[[Any], Any],
    run: Callable[[Any, QtDriver, Callable[[str], None], Callable[[], None]], int],
    *,
    users: list[str],
    stopper: Stopper | None = None,
    step_timeout: float = 20.0,
) -> int:
    """Open the window, hand the app to ``run(app, driver, screenshot, close)``; its exit code."""
    stop = stopper or Stopper()
    prepare_qt_environment()
    install_message_filter()
    import webview

    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="app")

    # no js_api, text_select=True: both refused by the widget's CSP (gcbridge.demo.qtlog)
    window: Any = webview.create_window(
        "gc-bridge demo — a native app with the comment widget",
        widget_url,
        width=1400,
        height=860,
        text_select=True,
    )

    def gone() -> bool:
        return stop.stopped or window.events.closed.is_set()

    host = _QtHost(window, gone)
    app = make_app(host)

    # on the GUI thread, before the page can open a channel (no "Registered new object
    # after initialization") and after pywebview put in its own SIGINT handler (it quits
    # Qt with the page alive): our end of the transport, and both signals back to us
    def before_show() -> None:
        _register_native_end(window, lambda raw: executor.submit(app.on_bridge_message, raw))
        stop.claim()

    window.events.before_show += before_show

    def page_finished() -> None:
        transport = host.evaluate_js(PYWEBVIEW_TRANSPORT_JS)
        timeline.record(
            "bridge.transport", f"window.pywebview.api.gc_bridge_message ready ({transport})"
        )
        app.page_finished()

    window.events.loaded += lambda *_: executor.submit(page_finished)

    # the app bar's buttons: the same sign-in and sign-out, and the same watch of the
    # widget, as the scripted flow (so the panel says "widget signed in" too)
    actions = AppActions(app, QtDriver(executor, gone), timeout=step_timeout)

    result = {"code": 1}

    def screenshot(path: str) -> None:
        def grab() -> None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            if not window.native.grab().save(path):
                raise OSError(f"could not write {path}")

        host.on_gui(grab)
        timeline.record("demo.screenshot", f"window saved to {path}")

    def main() -> None:
        try:
            while not window.events.shown.wait(0.1):
                if gone():
                    return
            stop.on_stop(window.destroy)
            host.on_gui(lambda: build_chrome(window, timeline, users, actions))
            result["code"] = run(app, QtDriver(executor, gone), screenshot, window.destroy)
        except DemoStopped:
            pass
        except BaseException as exc:  # shown in the timeline; the window must still close
            if not gone():
                timeline.record("demo.error", f"{type(exc).__name__}: {exc}")
                window.destroy()

    # absolute, always: under a relative storage path Chromium never opens localStorage
    # and the page stalls (see gcbridge.demo.paths)
    profile = absolute(data_dir / "webview")
    webview.start(main, gui="qt", private_mode=False, storage_path=str(profile))
    executor.shutdown(wait=False, cancel_futures=True)
    return result["code"]
