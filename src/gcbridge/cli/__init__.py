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
import importlib
import signal
import sys
from collections.abc import Sequence

from gcbridge import __version__
from gcbridge.errors import GcBridgeError
from gcbridge.output import flush_output, watched_stdout
from gcbridge.signals import (
    Terminated,
    held_until_known,
    noted_stop,
    raise_if_stopped,
    stop_line,
    stops_raised,
)

__all__ = ["main", "build_parser", "help_by_default"]

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
        help_by_default(cmd)  # until register gives it, or each of its actions, a func
        importlib.import_module(module).register(cmd)
    return parser


def help_by_default(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` called without an action print its help and exit 2."""

    def show_help(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(func=show_help)


def _command_name(args: argparse.Namespace | None) -> str:
    command = getattr(args, "command", None)
    if not command:
        return "gcbridge"
    action = getattr(args, f"{command}_command", None)
    return f"gcbridge {command}" + (f" {action}" if action else "")


def _stopped(args: argparse.Namespace | None, signum: int) -> int:
    """Print the command's one line for a stop by ``signum``; its exit status.

    A command may answer Ctrl-C itself (``interrupted`` in its parser's defaults: a
    function of the arguments giving the line and status, or None for the rule): ``calls
    --follow`` ends that way by design. The rule is ``<name>: stopped (SIGINT)``, 128 + signal.
    """
    answer = getattr(args, "interrupted", None)
    own = answer(args) if answer is not None and signum == signal.SIGINT else None
    line, status = own or (stop_line(_command_name(args), signum), 128 + signum)
    print(line, file=sys.stderr, flush=True)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gcbridge`` console script; returns the exit code.

    An error is one line, ``gcbridge: error [reason]: ...``, and a stop signal one line
    and 128 + its number (:func:`_stopped`), at any instant: held back while the parser's
    imports run. Standard output closed or full is answered here (:mod:`gcbridge.output`).
    """
    with watched_stdout() as watch:
        try:
            try:
                return _main(argv)
            finally:
                flush_output()  # here, where a failure can be answered, not at exit
        except OSError as exc:
            status = watch.answer(exc, "gcbridge")
            if status is None:
                raise
            return status


def _main(argv: Sequence[str] | None) -> int:
    args: argparse.Namespace | None = None
    try:
        with stops_raised():
            try:
                with held_until_known():
                    parser = build_parser()
                    args = parser.parse_args(argv)
                if not getattr(args, "func", None):
                    parser.print_help()
                    return 2
                status = int(args.func(args) or 0)
                raise_if_stopped()  # a stop that landed where it could not be raised
                return status
            except Exception as exc:
                # A stop that landed where Python or a library wraps what it catches (a
                # class body made during a lazy import gives "RuntimeError: Error calling
                # __set_name__"; pydantic-core keeps it as text in a SchemaError) is the stop.
                signum = _stop_behind(exc)
                if signum is None:
                    raise
                return _stopped(args, signum)
    except GcBridgeError as exc:
        print(f"gcbridge: error [{exc.reason}]: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 1))
    except (KeyboardInterrupt, Terminated) as exc:
        return _stopped(args, _signal_of(exc))


def _signal_of(stop: BaseException) -> int:
    return stop.signum if isinstance(stop, Terminated) else signal.SIGINT


def _stop_behind(exc: BaseException) -> int | None:
    """The stop signal ``exc`` was raised from (its causes and contexts), or that was noted."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt | Terminated):
            return _signal_of(current)
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return noted_stop()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
