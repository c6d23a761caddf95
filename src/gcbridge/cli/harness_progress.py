"""What ``gcbridge harness run`` prints while and after the scenarios run.

:class:`ProgressPrinter` is a pytest plugin: one line per scenario as it ends
(a skipped one with its reason), then the failures, the matrix, the counts and,
when WebKit did not run, a notice that says so and how to install it (an iOS
app runs in WebKit: a green run without it says nothing about that app).
:class:`Interrupt` turns Ctrl-C into one line and exit status 130: what the
browsers and the scenarios' teardown print after it is not shown.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import io
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from gcbridge.signals import raise_if_stopped

__all__ = ["ProgressPrinter", "Interrupt", "clean_message", "webkit_notice"]

# pytest's hint for its own -v, which `harness run` does not have (the report has the full text)
_PYTEST_HINTS = (
    "Use -v to get more diff",
    "Use -vv to get more diff",
    "Use -v to get the full diff",
)


def clean_message(text: str) -> str:
    """A failure's text without pytest's hints about options ``harness run`` does not take."""
    lines = [
        line for line in text.splitlines() if line.strip().lstrip("E ").strip() not in _PYTEST_HINTS
    ]
    return "\n".join(lines)


def webkit_notice(engine_option: str | None, keyword: str | None = None) -> list[str]:
    """The lines saying WebKit did not run, why, and how to get it (for a run without WebKit)."""
    engines = importlib.import_module("gcbridge_harness.engines")
    status = engines.engine_status("webkit")
    if engine_option == "chromium":
        why = "--engine chromium"
    elif not status.found:
        why = f"it is not installed here ({status.problem})"
    else:
        why = f"-k {keyword!r} selected no WebKit run" if keyword else "no WebKit run took place"
    return [
        f"WARNING: WebKit was NOT run ({why}): this run says nothing about an iOS app "
        "(WKWebView is WebKit).",
        f"  install WebKit: {engines.WEBKIT_INSTALL}",
        "  then run with --engine all, which fails when an engine is missing",
    ]


class ProgressPrinter:
    """A pytest plugin: one line per scenario as it ends, then the matrix."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.rows: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.started = time.monotonic()
        self.quiet = False  # set on Ctrl-C: what the interrupted run reports is not shown

    def pytest_runtest_logreport(self, report: Any) -> None:
        row = getattr(report, "gc_scenario", None)
        if row is None or self.quiet:
            return
        self.rows.append(row)
        mark = {"passed": "pass", "failed": "FAIL", "skipped": "skip"}.get(row["outcome"], "?")
        line = f"{mark:>4}  {row['scenario']}  [{row['engine']}, {row['point']}]"
        print(line, file=self.stream, flush=True)
        if row["outcome"] == "failed":
            message = clean_message(row["message"]).splitlines() or ["failed"]
            first = row["diagnosis"][0] if row["diagnosis"] else message[0]
            print(f"      {first}", file=self.stream, flush=True)
        elif row["outcome"] == "skipped" and row.get("skip_reason"):
            print(f"      skipped: {row['skip_reason']}", file=self.stream, flush=True)

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.errors.append(f"{report.nodeid}: {report.longreprtext.strip()}")

    def summary(
        self, *, report: str | None, engine: str | None = None, keyword: str | None = None
    ) -> None:
        """The failures, the matrix, the counts, the report's path, the WebKit notice."""
        # Imported by name: the harness is a layer below, outside mypy's files.
        matrix_text = importlib.import_module("gcbridge_harness.report").matrix_text
        out = self.stream
        for error in self.errors:
            print(f"collection error: {error}", file=out)
        if not self.rows:
            return
        counts = {o: sum(r["outcome"] == o for r in self.rows) for o in ("passed", "failed")}
        skipped = len(self.rows) - counts["passed"] - counts["failed"]
        for row in self.rows:
            if row["outcome"] != "failed":
                continue
            print(f"\n--- FAIL {row['nodeid']}", file=out)
            print("\n".join(clean_message(row["message"]).splitlines()[:6]), file=out)
            for number, timeline in enumerate(row["timelines"], 1):
                print(f"timeline of launch {number}:\n{timeline}", file=out)
            for line in row["diagnosis"]:
                print(f"diagnosis: {line}", file=out)
        print("", file=out)
        print(matrix_text(self.rows), file=out)
        print("", file=out)
        print(
            f"{counts['passed']} passed, {counts['failed']} failed, {skipped} skipped "
            f"in {time.monotonic() - self.started:.0f} s",
            file=out,
        )
        reasons = sorted(
            {
                r.get("skip_reason") or "no reason given"
                for r in self.rows
                if r["outcome"] == "skipped"
            }
        )
        for reason in reasons:
            print(f"skipped: {reason}", file=out)
        if report:
            print(f"report: {Path(report).resolve() / 'index.html'}", file=out)
        if counts["failed"] and not report:
            print("details: add --report DIR for timelines and screenshots", file=out)
        if not any(r["engine"] == "webkit" for r in self.rows):
            print("", file=out)
            for line in webkit_notice(engine, keyword):
                print(line, file=out)
        out.flush()


class Interrupt:
    """Ctrl-C (SIGINT) during the run: remember it, silence what follows, stop the run.

    Hand :meth:`pytest_plugin` to ``pytest.main`` inside the block.

    The Ctrl-C lands between any two bytecodes, also inside Playwright's sync API after a
    call's coroutine exists and before its task does; the browsers die with the same
    Ctrl-C. What they leave is reported later: a coroutine "never awaited" and a task
    "destroyed but pending" when the collector finds them, a dying browser's last words.
    None of it is the user's, who asked for the stop, so from the first Ctrl-C to the end
    of the block stderr is silenced, as ``sys.stderr`` and as file descriptor 2 (a browser
    writes there). pytest's capture undoes both when the interrupt ends it (it puts back
    the stream it saved and writes out what it captured), so the capture's output is
    dropped and the silence made again once it has ended. Before stderr speaks again, the
    block collects what the stop left, into the silence.
    """

    def __init__(self, printer: ProgressPrinter | None = None) -> None:
        self.stopped = False
        self.printer = printer

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if not self.stopped:
            self.stopped = True
            if self.printer is not None:
                self.printer.quiet = True
            self._silence()
        raise KeyboardInterrupt

    def _silence(self) -> None:
        sys.stderr = io.StringIO()
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)

    def pytest_plugin(self) -> object:
        """The part pytest runs: a stop Python could not raise where it landed (see
        :mod:`gcbridge.signals`) stops the run before the next scenario; the capture's
        output is dropped when the stop ends it, and the silence made again after
        (pytest is imported here, as the run needs it)."""
        import pytest

        interrupt = self

        class StopInPytest:
            config: Any = None

            def pytest_configure(self, config: Any) -> None:
                self.config = config

            def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
                if interrupt.stopped:
                    raise KeyboardInterrupt

            @pytest.hookimpl(wrapper=True)
            def pytest_keyboard_interrupt(self, excinfo: Any) -> Iterator[None]:
                manager = self.config.pluginmanager if self.config is not None else None
                capture = manager.getplugin("capturemanager") if manager is not None else None
                if interrupt.stopped and capture is not None and capture.is_globally_capturing():
                    # read, so that the capture's end writes none of it out (a capture
                    # that has ended already has nothing to read)
                    with contextlib.suppress(AssertionError, AttributeError):
                        capture.read_global_capture()
                try:
                    return (yield)
                finally:
                    if interrupt.stopped:
                        interrupt._silence()

        return StopInPytest()

    @contextmanager
    def installed(self) -> Iterator[None]:
        """Catch SIGINT while the block runs (main thread only); stderr speaks again after."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        raise_if_stopped()  # one that landed before, where it could not be raised
        stderr, stderr_fd = sys.stderr, os.dup(2)
        previous = signal.signal(signal.SIGINT, self._handler)
        try:
            yield
        except KeyboardInterrupt:
            self.stopped = True
        except Exception:
            # what the Ctrl-C broke on its way out (a fixture's teardown, a dead browser)
            if not self.stopped:
                raise
        finally:
            signal.signal(signal.SIGINT, previous)
            if self.stopped:
                gc.collect()  # what the stop left unreferenced is reported now, unheard
            os.dup2(stderr_fd, 2)
            os.close(stderr_fd)
            sys.stderr = stderr
