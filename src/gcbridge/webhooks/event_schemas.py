"""The JSON Schemas (draft 2020-12) of the webhook delivery bodies, made from the models.

The schema describes what the service *sends* (every key required, unknown keys allowed), while
the receiver models stay lenient on input: docs/reference/event-schemas.md. Regenerate the
shipped files after changing a model (a test compares them)::

    python -m gcbridge.webhooks.event_schemas --write
"""

from __future__ import annotations

import argparse
import functools
import json
import operator
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, cast

from pydantic import Field, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema

from gcbridge.webhooks.catalog import EVENT_TYPES, example_body, kind
from gcbridge.webhooks.events import EVENT_MODELS

__all__ = [
    "JSON_SCHEMA_DIALECT",
    "ANY_EVENT",
    "body_schema",
    "schema_file_name",
    "shipped_schema",
    "schema_json",
    "write_schema_files",
]

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
"""The ``$schema`` of every schema here."""

ANY_EVENT = "webhook-event"
"""The name of the union schema (any delivery body) among the shipped files."""


class _WireSchema(GenerateJsonSchema):
    """Every key required (the service always sends it), no ``default``, no field titles."""

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        return True

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> dict[str, Any]:
        return self.generate_inner(schema["schema"])

    def field_title_should_be_set(self, schema: Any) -> bool:
        # Only the objects carry a title: a title per field makes code generators
        # (json-schema-to-typescript, quicktype) emit one type alias per field.
        return False


def _finish(
    schema: dict[str, Any], title: str, description: str, examples: list[Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {"$schema": JSON_SCHEMA_DIALECT, "title": title}
    out["description"] = description
    out.update({k: v for k, v in schema.items() if k not in ("title", "description")})
    out["examples"] = examples
    return out


def body_schema(event_type: str | None = None) -> dict[str, Any]:
    """The self-contained JSON Schema of ``event_type``'s body, or of any body if ``None``.

    Raises ``KeyError`` for an unknown event type. A fresh dict on every call.
    """
    if event_type is not None:
        fires_when = kind(event_type).fires_when  # KeyError for an unknown type
        model = EVENT_MODELS[event_type]
        schema = model.model_json_schema(schema_generator=_WireSchema, mode="serialization")
        return _finish(
            schema,
            title=model.__name__,
            description=f"The {event_type} delivery body. Fires when: {fires_when}",
            examples=[example_body(event_type)],
        )
    models: Any = functools.reduce(operator.or_, EVENT_MODELS.values())
    union: Any = cast(Any, Annotated)[models, Field(discriminator="event_type")]
    adapter: TypeAdapter[Any] = TypeAdapter(union)
    schema = adapter.json_schema(schema_generator=_WireSchema, mode="serialization")
    return _finish(
        schema,
        title="WebhookEvent",
        description="Any webhook delivery body: one of the event types, told apart by event_type.",
        examples=[example_body(t) for t in EVENT_TYPES],
    )


def schema_json(event_type: str | None = None) -> str:
    """:func:`body_schema` as the text of the shipped file (2-space indent, final newline)."""
    return json.dumps(body_schema(event_type), indent=2, ensure_ascii=False) + "\n"


def schema_file_name(event_type: str | None = None) -> str:
    """The shipped file's name: ``<event type>.schema.json``, ``webhook-event.schema.json``."""
    if event_type is not None:
        kind(event_type)  # KeyError for an unknown type
    return f"{event_type or ANY_EVENT}.schema.json"


def shipped_schema(event_type: str | None = None) -> dict[str, Any]:
    """The schema as shipped in the package's ``schemas/`` folder (what other languages read)."""
    name = schema_file_name(event_type)
    text = resources.files("gcbridge.webhooks").joinpath("schemas", name).read_text("utf-8")
    value: dict[str, Any] = json.loads(text)
    return value


def write_schema_files(directory: Path) -> list[Path]:
    """Write every schema file into ``directory`` (created if needed); the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for event_type in (*EVENT_TYPES, None):
        path = directory / schema_file_name(event_type)
        path.write_text(schema_json(event_type), encoding="utf-8")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m gcbridge.webhooks.event_schemas --write [DIR]``: regenerate the files."""
    parser = argparse.ArgumentParser(
        prog="python -m gcbridge.webhooks.event_schemas",
        description="Regenerate the shipped JSON Schema files from the models.",
    )
    parser.add_argument("--write", action="store_true", help="write the files (else list them)")
    parser.add_argument(
        "directory",
        nargs="?",
        type=Path,
        default=Path(__file__).with_name("schemas"),
        help="where to write (default: the package's schemas/ folder)",
    )
    args = parser.parse_args(argv)
    if not args.write:
        for event_type in (*EVENT_TYPES, None):
            print(args.directory / schema_file_name(event_type))
        return 0
    for path in write_schema_files(args.directory):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
