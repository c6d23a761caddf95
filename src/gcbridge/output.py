"""Standard output that cannot be written: closed (``| head``) or full (``/dev/full``).

Either error may land in any ``print`` or only in the last flush at exit ("Exception
ignored ... BrokenPipeError"). The entry points run their command through
:func:`watched_stdout`, flush inside the command's time, and let
:meth:`OutputWatch.answer` answer: a closed pipe prints nothing and exits
:data:`CLOSED_STATUS` (as any Unix tool), any other write error is one line
``output_unwritable``, exit 1. Standard output then points at the null device, so the
flush at exit has nothing left to fail on.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["CLOSED_STATUS", "REASON", "OutputWatch", "watched_stdout", "flush_output"]

CLOSED_STATUS = 128 + 13
"""Exit status when the reader of standard output went away: 128 + SIGPIPE, as a shell shows."""

REASON = "output_unwritable"
"""Reason code of the one line printed when standard output cannot be written."""


def flush_output() -> None:
    """Flush standard output now, inside the command, not at interpreter exit."""
    if sys.stdout is not None:
        sys.stdout.flush()


class _Watched:
    """A stream (or its binary ``buffer``) whose write errors are noted, then raised."""

    def __init__(self, stream: Any, failures: list[OSError]) -> None:
        self._stream = stream
        self._failures = failures

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def _noted(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self._stream, method)(*args)
        except OSError as exc:
            self._failures.append(exc)
            raise

    def write(self, data: Any) -> Any:
        return self._noted("write", data)

    def writelines(self, lines: Any) -> Any:
        return self._noted("writelines", lines)

    def flush(self) -> Any:
        return self._noted("flush")

    @property
    def buffer(self) -> Any:
        return _Watched(self._stream.buffer, self._failures)


class OutputWatch:
    """What :func:`watched_stdout` saw: answers an error that is standard output's."""

    def __init__(self) -> None:
        self.failures: list[OSError] = []

    def answer(self, exc: BaseException, name: str) -> int | None:
        """The exit status for ``exc`` if standard output failed with it, else None.

        Only an error raised by a write to standard output is this one (a write error
        of the command's own files is its own). ``name`` starts the one line printed.
        """
        if not any(exc is failure for failure in self.failures):
            return None
        _silence_stdout()
        if isinstance(exc, BrokenPipeError):
            return CLOSED_STATUS
        with contextlib.suppress(OSError):  # stderr gone too: the status is all that is left
            print(
                f"{name}: error [{REASON}]: cannot write to standard output"
                f" ({getattr(exc, 'strerror', None) or exc})",
                file=sys.stderr,
                flush=True,
            )
        return 1


@contextmanager
def watched_stdout() -> Iterator[OutputWatch]:
    """Note every error of a write to standard output during the block (see the module)."""
    watch = OutputWatch()
    original = sys.stdout
    if original is None:
        yield watch
        return
    sys.stdout = _Watched(original, watch.failures)
    try:
        yield watch
    finally:
        if isinstance(sys.stdout, _Watched):
            sys.stdout = original


def _silence_stdout() -> None:
    """Point standard output at the null device: the flush at exit has nothing to fail on."""
    try:
        fd = sys.__stdout__.fileno() if sys.__stdout__ is not None else 1
    except (OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)
