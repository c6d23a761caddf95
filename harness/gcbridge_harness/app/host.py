"""What the kit does around the page: :class:`Host`, mixed into the native app.

The kits are complete WebView hosts, and the app here does what they do, whatever the engine:

- **dialogs, the file chooser, new windows** (:mod:`gcbridge_harness.app.chrome`): the engine
  reports what the page asked (``_dialog``, ``_file_chooser``, ``_new_window``); the app
  answers as its platform does, with or without the kit's handling (``web_chrome``);
- **load errors**: the widget's page fails to load (an HTTP status >= 400 or a network error of
  the main frame at the widget's origin): the kit calls ``onLoadError`` and shows its error view
  with Retry (``error_view``), and :meth:`retry` loads the widget again;
- **a dead web content process, bounded**: the coordinator's ``reload`` effect is performed only
  when the kits' ``GcRecoveryPolicy`` allows it: deferred while the app is in the background
  (:meth:`background`; :meth:`resume` brings it back), at most :data:`RECOVERY_LIMIT` recoveries
  in :data:`RECOVERY_WINDOW` seconds (:class:`CrashGuard`), then the error view
  (``crash_guard``; off: what the kits did before the guard: a reload at once, every time).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

from gcbridge_harness.app import chrome
from gcbridge_harness.app.lifecycle import Lifecycle

__all__ = [
    "CrashGuard",
    "Dialog",
    "Host",
    "RECOVERY_LIMIT",
    "RECOVERY_WINDOW",
    "Recovery",
    "decide_recovery",
]

RECOVERY_LIMIT = 3
"""Recoveries allowed in :data:`RECOVERY_WINDOW` (the kits' ``GcCrashGuard.DEFAULT_LIMIT``):
a kill for memory or a one-off crash is recovered, a second within the minute may be bad luck,
a third means the page kills its own process."""
RECOVERY_WINDOW = 60.0
"""Seconds (the kits' ``DEFAULT_WINDOW_MILLIS``: a minute)."""

Recovery = Literal["now", "defer", "give-up"]


class CrashGuard:
    """At most ``limit`` recoveries in any ``window`` seconds (the kits' ``GcCrashGuard``).

    Pure: the time is passed in (the harness's clock), so a test needs no real minute.
    """

    def __init__(self, limit: int = RECOVERY_LIMIT, window: float = RECOVERY_WINDOW) -> None:
        if limit < 1 or window <= 0:
            raise ValueError("a crash guard allows at least one recovery in a positive window")
        self.limit = limit
        self.window = window
        self._at: list[float] = []

    def allow(self, now: float) -> bool:
        """A recovery is due at ``now``: True to recover (it counts), False to stop."""
        self._at = [at for at in self._at if now - at < self.window]
        if len(self._at) >= self.limit:
            return False
        self._at.append(now)
        return True

    def reset(self) -> None:
        """Retry: a fresh budget."""
        self._at = []


def decide_recovery(guard: CrashGuard, now: float, *, foreground: bool) -> Recovery:
    """The kits' ``GcRecoveryPolicy``: wait while away; recover within the budget; else give up.

    A deferred recovery spends the budget only when it happens.
    """
    if not foreground:
        return "defer"
    return "now" if guard.allow(now) else "give-up"


@dataclass(frozen=True)
class Dialog:
    """A dialog the page asked for, and how it ended."""

    kind: chrome.DialogKind
    message: str
    answer: chrome.DialogAnswer


class Host(Lifecycle):
    """Dialogs, files, new windows, the error view and bounded recovery (see the module)."""

    # Provided by NativeApp and its engine.
    widget_origin: str
    app_errors: list[str]

    # ---- records -------------------------------------------------------------------

    def _records(self) -> dict[str, Any]:
        found: dict[str, Any] | None = self.__dict__.get("_host")
        if found is None:
            found = {"dialogs": [], "choosers": [], "windows": [], "outside": []}
            guard = CrashGuard(RECOVERY_LIMIT, RECOVERY_WINDOW)
            found.update(guard=guard, recoveries=0, pending=False, away=False, error=None)
            self.__dict__["_host"] = found
        return found

    @property
    def dialogs(self) -> list[Dialog]:
        """The page's dialogs, in order."""
        return list(self._records()["dialogs"])

    @property
    def file_choosers(self) -> list[bool]:
        """Each file chooser the page opened: whether it gave a file."""
        return list(self._records()["choosers"])

    @property
    def new_windows(self) -> list[tuple[str, chrome.WindowAction]]:
        """Each new window the page asked for: its URL and where it went."""
        return list(self._records()["windows"])

    @property
    def outside(self) -> list[str]:
        """What the app handed to the system browser or the OS (never loaded in its view)."""
        return list(self._records()["outside"])

    @property
    def picked_file(self) -> tuple[str, str, bytes]:
        """What the user picks in a file chooser: name, media type, bytes."""
        return chrome.PICKED_FILE

    @property
    def error_view(self) -> str | None:
        """Why the kit's error view (with Retry) is shown now; None while it is not."""
        error: str | None = self._records()["error"]
        return error

    @property
    def recovery_deferred(self) -> bool:
        """Whether a dead process's recovery waits for the app to come back."""
        return bool(self._records()["pending"])

    @property
    def recoveries(self) -> int:
        """Times the app brought a dead content process's view back."""
        return int(self._records()["recoveries"])

    # ---- what the page asks of its WebView ----------------------------------------------

    def _handles(self, what: chrome.Chrome) -> bool:
        return chrome.handles(self.platform, what, kit=self.options.web_chrome)

    def _dialog(
        self, kind: chrome.DialogKind, message: str, default: str | None, origin: str
    ) -> chrome.DialogAnswer:
        """The page called ``alert`` / ``confirm`` / ``prompt``: what the app's WebView answers."""
        shown = self._handles("dialogs") and origin == self.widget_origin
        answer = chrome.dialog_answer(kind, default, shown=shown)
        self._records()["dialogs"].append(Dialog(kind, message, answer))
        how = "the user pressed OK" if shown else "not shown"
        self.timeline.add("dialog", f"{kind}({message[:80]!r}) -> {answer.words(kind)} ({how})")
        return answer

    def _file_chooser(self) -> bool:
        """The page's file input opened the chooser: whether the user gets to pick a file."""
        picks = self._handles("file-chooser")
        self._records()["choosers"].append(picks)
        name = chrome.PICKED_FILE[0]
        self.timeline.add("file chooser", f"picked {name}" if picks else "no chooser: no file")
        return picks

    def _new_window(self, url: str, *, gesture: bool = True) -> None:
        """The page opened a new window for ``url``; the app decides, as its kit does."""
        handled = self._handles("new-windows")
        action = chrome.window_action(url, self.widget_origin, handled=handled, gesture=gesture)
        self._records()["windows"].append((url, action))
        self.timeline.add("new window", f"{url}: {action}")
        if action == "in-place":
            self._navigate(url)
        elif action in ("system-browser", "os"):
            self._records()["outside"].append(url)

    # ---- load errors ----------------------------------------------------------------

    def _load_failed(self, url: str, why: str) -> None:
        """The widget's page failed to load (main frame, the widget's origin)."""
        self.timeline.add("load error", f"{why}: {url}")
        if self.options.error_view:
            self._show_error_view(why)
        else:
            self.timeline.add("no error view", "the page the WebView shows stays; no Retry")

    def _show_error_view(self, why: str) -> None:
        self._records()["error"] = why
        self.timeline.add("error view", f"onLoadError ({why}); the error view offers Retry")

    def retry(self) -> None:
        """The user taps Retry on the error view: the widget loads again, a fresh crash budget."""
        records = self._records()
        if records["error"] is None:
            raise AssertionError("there is no error view to retry from")
        records["error"] = None
        records["pending"] = False
        records["guard"].reset()
        self.timeline.add("retry", self.url)
        self._load_again()

    def _load_again(self) -> None:
        """Load the widget's URL in this view (a dead one is replaced first)."""
        self._navigate(self.url)

    # ---- a dead web content process ----------------------------------------------------

    def background(self) -> None:
        """The app goes to the background (until :meth:`resume`)."""
        self._records()["away"] = True
        self.timeline.add("background")

    def _foreground(self) -> None:
        records = self._records()
        records["away"] = False
        if records["pending"]:
            self.timeline.add("foreground", "the deferred recovery is due")
            self._recover_content()

    def _recover_content(self) -> None:
        """The coordinator's ``reload`` effect, when the kits' recovery policy allows it."""
        records = self._records()
        if not self.options.crash_guard:  # as the kits did before the guard: at once, every time
            self._recovered()
            return
        now = self.clock.now() if self.clock is not None else time.time()
        decision = decide_recovery(records["guard"], now, foreground=not records["away"])
        records["pending"] = decision == "defer"
        if decision == "defer":
            self.timeline.add("recovery deferred", "the app is in the background")
        elif decision == "now":
            self._recovered()
        else:
            why = f"the web content process died more than {RECOVERY_LIMIT} times in a minute"
            self._show_error_view(why)

    def _recovered(self) -> None:
        self._records()["recoveries"] += 1
        super()._recover_content()
