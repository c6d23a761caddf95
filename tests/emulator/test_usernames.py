"""A look-alike of a taken SSO username is refused, never a second user.

Invisible and default-ignorable characters, and Latin mixed with Cyrillic or Greek,
are refused outright (401 ``sso_invalid``); confusable letters (TR39 skeletons on top
of NFKC and case folding, diacritics dropped, small capitals and ``vv``) are a 409
``username_conflict``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from gcbridge.emulator.testing import EXAMPLE_SITE
from tests.emulator.hardening_support import gc_error, live, register, sso_data

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
    "aIice",  # capital I for l
    "a\u217cice",  # small roman numeral fifty
    "\uff41lice",  # fullwidth a
    "ALICE",
    "ali\u0323ce",  # combining dot below: a visible mark does not make a distinct name
    "\u00e1lice",  # a precomposed accent, the same rule
    "alic\u0113\u0301",  # two stacked marks
    "\u1d00lice",  # Latin small capital A (no confusables entry)
]
# Holders taken by the module fixture besides alice, and look-alikes UTS #39's
# confusables table misses: a small capital, two v for w, Cyrillic em.
MORE_HOLDERS = ("mallory", "wendy", "mama")
UNCOVERED = [
    "\u1d0dallory",  # Latin small capital M
    "vvendy",  # two v for w
    "\u043c\u0430\u043c\u0430",  # Cyrillic em, a, em, a: one script, reads as mama
]
MIXED_SCRIPTS = [
    "\u0430lice",  # Cyrillic a (a look-alike of alice too; the mixture is refused first)
    "al\u0456ce",  # Cyrillic byelorussian-ukrainian i
    "alic\u0435",  # Cyrillic ie
    "\u043callory",  # Cyrillic em among Latin letters
    "\u043cax",  # the same with no holder of "max": the mixture itself is refused
    "\u03c9endy",  # Greek omega among Latin letters
]


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    for _, http in live(tmp_path_factory.mktemp("lookalike")):
        assert _sso(http, "1", "alice").status_code == 200
        for number, holder in enumerate(MORE_HOLDERS, 2):
            assert _sso(http, str(number), holder).status_code == 200
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


@pytest.mark.parametrize("username", UNCOVERED)
def test_a_look_alike_the_confusables_table_misses_is_a_conflict(
    emu: httpx.Client, username: str
) -> None:
    gc_error(_sso(emu, f"unc-{username.encode().hex()}", username), 409, "username_conflict")


@pytest.mark.parametrize("username", MIXED_SCRIPTS)
def test_a_username_mixing_latin_with_cyrillic_or_greek_is_refused(
    emu: httpx.Client, username: str
) -> None:
    body = gc_error(_sso(emu, f"mix-{username.encode().hex()}", username), 401, "sso_invalid")
    assert "bad_username" in body["message"] and "mixes scripts" in body["message"]


@pytest.mark.parametrize(
    "username",
    [
        "alicia",
        "alice b",
        "Émile",
        "\u0430\u043b\u0438\u0441\u0430",
        "\u5c71\u7530taro",  # Latin with Han: a usual Japanese mixture
        "\u304c\u304f",  # kana with dakuten: not a mark of the diacritics blocks
    ],
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
        assert _sso(http, "7", "\uff50\uff41\uff59\uff50\uff41\uff4c").status_code == 200
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


@pytest.mark.parametrize(
    ("one", "other", "alike"),
    [
        ("alice", "ali\u0323ce", True),  # dot below
        ("Emile", "\u00c9mile", True),  # a visible accent: one name
        ("malice", "\u1d0dalice", True),  # small capital M
        ("wendy", "vvendy", True),
        ("mama", "\u043c\u0430\u043c\u0430", True),  # Cyrillic: reads as mama
        ("\u0930\u093e\u091c", "\u0930\u091c", False),  # a Devanagari vowel sign is a letter
        ("\u304b\u304f", "\u304c\u304f", False),  # kana voicing makes another word
        ("alice", "alicia", False),
    ],
)
def test_the_key_rule_on_pairs(one: str, other: str, alike: bool) -> None:
    from gcbridge.emulator.usernames import username_keys

    a, b = username_keys(one), username_keys(other)
    assert (a.fold == b.fold or a.shape == b.shape) is alike


@pytest.mark.parametrize(
    ("username", "refused"),
    [
        ("\u043callory", True),
        ("\u03c9endy", True),
        ("\u5c71\u7530taro", False),  # Latin + Han (+ kana, or Hangul): "Highly Restrictive" allows
        ("\u0430\u043b\u0438\u0441\u0430", False),  # one script
        ("ada_42", False),
    ],
)
def test_the_mixed_script_rule(username: str, refused: bool) -> None:
    from gcbridge.emulator.usernames import mixed_script_problem

    assert (mixed_script_problem(username) is not None) is refused
