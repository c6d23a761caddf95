"""The CLI reference page, written from ``gcbridge.cli.build_parser()`` at build time.

Every command and sub-command the parser knows gets a section with its usage, its
description and its options, exactly as ``--help`` prints them: a command added
anywhere in ``gcbridge.cli`` appears here without anyone copying it.
"""

from __future__ import annotations

import argparse
import os

from gcbridge.cli import build_parser

__all__ = ["cli_reference", "walk"]

INTRO = """\
# Command line: `gcbridge`

Every command and sub-command of `gcbridge`, with its options. This page is written
from the command's own parser each time the site is built, so it always says what
`gcbridge <command> --help` says. Errors are one line, `gcbridge: error [reason]: ...`
(the reasons are listed in [Reason codes](reason-codes.md)); usage errors exit 2.

"""


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def walk(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every parser under ``parser``, depth first, with its command path."""
    found = [(path, parser)]
    for name, sub in _subparsers(parser).items():
        found.extend(walk(sub, (*path, name)))
    return found


def _help_text(parser: argparse.ArgumentParser) -> str:
    # a fixed width, so the page does not depend on the terminal that built it
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        return parser.format_help()
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


def _summaries(commands: list[tuple[tuple[str, ...], argparse.ArgumentParser]]) -> dict[str, str]:
    """Each command's one-line help as its parent lists it (else its description)."""
    found: dict[str, str] = {}
    for path, parser in commands:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    found[" ".join((*path, choice.dest))] = choice.help or ""
    for path, parser in commands:
        name = " ".join(path)
        if not found.get(name) and parser.description:
            found[name] = parser.description
    return {
        name: " ".join(text.split()).split(". ")[0].rstrip(".").replace("|", "/")
        for name, text in found.items()
    }


def cli_reference() -> str:
    """The Markdown of the CLI reference page."""
    parts = [INTRO]
    commands = walk(build_parser())
    summaries = _summaries(commands)
    parts.append("| command | what it does |\n|---|---|\n")
    for path, _parser in commands[1:]:
        name = " ".join(path)
        anchor = "gcbridge-" + "-".join(path)
        parts.append(f"| [`gcbridge {name}`](#{anchor}) | {summaries.get(name, '')} |\n")
    parts.append("\n")
    for path, parser in commands:
        name = " ".join(("gcbridge", *path))
        level = "#" * min(2 + len(path) - (1 if path else 0), 4)
        anchor = "-".join(("gcbridge", *path))
        parts.append(f"{level} `{name}` {{#{anchor}}}\n\n```text\n{_help_text(parser)}```\n\n")
    return "".join(parts)
