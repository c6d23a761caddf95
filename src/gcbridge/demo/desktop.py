"""Desktop mode: a pywebview window (Qt backend) that behaves like a native app.

Why this layout. The spec loads the widget in a *standalone* WebView: the widget is
the top-level document, with no iframe and no embed script, and the app talks to it
only through injected JavaScript (App -> Web) and the bridge's transport (Web -> App).
So the window's one WebView loads gc_url + api_public_key directly, and the app's own
UI is what a native app would use: native widgets around the WebView. On the Qt
backend pywebview's window is a ``QMainWindow`` (``window.native``) whose central
widget is the WebView; the demo adds a ``QToolBar`` (the app bar: pick a demo user,
sign in, sign out, the app's login state) and a ``QDockWidget`` (the side panel: the
live timeline of bridge messages, ssoData fetches and injections, verified webhook
deliveries). An app-shell *page* hosting the widget in an iframe, or an overlay drawn
into the widget's document, would each test something other than what apps ship.

The bridge goes in the Android way: on every page-finished (pywebview's ``loaded``
event) the app evaluates bridge.js with ``evaluate_js``, and bridge.js forwards the
widget's messages through ``window.pywebview.api.gc_bridge_message``. The profile is
persistent (``private_mode=False``, ``storage_path=<data dir>/webview``), so the
widget's session survives a relaunch as in a real app.

Threads: Qt owns the main thread; all app logic runs on one "app thread" (an
executor), because ``evaluate_js`` blocks until the GUI thread answers and must never
be called from it. UI updates cross back through a Qt signal.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from gcbridge.demo.errors import NO_GUI_HINT, NoGuiBackend
from gcbridge.demo.paths import absolute
from gcbridge.demo.timeline import Timeline, TimelineEvent

__all__ = ["probe_gui", "run_desktop", "QtDriver", "prepare_qt_environment"]

T = TypeVar("T")

_PROBE = (
    "from qtpy.QtWidgets import QApplication\n"
    "from qtpy import QtWebEngineWidgets  # noqa: F401\n"
    "app = QApplication(['gcbridge-probe'])\n"
    "print('ok')\n"
)

# pywebview builds ``window.pywebview.api`` with ``new Function`` (its finish.js) and
# returns every call's result with ``eval``; a page whose Content-Security-Policy lacks
# 'unsafe-eval' (the widget's) refuses both, so the API never appears. Where that
# happened, this defines ``window.pywebview.api.gc_bridge_message`` without eval, over
# the same Qt WebChannel pywebview uses, to a native object of ours (``gcBridgeNative``).
# It runs through runJavaScript, which the page's CSP does not govern (like Android's
# evaluateJavascript). Messages sent before the channel opens are queued, in order.
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

_COLOURS = {
    "bridge": "#1565c0",
    "sso": "#6a1b9a",
    "webhook": "#2e7d32",
    "app": "#e65100",
    "widget": "#00838f",
    "comment": "#37474f",
    "flow": "#9e9e9e",
}


def prepare_qt_environment(environ: dict[str, str] | None = None) -> None:
    """QtWebEngine refuses to run as root with its sandbox on; turn it off only then."""
    env = os.environ if environ is None else environ
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "QTWEBENGINE_CHROMIUM_FLAGS" not in env:
        env["QTWEBENGINE_CHROMIUM_FLAGS"] = "--no-sandbox"


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


class QtDriver:
    """The desktop :class:`~gcbridge.demo.flow.FlowDriver`: the app thread is an executor."""

    def __init__(self, executor: ThreadPoolExecutor) -> None:
        self._executor = executor

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the app thread and wait for it."""
        return self._executor.submit(fn).result()

    def wait_until(self, check: Callable[[], T | None], timeout: float) -> T | None:
        """Poll ``check`` on the app thread every 100 ms."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.call(check)
            if found is not None or time.monotonic() > deadline:
                return found
            time.sleep(0.1)


class _JsApi:
    """The object pywebview exposes as ``window.pywebview.api`` (one method only)."""

    def __init__(self, sink: Callable[[str], None]) -> None:
        self._sink = sink

    def gc_bridge_message(self, message: str) -> None:
        """Transport 5 of bridge.js: one JSON string per widget event."""
        self._sink(str(message))


class _QtHost:
    """:class:`~gcbridge.demo.app.WebViewHost` over the window's QWebEnginePage.

    Not ``window.evaluate_js``: pywebview wraps scripts in ``eval()``, which the
    widget's Content-Security-Policy (no 'unsafe-eval') refuses. ``runJavaScript``
    is Qt's ``evaluateJavascript``: it runs in the page's main world, exempt from
    the page's CSP, exactly as Android and iOS inject.
    """

    def __init__(self, window: Any, *, timeout: float = 15.0) -> None:
        self.window = window
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
        if not done.wait(self.timeout):
            raise TimeoutError("the WebView did not answer evaluateJavaScript")
        return box[0]


def _on_gui(window: Any, fn: Callable[[], None], timeout: float = 10.0) -> None:
    # pywebview's Qt BrowserView runs callables on the GUI thread through this signal
    # (it is how it creates windows from other threads); wait until fn has run.
    done = threading.Event()
    error: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as exc:  # re-raised on the calling thread
            error.append(exc)
        finally:
            done.set()

    window.native.create_window_trigger.emit(run)
    if not done.wait(timeout):
        raise TimeoutError("the GUI thread did not answer")
    if error:
        raise error[0]


def _register_native_end(window: Any, sink: Callable[[str], None]) -> None:
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


def _build_chrome(window: Any, timeline: Timeline, users: list[str], actions: Any) -> None:
    """Add the app bar and the side panel around the WebView (runs on the GUI thread)."""
    QtCore: Any = importlib.import_module("qtpy.QtCore")  # noqa: N806 - Qt's own module names
    QtWidgets: Any = importlib.import_module("qtpy.QtWidgets")  # noqa: N806
    QColor: Any = importlib.import_module("qtpy.QtGui").QColor  # noqa: N806

    native = window.native

    class Relay(QtCore.QObject):  # type: ignore[misc]
        event = QtCore.Signal(str, str)

    relay = Relay(native)
    bar = QtWidgets.QToolBar("App", native)
    bar.setMovable(False)
    bar.setStyleSheet("QToolBar{background:#263238;padding:6px;spacing:8px} QLabel{color:white}")
    title = QtWidgets.QLabel("<b>News app</b> &nbsp;·&nbsp; Native apps, hosted comments")
    bar.addWidget(title)
    spacer = QtWidgets.QWidget()
    spacer.setSizePolicy(
        QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Preferred
    )
    bar.addWidget(spacer)
    status = QtWidgets.QLabel("Signed out")
    bar.addWidget(status)
    picker = QtWidgets.QComboBox()
    picker.addItems(users)
    bar.addWidget(picker)
    sign_in = QtWidgets.QPushButton("Sign in")
    sign_out = QtWidgets.QPushButton("Sign out")
    sign_in.clicked.connect(lambda: actions.sign_in(picker.currentText()))
    sign_out.clicked.connect(lambda: actions.sign_out())
    bar.addWidget(sign_in)
    bar.addWidget(sign_out)
    native.addToolBar(bar)

    panel = QtWidgets.QListWidget()
    panel.setWordWrap(True)
    panel.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    panel.setResizeMode(QtWidgets.QListView.ResizeMode.Adjust)
    panel.setStyleSheet("QListWidget{font-family:monospace;font-size:11px}")
    dock = QtWidgets.QDockWidget("Bridge · ssoData · webhooks (live)", native)
    dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
    dock.setWidget(panel)
    dock.setMinimumWidth(460)
    native.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, dock)

    def show(kind: str, line: str) -> None:
        item = QtWidgets.QListWidgetItem(line)
        item.setForeground(QColor(_COLOURS.get(kind.split(".")[0], "#212121")))
        panel.addItem(item)
        panel.scrollToBottom()
        if kind == "app.signed_in":
            status.setText(f"Signed in as <b>{line.rsplit(': ', 1)[-1].split()[0]}</b>")
        elif kind == "app.signed_out":
            status.setText("Signed out")

    relay.event.connect(show)

    def listener(event: TimelineEvent) -> None:
        relay.event.emit(event.kind, f"+{event.t:6.2f}s  {event.text}")

    timeline.subscribe(listener)


def run_desktop(
    widget_url: str,
    data_dir: Path,
    timeline: Timeline,
    make_app: Callable[[Any], Any],
    run: Callable[[Any, QtDriver, Callable[[str], None], Callable[[], None]], int],
    *,
    users: list[str],
) -> int:
    """Open the window, hand the app to ``run(app, driver, screenshot, close)``; its exit code."""
    prepare_qt_environment()
    import webview

    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="app")
    holder: dict[str, Any] = {}

    def deliver(raw: str) -> None:
        app = holder.get("app")
        if app is not None:
            executor.submit(app.on_bridge_message, raw)

    window: Any = webview.create_window(
        "gc-bridge demo — a native app with the comment widget",
        widget_url,
        js_api=_JsApi(deliver),
        width=1400,
        height=860,
    )
    host = _QtHost(window)
    app = make_app(host)
    holder["app"] = app

    def page_finished() -> None:
        _on_gui(window, lambda: _register_native_end(window, deliver))
        transport = host.evaluate_js(PYWEBVIEW_TRANSPORT_JS)
        timeline.record(
            "bridge.transport", f"window.pywebview.api.gc_bridge_message ready ({transport})"
        )
        app.page_finished()

    window.events.loaded += lambda *_: executor.submit(page_finished)

    class Actions:
        def sign_in(self, username: str) -> None:
            executor.submit(app.sign_in, username)

        def sign_out(self) -> None:
            executor.submit(app.sign_out)

    result = {"code": 1}

    def screenshot(path: str) -> None:
        def grab() -> None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            if not window.native.grab().save(path):
                raise OSError(f"could not write {path}")

        _on_gui(window, grab)
        timeline.record("demo.screenshot", f"window saved to {path}")

    def main() -> None:
        try:
            window.events.shown.wait(30)
            _on_gui(window, lambda: _build_chrome(window, timeline, users, Actions()))
            result["code"] = run(app, QtDriver(executor), screenshot, window.destroy)
        except BaseException as exc:  # shown in the timeline; the window must still close
            timeline.record("demo.error", f"{type(exc).__name__}: {exc}")
            window.destroy()

    # absolute, always: under a relative storage path Chromium never opens localStorage
    # and the page stalls (see gcbridge.demo.paths)
    profile = absolute(data_dir / "webview")
    webview.start(main, gui="qt", private_mode=False, storage_path=str(profile))
    executor.shutdown(wait=False, cancel_futures=True)
    return result["code"]
