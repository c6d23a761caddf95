"""The emulator's HTTP API page, written from its OpenAPI schema at build time.

The schema is the one a running emulator serves at ``/openapi.json``:
``create_app(...).openapi()`` on a throw-away data directory (no server, no
dispatcher). A route added to the emulator appears here on the next build.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from gcbridge.emulator.service import create_app
from gcbridge.emulator.settings import Settings
from gcbridge.emulator.sites import Sites
from gcbridge.emulator.testing import EXAMPLE_SITE

__all__ = ["emulator_openapi", "http_reference"]

INTRO = """\
# Emulator HTTP API

Every route of the emulator, written from the OpenAPI schema it serves at
`/openapi.json` (the interactive page is `/docs` on a running emulator) each time
this site is built, with an example of each JSON answer (the example's values are
made up; its fields are those of a live answer). Error answers are
`{{"gcCode", "error", "message"}}`: `error` is a reason code
([Reason codes](reason-codes.md)). The webhook routes authenticate with the site's
account token (`Authorization: Bearer ...`) or a site-key signature, and answer an
authentication failure with HTTP 200 and `gcCode` 410, as the service does: check
every body for `gcCode`.

`website_id` is the site's **shortname** on the widget and comment routes
(`/api/pub/comments?website_id=demo`, thread-load's `service_id`) and the site's
**24-hex id** on the webhook routes (`/webhook/website/5f1c.../setup`): see
[Sites and ids](../explanation/service.md#sites-and-ids).

Schema version: OpenAPI {openapi}, API "{title}" {version}.

"""

METHODS = ("get", "post", "put", "patch", "delete")


def emulator_openapi() -> dict[str, Any]:
    """The emulator's OpenAPI schema, from an app built on a temporary data directory."""
    with tempfile.TemporaryDirectory(prefix="gcbridge-docs-") as tmp:
        settings = Settings(sites=Sites([EXAMPLE_SITE]), data_dir=Path(tmp))
        app = create_app(settings, run_dispatcher=False)
        schema: dict[str, Any] = app.openapi()
    return schema


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(_type(s) for s in schema[key])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {_type(schema.get('items', {}))}"
    if "enum" in schema:
        return " / ".join(f"`{v}`" for v in schema["enum"])
    return str(kind)


def _operation(method: str, path: str, op: dict[str, Any]) -> str:
    lines = [f"### `{method.upper()} {path}`\n"]
    if op.get("summary"):
        lines.append(f"**{_cell(op['summary'])}.**\n")
    if op.get("description"):
        lines.append(op["description"].strip() + "\n")
    params = op.get("parameters", [])
    if params:
        lines.append("| parameter | in | required | type | description |\n|---|---|---|---|---|")
        for p in params:
            lines.append(
                f"| `{p['name']}` | {p.get('in', '')} | {'yes' if p.get('required') else 'no'}"
                f" | {_cell(_type(p.get('schema', {})))} | {_cell(p.get('description', ''))} |"
            )
        lines.append("")
    body = op.get("requestBody")
    if body:
        for media, content in body.get("content", {}).items():
            kind = _type(content.get("schema", {}))
            about = _cell(body.get("description", ""))
            lines.append(f"Request body: `{media}`, {_cell(kind)}. {about}\n")
    responses = op.get("responses", {})
    if responses:
        lines.append("| answer | meaning |\n|---|---|")
        for code, answer in responses.items():
            lines.append(f"| {code} | {_cell(answer.get('description', ''))} |")
        lines.append("")
    for code, answer in responses.items():
        example = answer.get("content", {}).get("application/json", {}).get("example")
        if example is not None:
            body = json.dumps(example, indent=2, ensure_ascii=False)
            lines.append(f"Answer {code}, for example:\n\n```json\n{body}\n```\n")
    return "\n".join(lines) + "\n"


def _schemas(schemas: dict[str, Any]) -> str:
    out = ["## Schemas\n"]
    for name, schema in sorted(schemas.items()):
        out.append(f"### `{name}`\n")
        if schema.get("description"):
            out.append(_cell(schema["description"]) + "\n")
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        if props:
            out.append("| field | type | required | description |\n|---|---|---|---|")
            for field, spec in props.items():
                out.append(
                    f"| `{field}` | {_cell(_type(spec))} | {'yes' if field in required else 'no'}"
                    f" | {_cell(spec.get('description', ''))} |"
                )
            out.append("")
    return "\n".join(out) + "\n"


def http_reference(schema: dict[str, Any] | None = None) -> str:
    """The Markdown of the HTTP API page."""
    schema = schema or emulator_openapi()
    info = schema.get("info", {})
    parts = [
        INTRO.format(
            openapi=schema.get("openapi", "?"),
            title=info.get("title", ""),
            version=info.get("version", ""),
        )
    ]
    by_tag: dict[str, list[str]] = {}
    for path, ops in schema.get("paths", {}).items():
        for method in METHODS:
            if method in ops:
                tag = (ops[method].get("tags") or ["other"])[0]
                by_tag.setdefault(tag, []).append(_operation(method, path, ops[method]))
    for tag, ops_md in by_tag.items():
        parts.append(f"## {tag}\n\n")
        parts.extend(ops_md)
    parts.append(_schemas(schema.get("components", {}).get("schemas", {})))
    return "".join(parts)
