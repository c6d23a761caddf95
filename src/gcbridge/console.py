"""The ``gcbridge`` console script: Ctrl-C is held back from the first line it runs.

Importing the CLI takes a moment (argparse, then each command's module). A Ctrl-C
landing in an import would print a ``KeyboardInterrupt`` traceback, so this module
imports nothing of its own but :mod:`signal`, holds the stop signals back (SIGINT,
SIGTERM, SIGHUP: ``gcbridge.signals.STOP_SIGNALS``, checked by a test), and
hands over to :func:`gcbridge.cli.main`, which lets them in once the command is
known and can answer with its one line.
"""

from __future__ import annotations

import signal

__all__ = ["main"]

HELD = frozenset(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""What is held from the first line: the stop signals, without importing the package."""


def main() -> int:
    """Run the ``gcbridge`` command line with the process's arguments; its exit status."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    from gcbridge.cli import main as cli_main

    return cli_main()
