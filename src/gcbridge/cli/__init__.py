"""The ``gcbridge`` command line.

Each part registers its own sub-command from a module of this package, so the
CLI of a part lives beside nothing else::

    gcbridge bridge     --print | --version | --sha256
    gcbridge sso        issue | verify | check
    gcbridge webhooks   listen | sign | verify | schema | trigger | calls | replay
    gcbridge emulator   [--host --port --data-dir --sites ...]
    gcbridge demo       [--headless --exit-after-flow --screenshot PATH]
    gcbridge harness    run --bridge PATH [--engine E] [--report DIR] [-k EXPR] [-n N]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from types import FrameType

from gcbridge import __version__
from gcbridge.errors import GcBridgeError

__all__ = ["main", "build_parser"]

# module name -> (command, one-line help); modules are imported lazily so that
# ``gcbridge sso issue`` works without FastAPI or Playwright installed.
COMMANDS: dict[str, tuple[str, str]] = {
    "bridge": ("gcbridge.cli.bridge_cmd", "print bridge.js, its version or its sha256"),
    "sso": ("gcbridge.cli.sso_cmd", "issue and verify ssoData, check a live /sso-data endpoint"),
    "webhooks": (
        "gcbridge.cli.webhooks_cmd",
        "listen for, sign, verify, trigger, list and replay webhook deliveries; "
        "print their JSON Schemas",
    ),
    "emulator": ("gcbridge.cli.emulator_cmd", "run the local stand-in for the commenting service"),
    "demo": ("gcbridge.cli.demo_cmd", "run the whole loop: emulator, backend, app window"),
    "harness": ("gcbridge.cli.harness_cmd", "run the harness scenarios against your bridge.js"),
}


def build_parser() -> argparse.ArgumentParser:
    """The root parser with every sub-command registered."""
    parser = argparse.ArgumentParser(
        prog="gcbridge",
        description="gc-bridge: the hosted comment widget in native apps, wired to your backend.",
    )
    parser.add_argument("--version", action="version", version=f"gcbridge {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        importlib.import_module(module).register(cmd)
    return parser


class _Terminated(BaseException):
    """SIGTERM before a command installed its own handler (startup, a one-shot command)."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise _Terminated


@contextlib.contextmanager
def _sigterm_as_exception() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gcbridge`` console script; returns the exit code.

    Errors are one line on stderr, ``gcbridge: error [reason]: ...``: exit 1, or 2
    for a usage problem such as a missing extra. SIGINT / SIGTERM stop any command
    with one line and exit 130 / 143.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    action = getattr(args, f"{args.command}_command", None)
    name = f"gcbridge {args.command}" + (f" {action}" if action else "")
    try:
        with _sigterm_as_exception():
            return int(args.func(args) or 0)
    except GcBridgeError as exc:
        print(f"gcbridge: error [{exc.reason}]: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 1))
    except KeyboardInterrupt:
        print(f"{name}: stopped (SIGINT)", file=sys.stderr)
        return 130
    except _Terminated:
        print(f"{name}: stopped (SIGTERM)", file=sys.stderr)
        return 143


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
