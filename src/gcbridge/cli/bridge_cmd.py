"""``gcbridge bridge``: print bridge.js, its version or sha256, or write the React Native kit."""

from __future__ import annotations

import argparse
import sys

__all__ = ["register"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add ``--print`` / ``--version`` / ``--sha256`` / ``--path`` (one at most)."""
    what = parser.add_mutually_exclusive_group()
    for name, help_text in (
        ("print", "write the script itself to stdout, byte for byte (copy it into an app)"),
        ("version", "print the script's version (semver, from `var VERSION`)"),
        ("sha256", "print the sha256 of the script's bytes (64 hex), to pin a copy"),
        ("path", "print where the shipped script lives"),
    ):
        what.add_argument(
            f"--{name}", dest="show", action="store_const", const=name, help=help_text
        )
    what.add_argument(
        "--kit",
        nargs=2,
        metavar=("KIT", "DIR"),
        help="write the kit's npm tarball into DIR (KIT: react-native), e.g. "
        "gcbridge bridge --kit react-native . && npm install ./gc-bridge-react-native-kit-*.tgz",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="with --kit: replace a tarball of the same name in DIR",
    )
    parser.add_argument(
        "--format",
        choices=("js", "ts"),
        default=None,
        help="with --print: js (default) is bridge.js itself; ts is the React Native kit's"
        " bridgeSource.ts (the source as a string, BRIDGE_VERSION, BRIDGE_SHA256)",
    )
    parser.set_defaults(func=run, show=None)


def run(args: argparse.Namespace) -> int:
    """Print what was asked; without a flag, one summary line."""
    from gcbridge.bridge import bridge_path, script, typescript_module

    if args.kit is not None:
        return _write_kit(args.kit[0], args.kit[1], force=args.force)
    if args.force:
        print("gcbridge bridge: error: --force goes with --kit", file=sys.stderr)
        return 2
    if args.format is not None and args.show != "print":
        print("gcbridge bridge: error: --format goes with --print", file=sys.stderr)
        return 2
    bridge = script()
    if args.show == "print":
        # Bytes, not text: the output must hash to --sha256 on every platform.
        text = typescript_module(bridge) if args.format == "ts" else bridge.text
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.flush()
    else:
        answers = {"version": bridge.version, "sha256": bridge.sha256, "path": bridge_path()}
        summary = f"bridge.js {bridge.version} sha256 {bridge.sha256} {bridge_path()}"
        print(answers.get(args.show, summary))
    return 0


def _write_kit(name: str, directory: str, *, force: bool) -> int:
    from pathlib import Path

    from gcbridge.kits import SHIPPED_BRIDGE, write_tarball

    written = write_tarball(Path(directory), name, force=force)
    print(f"wrote {written}")
    print(f"install it: npm install {written} react-native-webview")
    print(
        "then check the bridge the app ships: gcbridge harness run --bridge "
        f"node_modules/@gc-bridge/react-native-kit/{SHIPPED_BRIDGE}"
    )
    return 0
