"""What Playwright's client logs while its driver dies, once the user asked for a stop.

A terminal's Ctrl-C reaches Playwright's driver too (same process group) and its event
loop. What follows says nothing to the user, who asked for the stop: "Future exception
was never retrieved ... Connection closed while reading", "Task exception was never
retrieved" (the ``KeyboardInterrupt`` that ended the connection task), and "Error occurred
in event listener" (messages naming objects already gone).
:func:`quiet_dead_driver_after_stop` drops those records, and only once ``stopped()``
says a stop was asked; every other record passes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

__all__ = ["DRIVER_LOGGERS", "DeadDriverAfterStop", "quiet_dead_driver_after_stop"]

DRIVER_LOGGERS = ("asyncio", "playwright")
"""The loggers the dying driver's records come through."""


class DeadDriverAfterStop(logging.Filter):
    """Drops the records listed in the module's docstring once ``stopped()`` is true."""

    def __init__(self, stopped: Callable[[], bool]) -> None:
        super().__init__()
        self.stopped = stopped

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_expected_after_stop(record) and self.stopped())


def _expected_after_stop(record: logging.LogRecord) -> bool:
    text = record.getMessage()
    if text == "Error occurred in event listener":
        return True
    if "never retrieved" not in text:
        return False
    raised = record.exc_info[0] if record.exc_info else None
    interrupted = raised is not None and issubclass(raised, KeyboardInterrupt)
    return interrupted or "Connection closed while reading" in text


def quiet_dead_driver_after_stop(stopped: Callable[[], bool]) -> None:
    """Install :class:`DeadDriverAfterStop` on :data:`DRIVER_LOGGERS`."""
    for name in DRIVER_LOGGERS:
        logging.getLogger(name).addFilter(DeadDriverAfterStop(stopped))
