"""The WebKit driver process: WebKitGTK (WebKit2 4.1) views driven by JSON lines on stdin/stdout.

Run by :class:`gcbridge_harness.engines.webkit.client.WebKitProcess` under its own Xvfb
(``python -m gcbridge_harness.engines.webkit.driver_main``). GTK owns this process's main
thread; a reader thread hands each stdin line to the main loop.

Commands (one JSON object a line, ``id`` echoed in the reply ``{"id", "ok", ...}``):

- ``open``   ``view, profile (dir or null: ephemeral), dom_storage, user_agent,
  scripts [{source, time: start|end, world|null, all_frames}], handlers [{name, world|null}],
  chrome {dialogs, origin, file}`` (the view's dialogs, file chooser and new windows:
  :mod:`~gcbridge_harness.engines.webkit.driver_chrome`)
- ``load``   ``view, url[, stall_seconds]``: replies when the load finished (``load-changed``
  FINISHED); after an engine cancel, a load that commits nothing for ``stall_seconds``
  (default 4) is stopped and asked again
- ``navigate`` ``view, url[, stall_seconds]`` and ``reload`` ``view[, stall_seconds]``: the
  app's own load, replied at once; cancelled by the engine or stalled, asked again as ``load``
- ``eval``   ``view, body, world|null``: ``body`` is an async function body; the reply
  carries ``json`` (the value as JSON text, or null) or ``error``
- ``run``    ``view, source, world|null``: a global script (``evaluateJavascript``)
- ``handler`` ``view, name, world``: register a message handler now (a late transport)
- ``history`` ``view``: the back-forward list, ``entries [{url, title}]``
- ``close``  ``view``; ``forget`` ``profile`` (drop its web context); ``quit``

Events (no ``id``): ``{"event": "message", view, handler, kind, text}`` for every
script message (``kind`` is ``string`` or the body's JavaScript type), ``{"event":
"uri", view, url}`` when the view's URI changes; ``dialog``, ``file-chooser``,
``new-window`` and ``http-error`` (``driver_chrome``).
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import GLib, Gtk, WebKit2  # noqa: E402

from gcbridge_harness.engines.webkit.driver_chrome import Chrome  # noqa: E402
from gcbridge_harness.engines.webkit.driver_loads import Loads  # noqa: E402

# the pooled web context of new apps
_POOL_KEY = "pool"
# profiles kept in memory only (a pooled context, or a new app's own when the pool is busy)
_MEMORY_ONLY = (_POOL_KEY, "own-")


_TIMES = {
    "start": WebKit2.UserScriptInjectionTime.START,
    "end": WebKit2.UserScriptInjectionTime.END,
}


class Driver(Loads, Chrome):
    """The views of this process, and the web contexts (profiles) they share."""

    def __init__(self) -> None:
        self.views: dict[str, dict[str, Any]] = {}
        self.contexts: dict[str | None, Any] = {}
        self.busy: set[str | None] = set()  # contexts a view uses (until forgotten)
        self._out = threading.Lock()

    def emit(self, message: dict[str, Any]) -> None:
        line = json.dumps(message)
        with self._out:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def reply(self, cid: Any, **fields: Any) -> None:
        self.emit({"id": cid, "ok": "error" not in fields, **fields})

    # ---- commands ------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        try:
            command = json.loads(line)
        except ValueError:
            self.emit({"event": "driver-error", "text": f"not JSON: {line[:80]!r}"})
            return False
        cid = command.get("id")
        try:
            getattr(self, "cmd_" + str(command.get("cmd")))(cid, command)
        except Exception as exc:  # noqa: BLE001 - every failure goes back as a reply
            self.reply(cid, error=f"{type(exc).__name__}: {exc}")
        return False

    def _context(self, profile: str | None, page_cache: bool | None = None) -> Any:
        # One web context per profile directory, kept for the life of the process:
        # a relaunch on the same profile finds what the last view stored.
        if profile is not None and profile in self.contexts:
            return self.contexts[profile]
        if profile is None or profile.startswith(_MEMORY_ONLY):
            manager = WebKit2.WebsiteDataManager.new_ephemeral()
        else:
            manager = WebKit2.WebsiteDataManager(
                base_data_directory=profile + "/data", base_cache_directory=profile + "/cache"
            )
        context = WebKit2.WebContext.new_with_website_data_manager(manager)
        # The document viewer model keeps no page cache: asked for, the browser's model.
        model = "WEB_BROWSER" if page_cache else "DOCUMENT_VIEWER"
        context.set_cache_model(getattr(WebKit2.CacheModel, model))
        if profile is not None:
            self.contexts[profile] = context
        return context

    def cmd_open(self, cid: Any, c: dict[str, Any]) -> None:
        if not c.get("fresh"):
            self._open(cid, c)
            return
        # A new app, empty storage: the worker's pooled web context when no view uses
        # it (its network process is already up), emptied first; else one of its own.
        # (Not for the back-forward cache scenarios: a shared context's page cache is
        # shared too, and under load WebKit kept their pages out of it.)
        key, pooled = _POOL_KEY, self.contexts.get(_POOL_KEY)
        if pooled is None or key in self.busy or c.get("page_cache"):
            if pooled is not None or c.get("page_cache"):
                key = f"own-{c['view']}"
            self.contexts[key] = self._context(None, c.get("page_cache"))
            self._open(cid, {**c, "profile": key})
            return
        every = WebKit2.WebsiteDataTypes.ALL

        def emptied(manager: Any, result: Any) -> None:
            try:
                manager.clear_finish(result)
            except GLib.Error as exc:
                self.reply(cid, error=f"emptying the pooled storage failed: {exc.message}")
                return
            self._open(cid, {**c, "profile": key})

        pooled.get_website_data_manager().clear(every, 0, None, emptied)

    def _open(self, cid: Any, c: dict[str, Any]) -> None:
        vid = c["view"]
        if c.get("profile") in self.contexts:
            self.busy.add(c["profile"])
        manager = WebKit2.UserContentManager()
        for handler in c.get("handlers", []):
            self._register(vid, manager, handler["name"], handler.get("world"))
        for script in c.get("scripts", []):
            frames = (
                WebKit2.UserContentInjectedFrames.ALL_FRAMES
                if script.get("all_frames")
                else WebKit2.UserContentInjectedFrames.TOP_FRAME
            )
            time = _TIMES[script.get("time", "start")]
            world = script.get("world")
            if world:
                user_script = WebKit2.UserScript.new_for_world(
                    script["source"], frames, time, world, None, None
                )
            else:
                user_script = WebKit2.UserScript.new(script["source"], frames, time, None, None)
            manager.add_script(user_script)
        view = WebKit2.WebView(
            web_context=self._context(c.get("profile"), c.get("page_cache")),
            user_content_manager=manager,
        )
        settings = view.get_settings()
        settings.set_enable_html5_local_storage(bool(c.get("dom_storage", True)))
        settings.set_enable_html5_database(bool(c.get("dom_storage", True)))
        settings.set_enable_developer_extras(False)
        settings.set_enable_write_console_messages_to_stdout(False)
        if c.get("user_agent"):
            settings.set_user_agent(c["user_agent"])
        if c.get("page_cache") is not None:  # WebKitGTK's back-forward cache, on by default
            settings.set_enable_page_cache(bool(c["page_cache"]))
        window = Gtk.OffscreenWindow()
        window.set_default_size(1024, 768)
        window.add(view)
        window.show_all()
        view.connect(
            "notify::uri",
            lambda v, _p: self.emit({"event": "uri", "view": vid, "url": v.get_uri() or ""}),
        )
        self.views[vid] = {"view": view, "window": window, "manager": manager, "loads": set()}
        view.connect("load-changed", self._on_load_changed, vid)
        view.connect("load-failed", self._on_load_failed, vid)
        view.connect("web-process-terminated", self._on_terminated, vid)
        self._connect_chrome(view, vid, c.get("chrome") or {})
        self.reply(cid, profile=c.get("profile"))

    def _register(self, vid: str, manager: Any, name: str, world: str | None) -> None:
        if world:
            ok = manager.register_script_message_handler_in_world(name, world)
        else:
            ok = manager.register_script_message_handler(name)
        if not ok:
            raise RuntimeError(f"message handler {name!r} already registered")
        manager.connect(f"script-message-received::{name}", self._on_message, vid, name)

    def _on_message(self, _manager: Any, result: Any, vid: str, name: str) -> None:
        value = result.get_js_value()
        if value.is_string():
            kind, text = "string", value.to_string()
        else:
            kind = "object" if value.is_object() else "other"
            text = value.to_json(0) or value.to_string()
        self.emit({"event": "message", "view": vid, "handler": name, "kind": kind, "text": text})

    def cmd_handler(self, cid: Any, c: dict[str, Any]) -> None:
        entry = self.views[c["view"]]
        self._register(c["view"], entry["manager"], c["name"], c.get("world"))
        self.reply(cid)

    def _on_terminated(self, _view: Any, reason: Any, vid: str) -> None:
        entry = self.views.get(vid)
        if entry is not None:
            self._drop_ask(entry)
        self.emit({"event": "terminated", "view": vid, "reason": str(reason)})

    # The WebView's life: each answers at once; the load events tell the rest (navigate and
    # reload: driver_loads).

    def cmd_back(self, cid: Any, c: dict[str, Any]) -> None:
        entry = self.views[c["view"]]
        self._drop_ask(entry)
        entry["view"].go_back()
        self.reply(cid)

    def cmd_terminate(self, cid: Any, c: dict[str, Any]) -> None:
        """Kill the view's web process (``webkit_web_view_terminate_web_process``)."""
        self.views[c["view"]]["view"].terminate_web_process()
        self.reply(cid)

    def cmd_eval(self, cid: Any, c: dict[str, Any]) -> None:
        entry = self.views[c["view"]]
        view = self._running(entry, cid)

        def done(source: Any, result: Any) -> None:
            if not self._answered(entry, cid):
                return
            try:
                value = source.call_async_javascript_function_finish(result)
            except GLib.Error as exc:
                self.reply(cid, error=exc.message)
                return
            if value is None or value.is_undefined():
                self.reply(cid, json=None)
            else:
                self.reply(cid, json=value.to_json(0))

        view.call_async_javascript_function(c["body"], -1, None, c.get("world"), None, None, done)

    def cmd_run(self, cid: Any, c: dict[str, Any]) -> None:
        """A global script, as ``evaluateJavascript`` runs it (its value is not returned)."""
        entry = self.views[c["view"]]
        view = self._running(entry, cid)

        def done(source: Any, result: Any) -> None:
            if not self._answered(entry, cid):
                return
            try:
                source.evaluate_javascript_finish(result)
            except GLib.Error as exc:
                self.reply(cid, error=exc.message)
                return
            self.reply(cid)

        view.evaluate_javascript(c["source"], -1, c.get("world"), None, None, done)

    @staticmethod
    def _running(entry: dict[str, Any], cid: Any) -> Any:
        """Note a script sent to the view's document; the view."""
        entry.setdefault("scripts", set()).add(cid)
        return entry["view"]

    @staticmethod
    def _answered(entry: dict[str, Any], cid: Any) -> bool:
        """Whether the script's answer is still awaited (not failed by a commit since)."""
        if cid not in entry.get("scripts", ()):
            return False
        entry["scripts"].discard(cid)
        return True

    def cmd_history(self, cid: Any, c: dict[str, Any]) -> None:
        history = self.views[c["view"]]["view"].get_back_forward_list()
        items = list(history.get_back_list()) + [history.get_current_item()]
        items += list(history.get_forward_list())
        entries = [
            {"url": item.get_uri() or "", "title": item.get_title() or ""}
            for item in items
            if item is not None
        ]
        self.reply(cid, entries=entries)

    def cmd_close(self, cid: Any, c: dict[str, Any]) -> None:
        entry = self.views.pop(c["view"], None)
        if entry is not None:
            self._answer_all(entry, "loads", error="view closed")
            self._abandon_scripts(entry, "the view was closed")
            entry["view"].stop_loading()
            entry["window"].destroy()
        self.reply(cid)

    def cmd_forget(self, cid: Any, c: dict[str, Any]) -> None:
        """Drop a profile's web context (its processes end once no view uses it).

        A pooled context stays, free for the next new app.
        """
        profile = c.get("profile")
        self.busy.discard(profile)
        if profile != _POOL_KEY:
            self.contexts.pop(profile, None)
        self.reply(cid)

    def cmd_quit(self, cid: Any, _c: dict[str, Any]) -> None:
        self.reply(cid)
        Gtk.main_quit()


def _read_stdin(driver: Driver) -> None:
    for line in sys.stdin:
        if line.strip():
            GLib.idle_add(driver.handle, line)
    GLib.idle_add(Gtk.main_quit)


def main() -> None:
    driver = Driver()
    threading.Thread(target=_read_stdin, args=(driver,), daemon=True).start()
    driver.emit(
        {"event": "ready", "version": [WebKit2.get_major_version(), WebKit2.get_minor_version()]}
    )
    Gtk.main()


if __name__ == "__main__":
    main()
