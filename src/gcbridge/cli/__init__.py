"""The ``gcbridge`` command line.

Each part registers its own sub-command from a module of this package, so the
CLI of a part lives beside nothing else::

    gcbridge bridge     --print | --version | --sha256
    gcbridge sso        issue ...
    gcbridge webhooks   listen | sign | verify
    gcbridge emulator   [--host --port --data-dir --sites ...]
    gcbridge demo       [--headless --exit-after-flow --screenshot PATH]
    gcbridge harness    run --bridge PATH [--engine E] [--report DIR] [-k EXPR] [-n N]
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from gcbridge import __version__
from gcbridge.errors import GcBridgeError

__all__ = ["main", "build_parser"]

# module name -> (command, one-line help); modules are imported lazily so that
# ``gcbridge sso issue`` works without FastAPI or Playwright installed.
COMMANDS: dict[str, tuple[str, str]] = {
    "bridge": ("gcbridge.cli.bridge_cmd", "print bridge.js, its version or its sha256"),
    "sso": ("gcbridge.cli.sso_cmd", "issue and check ssoData login tokens"),
    "webhooks": ("gcbridge.cli.webhooks_cmd", "listen for, sign and verify webhook deliveries"),
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gcbridge`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except GcBridgeError as exc:
        print(f"gcbridge: error [{exc.reason}]: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
