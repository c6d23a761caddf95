"""Hardening battery, emulator side: every malformed input is a clean 4xx.

Classes: numeric query parameters parsed whole and bounded; full-match
validation, no control/bidi usernames, look-alike usernames; raw and
pydantic JSON bodies refused in the gcCode shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from gcbridge.emulator.testing import EXAMPLE_SITE, RunningEmulator
from tests.emulator.hardening_support import ACCOUNT, WEBSITE_ID, gc_error, live, register, sso_data


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[tuple[RunningEmulator, httpx.Client]]:
    yield from live(tmp_path)


CALLS = f"/webhook/website/{WEBSITE_ID}/calls"
SETUP = f"/webhook/website/{WEBSITE_ID}/setup"

# --- 1. numeric query parameters ---------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        {"limit": "0001000"},  # 1000 with leading zeros: above the cap of 200
        {"limit": "000201"},
        {"limit": "000001" + "0" * 30},  # overflowed SQLite
        {"limit": "1" + "0" * 5000},  # past Python's int digit limit
        {"limit": "0" * 5000},
        {"limit": "0"},
        {"limit": "-1"},
        {"limit": "+5"},
        {"limit": "1e2"},
        {"limit": " 5"},
        {"limit": "\u0661\u0662"},  # Arabic-Indic digits: isdigit() but not ASCII
        {"cursor": "9" * 19},
        {"cursor": "1" + "0" * 5000},
        {"cursor": "-3"},
        {"cursor": "\u00b2"},
    ],
)
def test_numeric_query_parameters_are_parsed_whole_and_bounded(
    emu: tuple[RunningEmulator, httpx.Client], query: dict[str, str]
) -> None:
    _, http = emu
    gc_error(http.get(CALLS, params=query, headers=ACCOUNT), 400, "invalid_request")


def test_numeric_query_parameters_in_range_still_work(
    emu: tuple[RunningEmulator, httpx.Client],
) -> None:
    _, http = emu
    for query in ({"limit": "200"}, {"limit": "007"}, {"cursor": "0"}, {"cursor": str(2**62)}):
        resp = http.get(CALLS, params=query, headers=ACCOUNT)
        assert resp.status_code == 200 and resp.json()["calls"] == [], resp.text


# --- 2. full matches, control and bidi characters, look-alikes ---------------------------


@pytest.mark.parametrize(
    "username",
    ["alice\n", "alice\r\n", "alice\x00", "ali\u202ece", "alice\u2066", "al\u200bice", "\nalice"],
)
def test_registration_refuses_trailing_newlines_and_control_characters(
    emu: tuple[RunningEmulator, httpx.Client], username: str
) -> None:
    _, http = emu
    gc_error(register(http, username), 400)


@pytest.mark.parametrize("email", ["a@b.co\n", "a@b.co\r\n", "a\x00@b.co", "a@b.co\u202e"])
def test_registration_refuses_bad_emails_with_a_newline_or_controls(
    emu: tuple[RunningEmulator, httpx.Client], email: str
) -> None:
    _, http = emu
    gc_error(register(http, "carol", email), 400)


@pytest.mark.parametrize("second", ["ALICE", "Alice", "\uff41\uff4c\uff49\uff43\uff45"])
def test_look_alike_usernames_cannot_register_beside_each_other(
    emu: tuple[RunningEmulator, httpx.Client], second: str
) -> None:
    _, http = emu
    assert register(http, "alice").status_code == 201
    resp = register(http, second)
    assert resp.status_code in (400, 409), resp.text
    gc_error(resp, resp.status_code)


def _sso(http: httpx.Client, user: dict[str, str]) -> httpx.Response:
    return http.post(
        "/api/pub/sso/login",
        json={"api_public_key": EXAMPLE_SITE.sso_public_key, "ssoData": sso_data(user)},
    )


def test_an_sso_look_alike_of_a_held_username_is_a_conflict(
    emu: tuple[RunningEmulator, httpx.Client],
) -> None:
    _, http = emu
    assert _sso(http, {"id": "1", "username": "bob", "email": "b@x.io"}).status_code == 200
    resp = _sso(http, {"id": "2", "username": "\uff22\uff4f\uff42", "email": "b2@x.io"})
    gc_error(resp, 409, "username_conflict")


@pytest.mark.parametrize(
    "user",
    [
        {"id": "3", "username": "mallory\u202e", "email": "m@x.io"},
        {"id": "4", "username": "eve\x00", "email": "e@x.io"},
        {"id": "5", "username": "trent\n", "email": "t@x.io"},
        {"id": "6", "username": "peggy", "email": "p@x.io\n"},
    ],
)
def test_sso_users_with_control_or_bidi_characters_are_refused(
    emu: tuple[RunningEmulator, httpx.Client], user: dict[str, str]
) -> None:
    _, http = emu
    resp = _sso(http, user)
    assert resp.status_code in (400, 401), resp.text
    gc_error(resp, resp.status_code)


def test_an_older_data_dir_gets_the_username_key_column(tmp_path: Path) -> None:
    import sqlite3

    from gcbridge.emulator.db import Database

    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE users (id TEXT PRIMARY KEY, site TEXT NOT NULL, external_id TEXT,"
        " guest INTEGER NOT NULL DEFAULT 0, username TEXT NOT NULL, name TEXT NOT NULL,"
        " email TEXT NOT NULL, avatar TEXT NOT NULL, language TEXT, bio TEXT, password_hash TEXT,"
        " created_at REAL NOT NULL, updated_at REAL NOT NULL, UNIQUE (site, username));"
        "INSERT INTO users VALUES"
        " ('u1','demo',NULL,0,'Ｚoe','Ｚoe','z@x.io','a',NULL,NULL,NULL,1,1);"
    )
    old.commit()
    old.close()
    db = Database(path)
    with db.read() as conn:
        key = conn.execute("SELECT username_key FROM users WHERE id = 'u1'").fetchone()[0]
    db.close()
    assert key == "zoe"


def test_a_data_dir_of_a_newer_version_is_refused_in_one_line(tmp_path: Path) -> None:
    import sqlite3

    from gcbridge.emulator.db import SCHEMA_VERSION, Database
    from gcbridge.emulator.errors import ConfigError

    path = tmp_path / "newer.sqlite3"
    Database(path).close()
    newer = sqlite3.connect(path)
    newer.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    newer.close()
    with pytest.raises(ConfigError) as exc:
        Database(path)
    assert exc.value.reason == "data_dir_too_new"
    assert f"schema version {SCHEMA_VERSION + 1}" in str(exc.value)


# --- 4. JSON bodies: raw routes and pydantic routes, one shape ---------------------------

BAD_BODIES = [
    b'{"url": "https://exa\\ud800mple.com/", "events": ["comment.created"]}',
    b'{"url": "https://example.com/\\udfff", "events": ["comment.created"]}',
    b'{"url\\ud800": "https://example.com/"}',
    b'{"url": "https://example.com/", "events": ["\\ud83d"]}',
    b'{"url": "https://example.com/\xff"}',  # not UTF-8
    b"[1, 2]",
    b'"a string"',
    b"null",
    b"",
    b'{"a": ' + b"9" * 5000 + b"}",  # an integer past Python's digit limit
    b"[" * 3000 + b"]" * 3000,  # deep nesting (past the recursion limit)
    b"[" * 40 + b"]" * 40,  # deeper than 32 levels
    b'{"a": NaN}',
    b'{"a": 1',
]


@pytest.mark.parametrize("body", BAD_BODIES, ids=range(len(BAD_BODIES)))
def test_the_raw_json_setup_route_refuses_bad_bodies_cleanly(
    emu: tuple[RunningEmulator, httpx.Client], body: bytes
) -> None:
    _, http = emu
    resp = http.post(SETUP, content=body, headers={**ACCOUNT, "Content-Type": "application/json"})
    gc_error(resp, 400)


DEEP_CHECK_BODIES = [
    b"[" * 20_000 + b"]" * 20_000,  # 40 KB of nesting
    b'{"body": "{}", "deep": ' + b"[" * 20_000 + b"]" * 20_000 + b"}",
    b'{"body": "{}", "deep": ' + b"[" * 33 + b"]" * 33 + b"}",  # one level past the rule
]


@pytest.mark.parametrize(
    "body", BAD_BODIES + DEEP_CHECK_BODIES, ids=range(len(BAD_BODIES) + len(DEEP_CHECK_BODIES))
)
def test_the_event_body_check_route_refuses_bad_bodies_as_the_other_routes_do(
    emu: tuple[RunningEmulator, httpx.Client], body: bytes
) -> None:
    _, http = emu
    resp = http.post(
        "/api/dashboard/events/check", content=body, headers={"Content-Type": "application/json"}
    )
    gc_error(resp, 400, "invalid_request")


PYDANTIC_ROUTES = ["/api/pub/auth/register", "/api/pub/auth/login", "/api/pub/sso/login"]


@pytest.mark.parametrize("route", PYDANTIC_ROUTES)
@pytest.mark.parametrize("body", BAD_BODIES, ids=range(len(BAD_BODIES)))
def test_pydantic_routes_answer_bad_bodies_in_the_gccode_shape(
    emu: tuple[RunningEmulator, httpx.Client], route: str, body: bytes
) -> None:
    _, http = emu
    resp = http.post(route, content=body, headers={"Content-Type": "application/json"})
    gc_error(resp, 400)


def test_unknown_paths_and_methods_use_the_gccode_shape(
    emu: tuple[RunningEmulator, httpx.Client],
) -> None:
    _, http = emu
    gc_error(http.get("/api/pub/nothing-here"), 404, "not_found")
    gc_error(http.put("/api/pub/auth/login"), 405, "method_not_allowed")


@pytest.mark.parametrize("port", ["\u0661\u0662", "+80", " 80x", "1" * 5000])
def test_the_emulator_port_option_is_parsed_whole(
    tmp_path: Path, port: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gcbridge.serving
    from gcbridge.cli import main

    def no_listening(*_: object) -> None:
        raise OSError("this test never listens")

    monkeypatch.setattr(gcbridge.serving, "bind_socket", no_listening)
    with pytest.raises(SystemExit) as exc:
        main(["emulator", "--port", port, "--data-dir", str(tmp_path / "d")])
    assert exc.value.code == 2
    assert "is not a port" in capsys.readouterr().err
