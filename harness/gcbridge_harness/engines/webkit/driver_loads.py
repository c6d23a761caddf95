"""The WebKit driver's loads: the ``load``, ``navigate`` and ``reload`` commands, the load
events, and recovering a load the engine cancelled (asked again) or left stalled (stopped
and asked again).

A load the app asked for (any of the three) is in hand until it finishes, fails, or the
view's web process ends; ``load`` also replies then (``navigate`` and ``reload`` reply at
once, as the app's WebView returns). WebKitGTK on a busy machine sometimes cancels such a
load by itself and starts one that never commits; a real WebView does not, so the driver
recovers it for every one of them: the load that brings a page back after its web process
was killed (iOS: reload; Android: the page in a new view) is the one this was seen on.

A mixin of :class:`gcbridge_harness.engines.webkit.driver_main.Driver`, which holds the
views and writes the replies and events.
"""

from __future__ import annotations

from typing import Any

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import GLib, WebKit2  # noqa: E402

# a view's load cancelled by the web process itself is asked again this many times
_LOAD_RETRIES = 3
# seconds a load may go without committing once the engine cancelled it, before it is
# stopped and asked again (a busy machine's WebKit sometimes never finishes it)
_STALL_SECONDS = 4.0


class Loads:
    """Loads of the driver's views; each view's entry keeps the ids of its pending ``load``
    commands (``loads``) and scripts (``scripts``)."""

    views: dict[str, dict[str, Any]]

    def emit(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    def reply(self, cid: Any, **fields: Any) -> None:
        raise NotImplementedError

    def cmd_load(self, cid: Any, c: dict[str, Any]) -> None:
        entry = self.views[c["view"]]
        entry["loads"].add(cid)
        self._ask(entry, c["url"], c.get("stall_seconds"))
        entry["view"].load_uri(c["url"])

    def cmd_navigate(self, cid: Any, c: dict[str, Any]) -> None:
        """The app's ``loadUrl``: replies at once; the load events tell the rest."""
        entry = self.views[c["view"]]
        self._ask(entry, c["url"], c.get("stall_seconds"))
        entry["view"].load_uri(c["url"])
        self.reply(cid)

    def cmd_reload(self, cid: Any, c: dict[str, Any]) -> None:
        """The app's ``reload()`` (a new web process if the last one ended): replies at once."""
        entry = self.views[c["view"]]
        view = entry["view"]
        item = view.get_back_forward_list().get_current_item()
        url = view.get_uri() or (item.get_uri() if item is not None else "")
        if url:
            self._ask(entry, url, c.get("stall_seconds"))
        view.reload()
        self.reply(cid)

    @staticmethod
    def _ask(entry: dict[str, Any], url: str, stall_seconds: float | None) -> None:
        """The app asked for ``url``: that load is in hand; the last ask's timers lapse."""
        entry["asked"] = entry.get("asked", 0) + 1
        entry["in_hand"] = True
        entry["load_url"], entry["load_retries"] = url, 0
        entry["stall_seconds"] = float(stall_seconds or _STALL_SECONDS)

    @staticmethod
    def _in_hand(entry: dict[str, Any]) -> bool:
        """Whether a load the app asked for has not finished, failed, or lost its process."""
        return bool(entry["loads"]) or bool(entry.get("in_hand"))

    @staticmethod
    def _drop_ask(entry: dict[str, Any]) -> None:
        """The load in hand is no longer the driver's to recover: the view's web process
        ended (the app decides what comes next) or the app went back. Its timers lapse."""
        entry["in_hand"] = False
        entry["asked"] = entry.get("asked", 0) + 1

    def _on_load_changed(self, _view: Any, event: Any, vid: str) -> None:
        # The platform's page-started / page-finished callbacks, for every document.
        entry = self.views.get(vid)
        if entry is not None and event == WebKit2.LoadEvent.COMMITTED:
            # (a failed load, the cancelled one included, finishes without committing)
            entry["progress"] = entry.get("progress", 0) + 1
            entry["stopping"] = False
            entry["committed"] = True
            self._abandon_scripts(entry, "a navigation replaced the document")
        if event == WebKit2.LoadEvent.STARTED:
            if entry is not None:
                entry["retry_pending"] = False  # a load after the cancelled one began
                entry["committed"] = False
            self.emit({"event": "load", "view": vid, "phase": "started"})
        elif event == WebKit2.LoadEvent.FINISHED:
            if entry is not None and entry.get("retry_pending"):
                return  # the end of the cancelled load; the one asked again follows
            self.emit({"event": "load", "view": vid, "phase": "finished"})
            self._finish_loads(vid)

    def _abandon_scripts(self, entry: dict[str, Any], why: str) -> None:
        """Fail the scripts still running in the document that is gone.

        WebKitGTK never answers a script whose document a navigation replaced (kept in
        the back-forward cache or not) or whose view closed: the command waited for its
        30 s. An app's evaluateJavascript gets an error then; so does the harness.
        """
        self._answer_all(entry, "scripts", error=f"{why} before the script finished")

    def _on_load_failed(self, view: Any, _event: Any, url: str, error: Any, vid: str) -> bool:
        entry = self.views.get(vid)
        cancelled = error.matches(WebKit2.network_error_quark(), WebKit2.NetworkError.CANCELLED)
        if cancelled and entry and entry.get("stopping"):
            entry["stopping"] = False  # the stalled load this driver stopped itself
            return True
        tries = entry.get("load_retries", 0) if entry else 0
        if cancelled and entry and self._in_hand(entry) and tries < _LOAD_RETRIES:
            # A busy machine's web process sometimes cancels the first load of a view, or
            # the load that brings a page back after its web process was killed ("Load
            # request cancelled": a process swap, a view sharing its context starting up).
            # Ask again, a little later each time, unless the page has moved on by itself
            # (or WebKit started it again). A FINISHED before the next STARTED is the
            # cancelled load's.
            entry["load_retries"], entry["retry_pending"] = tries + 1, True
            self.emit({"event": "load-retry", "view": vid, "error": error.message})
            GLib.timeout_add(50 * 2**tries, self._retry_load, vid, entry, entry.get("asked", 0))
            self._watch_stall(vid, entry)
            return True
        if entry is not None and not entry.get("committed", True):
            # A provisional load that failed: the document shown stays (iOS calls
            # didFailProvisionalNavigation). A 204 answer ends so, without an error page.
            self.emit({"event": "load", "view": vid, "phase": "failed"})
        self._finish_loads(vid, error=f"load of {url} failed: {error.message}")
        return False

    def _still_in_hand(self, vid: str, entry: dict[str, Any], asked: int) -> bool:
        """Whether the load asked as ``asked`` is the view's, and still in hand."""
        if self.views.get(vid) is not entry or entry.get("asked", 0) != asked:
            return False  # closed, asked anew, or its web process ended
        return self._in_hand(entry)

    def _retry_load(self, vid: str, entry: dict[str, Any], asked: int) -> bool:
        if not self._still_in_hand(vid, entry, asked):
            return False  # closed, or finished meanwhile
        if not entry["retry_pending"] or entry["view"].is_loading():
            entry["retry_pending"] = False  # the page navigated itself: that load is ours
        else:
            entry["view"].load_uri(entry["load_url"])
        return False  # once

    def _watch_stall(self, vid: str, entry: dict[str, Any]) -> None:
        """After an engine cancel: a load that then commits nothing is stopped and asked again.

        Seen on a loaded machine: the cancel, then a load that starts and never commits
        (the command would wait for ever; the page killed and brought back never came);
        stopping it and loading again recovers.
        """
        seen, asked = entry.get("progress", 0), entry.get("asked", 0)

        def check() -> bool:
            if not self._still_in_hand(vid, entry, asked):
                return False
            if entry.get("progress", 0) != seen:
                return False  # it committed or finished: no stall
            tries = entry.get("load_retries", 0)
            if tries >= _LOAD_RETRIES:
                error = "the load stalled after the engine cancelled it"
                self.emit({"event": "load-retry", "view": vid, "error": error, "given_up": True})
                self._finish_loads(vid, error=error)
                return False
            view = entry["view"]
            url = view.get_uri() or entry["load_url"]  # the page's own navigation, if any
            entry["load_retries"], entry["retry_pending"] = tries + 1, True
            entry["stopping"] = view.is_loading()
            self.emit({"event": "load-retry", "view": vid, "error": "the load stalled"})
            view.stop_loading()
            view.load_uri(url)
            self._watch_stall(vid, entry)
            return False

        GLib.timeout_add(int(entry.get("stall_seconds", _STALL_SECONDS) * 1000), check)

    def _finish_loads(self, vid: str, **fields: Any) -> None:
        entry = self.views.get(vid)
        if entry is not None:
            entry["in_hand"] = False
            self._answer_all(entry, "loads", **fields)

    def _answer_all(self, entry: dict[str, Any], pending: str, **fields: Any) -> None:
        """Reply ``fields`` to every pending command of ``pending`` (``loads``, ``scripts``)."""
        cids, entry[pending] = entry.get(pending, set()), set()
        for cid in sorted(cids):
            self.reply(cid, **fields)
