"""``gcbridge webhooks schema [EVENT_TYPE]``: print a delivery body's JSON Schema.

Needs nothing beyond the SDK (no FastAPI).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gcbridge.webhooks.catalog import CATALOG, EVENT_TYPES

__all__ = ["register_schema"]


def _schema(args: argparse.Namespace) -> int:
    # Imported here: building every parser at start-up should not load pydantic models.
    from gcbridge.webhooks.event_schemas import schema_json

    if args.list:
        for event in CATALOG:
            print(f"{event.name:<17} {event.fires_when}")
        return 0
    sys.stdout.write(schema_json(args.event_type))
    return 0


def register_schema(sub: Any) -> None:
    """Add ``schema`` to the ``webhooks`` sub-parsers."""
    known = ", ".join(EVENT_TYPES)
    parser: argparse.ArgumentParser = sub.add_parser(
        "schema",
        allow_abbrev=False,
        help="print the JSON Schema of a delivery body (draft 2020-12)",
        description="Print the self-contained JSON Schema (draft 2020-12) of the delivery body "
        f"of EVENT_TYPE ({known}); without EVENT_TYPE, of any delivery body.",
        epilog="Generate types from it (quicktype, datamodel-code-generator, go-jsonschema) "
        "or validate bodies with any draft 2020-12 validator.",
    )
    parser.add_argument(
        "event_type",
        metavar="EVENT_TYPE",
        nargs="?",
        choices=EVENT_TYPES,
        help=f"one of {known}; omit for any delivery body",
    )
    parser.add_argument(
        "--list", action="store_true", help="list the event types and when each fires"
    )
    parser.set_defaults(func=_schema)
