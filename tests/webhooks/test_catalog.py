"""The event catalog is the one list of event types: a type added to it alone is everywhere.

A fresh interpreter loads ``gcbridge/webhooks/catalog.py`` with a fifth entry written into
its source, before anything else of gcbridge is imported, then reads every place that lists
event types: the models' ``EventType`` and body models, the JSON Schemas, the OpenAPI
``webhooks`` entries and the webhook routes' enums, the emulator's journal and set-up check,
the demo's subscription, the CLI's choices and ``schema --list``, and the dashboard's catalog.
The dashboard's page and scripts name no event type: they build their lists from that catalog.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gcbridge.emulator.dashboard
from gcbridge.webhooks import catalog

PINNED = "comment.pinned"

SCRIPT = r"""
import asyncio, contextlib, importlib.util, io, json, pathlib, sys, typing
import gcbridge

path = pathlib.Path(gcbridge.__file__).parent / "webhooks" / "catalog.py"
source = path.read_text("utf-8")
line = "CATALOG: tuple[EventKind, ...] = (CREATED, UPDATED, APPROVED, DELETED)"
assert line in source
pinned = 'PINNED = EventKind("comment.pinned", "A moderator pins a comment.", "approve", ' \
    '"Pinned!", "approved", "2023-11-14T22:40:00.000Z")\n'
source = source.replace(line, pinned + line.replace("DELETED)", "DELETED, PINNED)"))
spec = importlib.util.spec_from_file_location("gcbridge.webhooks.catalog", path)
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
exec(compile(source, str(path), "exec"), module.__dict__)

from gcbridge.cli import build_parser
from gcbridge.demo import stack
from gcbridge.emulator.dashboard.api import event_catalog
from gcbridge.emulator.webhooks.openapi import add_webhooks
from gcbridge.emulator.webhooks import journal, routes
from gcbridge.emulator.webhooks.openapi import CALLS_EXTRA, SETUP_EXTRA
from gcbridge.webhooks import EVENT_TYPES, EventType
from gcbridge.webhooks.events import parse_event
from gcbridge.webhooks.event_schemas import body_schema
from gcbridge.webhooks.events import EVENT_MODELS

out = {}
out["literal"] = list(typing.get_args(EventType))
out["sdk"] = list(EVENT_TYPES)
out["model"] = EVENT_MODELS["comment.pinned"].__name__
body = json.dumps(module.example_body("comment.pinned"))
out["parsed"] = parse_event(body).event_type
out["schema_title"] = body_schema("comment.pinned")["title"]
out["union"] = [one["$ref"] for one in body_schema()["oneOf"]]
out["webhooks"] = list(add_webhooks({})["webhooks"])
out["calls_filter"] = CALLS_EXTRA["parameters"][2]["schema"]["enum"]
setup = SETUP_EXTRA["requestBody"]["content"]["application/json"]["schema"]
out["setup_enum"] = setup["properties"]["events"]["items"]["enum"]
out["journal"] = list(journal.EVENT_TYPES)
out["setup_check"] = list(routes._check_events(["comment.pinned"]))
out["demo"] = list(stack.EVENT_TYPES)
trigger = ["webhooks", "trigger", "comment.pinned", "--website-id", "w", "--token-env", "T"]
out["trigger"] = build_parser().parse_args(trigger).event
listing = io.StringIO()
schema_list = build_parser().parse_args(["webhooks", "schema", "--list"])
with contextlib.redirect_stdout(listing):
    schema_list.func(schema_list)
out["schema_list"] = [row.split()[0] for row in listing.getvalue().splitlines()]
answer = json.loads(asyncio.run(event_catalog()).body)
out["dashboard"] = [(e["event_type"], e["trigger"]) for e in answer["events"]]
print(json.dumps(out))
"""


def test_a_fifth_event_type_written_into_the_catalog_alone_appears_everywhere() -> None:
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout)
    five = [*catalog.EVENT_TYPES, PINNED]
    for place in ("literal", "sdk", "webhooks", "calls_filter", "setup_enum", "journal", "demo"):
        assert seen[place] == five, place
    assert seen["schema_list"] == five
    assert seen["model"] == "CommentPinnedEvent" == seen["schema_title"]
    assert seen["parsed"] == PINNED
    assert seen["union"][-1] == "#/$defs/CommentPinnedEvent" and len(seen["union"]) == 5
    assert seen["setup_check"] == [PINNED]
    assert seen["trigger"] == PINNED
    assert seen["dashboard"][-1] == [PINNED, "approve"]


def test_the_dashboard_page_and_scripts_name_no_event_type() -> None:
    static = Path(gcbridge.emulator.dashboard.__file__).with_name("static")
    for page in sorted(static.glob("*.[hj]*")):
        text = page.read_text("utf-8")
        assert not [name for name in catalog.EVENT_TYPES if name in text], page.name


def test_the_event_names_are_written_in_the_catalog_module_only() -> None:
    src = Path(catalog.__file__).parents[1]
    quoted = [f'"{name}"' for name in catalog.EVENT_TYPES] + [
        f"'{name}'" for name in catalog.EVENT_TYPES
    ]
    holders = sorted(
        str(path.relative_to(src))
        for path in src.rglob("*")
        if path.suffix in (".py", ".js", ".html")
        and any(text in path.read_text("utf-8") for text in quoted)
    )
    assert holders == ["webhooks/catalog.py"]
