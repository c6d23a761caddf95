"""A look-alike of a taken SSO username is refused, never a second user.

Invisible and default-ignorable characters are refused outright (401 ``sso_invalid``);
confusable letters (TR39 skeletons on top of NFKC and case folding) are a 409
``username_conflict``. On the code before the fix, 10 of these 14 were new users.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hardening_support import gc_error, live, register, sso_data

from gcbridge.emulator.testing import EXAMPLE_SITE

INVISIBLE = [
    "al\u034fice",  # combining grapheme joiner
    "alice\ufe0f",  # variation selector 16
    "ali\ufe00ce",  # variation selector 1
    "a\u3164lice",  # Hangul filler
    "alice\u115f",  # Hangul choseong filler
    "a\u2800lice",  # Braille pattern blank
    "alice\u3000",  # trailing ideographic space
    "alice\u00a0",  # trailing no-break space
    "al\u200dice",  # zero width joiner
    "alice\U000e0041",  # tag letter A
]
CONFUSABLE = [
    "\u0430lice",  # Cyrillic a
    "al\u0456ce",  # Cyrillic byelorussian-ukrainian i
    "alic\u0435",  # Cyrillic ie
    "aIice",  # capital I for l
    "a\u217cice",  # small roman numeral fifty
    "\uff41lice",  # fullwidth a
    "ALICE",
]


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    for _, http in live(tmp_path_factory.mktemp("lookalike")):
        assert _sso(http, "1", "alice").status_code == 200
        yield http


def _sso(http: httpx.Client, user_id: str, username: str) -> httpx.Response:
    user = {"id": user_id, "username": username, "email": f"u{user_id}@example.com"}
    return http.post(
        "/api/pub/sso/login",
        json={"api_public_key": EXAMPLE_SITE.sso_public_key, "ssoData": sso_data(user)},
    )


@pytest.mark.parametrize("username", INVISIBLE)
def test_invisible_characters_in_an_sso_username_are_refused(
    emu: httpx.Client, username: str
) -> None:
    body = gc_error(_sso(emu, f"inv-{username.encode().hex()}", username), 401, "sso_invalid")
    assert "bad_username" in body["message"]


@pytest.mark.parametrize("username", CONFUSABLE)
def test_a_confusable_of_a_taken_sso_username_is_a_conflict(
    emu: httpx.Client, username: str
) -> None:
    gc_error(_sso(emu, f"conf-{username.encode().hex()}", username), 409, "username_conflict")


@pytest.mark.parametrize(
    "username", ["alicia", "alice b", "Émile", "\u0430\u043b\u0438\u0441\u0430"]
)
def test_names_that_only_resemble_are_still_new_users(emu: httpx.Client, username: str) -> None:
    resp = _sso(emu, f"new-{username.encode().hex()}", username)
    assert resp.status_code == 200, resp.text
    assert resp.json()["user"]["username"] == username


def test_the_holder_keeps_signing_in_under_its_own_name(emu: httpx.Client) -> None:
    resp = _sso(emu, "1", "alice")
    assert resp.status_code == 200 and resp.json()["user"]["username"] == "alice"


def test_an_account_cannot_register_a_look_alike_of_an_sso_name(tmp_path: Path) -> None:
    for _, http in live(tmp_path):
        assert _sso(http, "7", "p\u0430ypal").status_code == 200  # Cyrillic a
        gc_error(register(http, "paypal"), 409, "username_taken")
        assert register(http, "paypaI").status_code in (400, 409)


def test_an_older_data_dir_gets_skeleton_keys(tmp_path: Path) -> None:
    """A data dir whose keys were NFKC + casefold only finds a Cyrillic look-alike after opening."""
    from gcbridge.emulator.auth.users import find_username_holder
    from gcbridge.emulator.db import Database

    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE users (id TEXT PRIMARY KEY, site TEXT NOT NULL, external_id TEXT,"
        " guest INTEGER NOT NULL DEFAULT 0, username TEXT NOT NULL, username_key TEXT,"
        " name TEXT NOT NULL, email TEXT NOT NULL, avatar TEXT NOT NULL, language TEXT,"
        " bio TEXT, password_hash TEXT, created_at REAL NOT NULL, updated_at REAL NOT NULL,"
        " UNIQUE (site, username));"
        "CREATE UNIQUE INDEX users_username_key ON users(site, username_key);"
        "INSERT INTO users VALUES"
        " ('u1','demo',NULL,0,'alice','alice','alice','a@x.io','a',NULL,NULL,NULL,1,1),"
        " ('u2','demo',NULL,0,'\u0430lice','\u0430lice','\u0430lice','b@x.io','a',NULL,NULL,"
        "NULL,2,2);"
    )
    old.commit()
    old.close()
    db = Database(path)
    try:
        with db.read() as conn:
            holder = find_username_holder(conn, "demo", "al\u0456ce")
            assert holder is not None and holder["id"] == "u1"
    finally:
        db.close()
    db = Database(path)  # a second opening keeps the keys (the version is recorded)
    db.close()
