"""Blame a mistyped option, not the sub-command that swallowed its value.

Without it ``gcbridge emulator --prot 8000`` ends "argument ready: invalid choice: '8000'"
(argparse offered ``8000`` to the optional ``ready`` sub-command).
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Sequence
from typing import Any, NoReturn

__all__ = ["blame_unknown_options", "unknown_options"]


def unknown_options(parser: argparse.ArgumentParser, args: Sequence[str]) -> list[str]:
    """The options in ``args`` that ``parser`` does not know (``--x=1`` counts as ``--x``)."""
    known = parser._option_string_actions  # argparse's own table of option strings
    unknown = []
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("-") and len(arg) > 1 and not arg[1:].replace(".", "").isdigit():
            name = arg.split("=", 1)[0]
            if name not in known and not any(k.startswith(name) for k in known if len(name) > 2):
                unknown.append(name)
    return unknown


def blame_unknown_options(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` report unknown options rather than an invalid sub-command choice."""
    parse_known_args = parser.parse_known_args
    original_error = parser.error
    seen: list[str] = []

    def remembering(args: Sequence[str] | None = None, namespace: Any = None) -> Any:
        seen[:] = list(args or [])
        return parse_known_args(args, namespace)

    def error(message: str) -> NoReturn:
        if "invalid choice" in message:
            unknown = unknown_options(parser, seen)
            if unknown:
                options = [o for o in parser._option_string_actions if o.startswith("--")]
                hints = [
                    f"{name} (did you mean {match[0]}?)" if match else name
                    for name in unknown
                    for match in [difflib.get_close_matches(name, options, n=1)]
                ]
                message = f"unrecognized arguments: {' '.join(hints)}"
        original_error(message)
        raise AssertionError("unreachable")  # pragma: no cover - error() exits

    parser.parse_known_args = remembering  # type: ignore[method-assign,assignment]
    parser.error = error  # type: ignore[method-assign]
