"""The JSON Schemas made from the receiver models.

Every schema is checked against the draft 2020-12 metaschema and used with
jsonschema's own Draft202012Validator here (not with gcbridge's check_body), so
what these tests accept is what a team in another language accepts.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from gcbridge.cli import main
from gcbridge.webhooks import WebhookEvent, construct_event
from gcbridge.webhooks.catalog import CATALOG, EVENT_TYPES, example_body
from gcbridge.webhooks.event_schemas import (
    body_schema,
    schema_file_name,
    schema_json,
    shipped_schema,
)
from gcbridge.webhooks.event_schemas import (
    main as schemas_main,
)
from gcbridge.webhooks.events import EVENT_MODELS, parse_event
from gcbridge.webhooks.testing import sample_event, signed_headers

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "src" / "gcbridge" / "webhooks" / "schemas"
TYPES_AND_ANY = [*EVENT_TYPES, None]


def valid(schema: dict, body: object) -> bool:
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(
        schema, format_checker=Draft202012Validator.FORMAT_CHECKER
    ).is_valid(body)


def test_the_four_event_types_are_the_spec_s_in_its_order() -> None:
    assert tuple(EVENT_MODELS) == EVENT_TYPES == tuple(e.name for e in CATALOG)
    assert EVENT_TYPES == (
        "comment.created",
        "comment.updated",
        "comment.approved",
        "comment.deleted",
    )


@pytest.mark.parametrize("event_type", TYPES_AND_ANY)
def test_schema_is_draft_2020_12_and_self_contained(event_type: str | None) -> None:
    schema = body_schema(event_type)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)
    refs = [part for part in json.dumps(schema).split('"$ref": ')[1:]]
    assert refs, "the parts are $defs"
    assert all(r.startswith('"#/$defs/') for r in refs), refs  # nothing outside the file


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_event_type_is_fixed_per_schema(event_type: str) -> None:
    schema = body_schema(event_type)
    assert schema["properties"]["event_type"]["const"] == event_type
    for other in EVENT_TYPES:
        body = example_body(event_type) | {"event_type": other}
        assert valid(schema, body) is (other == event_type)


def test_every_field_of_spec_2_4_with_type_nullability_and_format() -> None:
    schema = body_schema("comment.created")
    defs = schema["$defs"]
    root = schema["properties"]
    assert set(schema["required"]) == {"event_type", "timestamp", "website_id", "data"}
    assert root["timestamp"].items() >= {"type": "integer", "format": "int64", "minimum": 0}.items()
    assert root["website_id"]["pattern"] == "^[0-9a-fA-F]{24}$"
    assert defs["EventData"]["required"] == ["comment", "thread"]

    def kinds(prop: dict) -> set[str]:
        return {p["type"] for p in prop.get("anyOf", [prop])}

    nullable = {"string", "null"}
    comment = defs["Comment"]["properties"]
    assert set(defs["Comment"]["required"]) == set(comment) == {
        "id", "external_id", "content", "created_at", "updated_at", "thread_id",
        "external_thread_id", "parent_id", "external_parent_id", "status", "author",
    }  # fmt: skip
    for name in ("external_id", "external_thread_id", "parent_id", "external_parent_id"):
        assert kinds(comment[name]) == nullable, name
    for name in ("id", "content", "thread_id", "status"):
        assert kinds(comment[name]) == {"string"}, name
    for name in ("created_at", "updated_at"):
        assert comment[name]["format"] == "date-time"
    author = defs["Author"]["properties"]
    assert set(defs["Author"]["required"]) == set(author) == {
        "id", "external_id", "guest", "name", "email", "avatar",
    }  # fmt: skip
    assert author["guest"]["type"] == "boolean"
    assert kinds(author["external_id"]) == nullable
    assert {"type": "string", "format": "uri"} in author["avatar"]["anyOf"]
    thread = defs["Thread"]["properties"]
    assert set(defs["Thread"]["required"]) == set(thread) == {
        "id", "page_title", "created_at", "updated_at", "external_id",
    }  # fmt: skip
    assert thread["updated_at"]["format"] == "date-time"
    assert kinds(thread["external_id"]) == nullable


def test_any_body_is_a_one_of_told_apart_by_event_type() -> None:
    schema = body_schema()
    assert [one["$ref"] for one in schema["oneOf"]] == [
        f"#/$defs/{EVENT_MODELS[t].__name__}" for t in EVENT_TYPES
    ]
    assert schema["discriminator"]["propertyName"] == "event_type"
    for event_type in EVENT_TYPES:
        assert valid(schema, example_body(event_type))


def broken_bodies() -> list[tuple[str, dict]]:
    def edit(change) -> dict:
        body = copy.deepcopy(example_body("comment.created"))
        change(body)
        return body

    return [
        ("missing field", edit(lambda b: b["data"]["comment"].pop("content"))),
        ("missing nullable key", edit(lambda b: b["data"]["comment"].pop("parent_id"))),
        ("missing data.thread", edit(lambda b: b["data"].pop("thread"))),
        ("timestamp as a string", edit(lambda b: b.update(timestamp="1700000000000"))),
        ("guest as a string", edit(lambda b: b["data"]["comment"]["author"].update(guest="no"))),
        ("unknown event type", edit(lambda b: b.update(event_type="comment.refused"))),
        ("website_id not 24 hex", edit(lambda b: b.update(website_id="demo"))),
        ("date not ISO 8601", edit(lambda b: b["data"]["thread"].update(created_at="yesterday"))),
    ]


@pytest.mark.parametrize("event_type", TYPES_AND_ANY)
@pytest.mark.parametrize("name,body", broken_bodies(), ids=[n for n, _ in broken_bodies()])
def test_broken_bodies_do_not_validate(event_type: str | None, name: str, body: dict) -> None:
    if name != "unknown event type":  # otherwise broken as the schema's own type
        body = body | {"event_type": event_type or "comment.created"}
    assert not valid(body_schema(event_type), body)


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_schema_and_receiver_models_agree(event_type: str) -> None:
    """The examples and the SDK's sample events validate and parse; extra keys stay allowed."""
    for body in (example_body(event_type), sample_event(event_type)):
        assert valid(body_schema(event_type), body)
        assert parse_event(json.dumps(body)).event_type == event_type
    with_extra = example_body(event_type) | {"added_later": {"x": 1}}
    assert valid(body_schema(event_type), with_extra)


def test_the_models_keep_their_public_behaviour() -> None:
    body = json.dumps(example_body("comment.deleted")).encode()
    headers = signed_headers("whsec_x", body, timestamp_ms=1700000180000)
    event = construct_event("whsec_x", body, headers, now=1700000180)
    assert type(event) is WebhookEvent
    assert event.event_type == "comment.deleted" and event.data.thread.external_id == "article-42"
    assert event.sent_at.year == 2023
    lenient = example_body("comment.created")
    del lenient["data"]["comment"]["external_id"]  # a receiver still tolerates it
    assert parse_event(json.dumps(lenient)).data.comment.external_id is None


@pytest.mark.parametrize("event_type", TYPES_AND_ANY)
def test_shipped_files_equal_the_models_output(event_type: str | None) -> None:
    """Compared as JSON values: the contract, not the key order of one pydantic version."""
    path = SCHEMA_DIR / schema_file_name(event_type)
    regenerate = "stale: run python -m gcbridge.webhooks.event_schemas --write"
    assert json.loads(path.read_text("utf-8")) == body_schema(event_type), regenerate
    assert shipped_schema(event_type) == json.loads(schema_json(event_type))


def test_no_stray_file_in_the_shipped_folder() -> None:
    expected = {schema_file_name(t) for t in TYPES_AND_ANY}
    assert {p.name for p in SCHEMA_DIR.iterdir()} == expected


def test_regeneration_command_writes_the_same_files(tmp_path: Path, capsys) -> None:
    assert schemas_main(["--write", str(tmp_path)]) == 0
    assert {p.name for p in tmp_path.iterdir()} == {schema_file_name(t) for t in TYPES_AND_ANY}
    for event_type in TYPES_AND_ANY:
        name = schema_file_name(event_type)
        written = json.loads((tmp_path / name).read_text("utf-8"))
        assert written == json.loads((SCHEMA_DIR / name).read_text("utf-8"))
    assert "wrote" in capsys.readouterr().out


# ------------------------------------------------------------------ the CLI


@pytest.mark.parametrize("event_type", TYPES_AND_ANY)
def test_cli_prints_the_schema(event_type: str | None, capsys) -> None:
    assert main(["webhooks", "schema", *([event_type] if event_type else [])]) == 0
    assert json.loads(capsys.readouterr().out) == body_schema(event_type)


def test_cli_unknown_type_is_a_usage_error_naming_the_known_ones(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["webhooks", "schema", "comment.refused"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert all(t in err for t in EVENT_TYPES)


def test_cli_lists_the_catalog(capsys) -> None:
    assert main(["webhooks", "schema", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(EVENT_TYPES)


def test_cli_has_help(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["webhooks", "schema", "--help"])
    assert info.value.code == 0
    assert "2020-12" in capsys.readouterr().out


BLOCKED = ("fastapi", "uvicorn", "starlette", "jsonschema", "httpx")


def without_heavy_packages(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a Python where importing any of BLOCKED fails."""
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        f"BLOCKED = {BLOCKED!r}\n"
        "class _Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in BLOCKED:\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, _Block())\n"
    )
    env = {"PYTHONPATH": f"{tmp_path}:{ROOT / 'src'}", "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_schema_works_without_fastapi(tmp_path: Path) -> None:
    """The receiver SDK and `webhooks schema` need no FastAPI, uvicorn or jsonschema."""
    assert without_heavy_packages(tmp_path, "import fastapi").returncode != 0  # the block works
    run = without_heavy_packages(
        tmp_path,
        "import gcbridge.webhooks, gcbridge.webhooks.event_schemas\n"
        "from gcbridge.cli import main\n"
        "raise SystemExit(main(['webhooks', 'schema', 'comment.created']))",
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["title"] == "CommentCreatedEvent"


@pytest.mark.parametrize(
    "name",
    [
        "gcbridge.webhooks.events",
        "gcbridge.webhooks.event_schemas",
        "gcbridge.webhooks.schema_check",
        "gcbridge.vectors",
        "gcbridge.emulator.webhooks.openapi",
        "gcbridge.cli.webhooks_schema_cmd",
    ],
)
def test_new_modules_document_their_public_names(name: str) -> None:
    import importlib
    import inspect

    module = importlib.import_module(name)
    assert module.__doc__
    for exported in module.__all__:
        obj = getattr(module, exported)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert obj.__doc__, f"{name}.{exported} has no docstring"


@pytest.mark.parametrize("page", ["event-schemas.md", "test-vectors.md"])
def test_reference_pages_link_only_to_files_that_exist(page: str) -> None:
    import re

    path = ROOT / "docs" / "reference" / page
    text = path.read_text("utf-8")
    for target in re.findall(r"\]\(([^)#]+)\)", text):
        assert not target.startswith(("http:", "https:", "/")), target
        assert (path.parent / target).exists(), target
    for language in ("Node", "Go", "PHP"):
        assert f"## {language}" in text or f"### {language}" in text, language
