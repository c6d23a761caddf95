"""The desktop window's own UI around the WebView: the app bar and the live side panel.

On the Qt backend pywebview's window is a ``QMainWindow`` (``window.native``) whose
central widget is the WebView; the app bar is a ``QToolBar`` (pick a demo user, sign
in, sign out, the app's login state) and the side panel a ``QDockWidget`` with the
live timeline. Everything here runs on the GUI thread.
"""

from __future__ import annotations

import importlib
from typing import Any

from gcbridge.demo.timeline import Timeline, TimelineEvent

__all__ = ["build_chrome"]

_COLOURS = {
    "bridge": "#1565c0",
    "sso": "#6a1b9a",
    "webhook": "#2e7d32",
    "app": "#e65100",
    "widget": "#00838f",
    "comment": "#37474f",
    "flow": "#9e9e9e",
}


def build_chrome(window: Any, timeline: Timeline, users: list[str], actions: Any) -> None:
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
