"""SsoUser rules: full matches, no control or bidi characters,
refusals that name the field meant, and the int digit limit as ``bad_json``."""

import base64
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcbridge.sso import SsoInvalid, SsoIssuer, SsoUser, SsoVerifier
from gcbridge.sso.fields import meant_field
from gcbridge.sso.format import assemble

SECRET = "sso-secret-of-the-rules-tests"
T = 1_700_000_000
ADA = {"id": "42", "username": "ada", "email": "ada@example.com"}


def signed(user_json: str) -> str:
    return assemble(SECRET, base64.b64encode(user_json.encode()).decode(), T)


def refusal(user: dict) -> SsoInvalid:
    with pytest.raises(SsoInvalid) as info:
        SsoVerifier(SECRET).verify(signed(json.dumps(user)), now=T)
    assert info.value.reason == "bad_user"
    return info.value


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"username": "alice\n"}, "username"),
        ({"username": "alice\r"}, "username"),
        ({"username": "al\x00ice"}, "username"),
        ({"username": "\u202eecila"}, "username"),
        ({"username": "ali\u2066ce"}, "username"),
        ({"username": "alice\u2028"}, "username"),
        ({"username": "\x1b[31malice"}, "username"),
        ({"id": "42\n"}, "id"),
        ({"id": "4\x002"}, "id"),
        ({"email": "a@b.co\n"}, "email"),
        ({"email": "a@b.co\r\n"}, "email"),
        ({"email": "a\x00@b.co"}, "email"),
        ({"email": "a@b.co\u202e"}, "email"),
        ({"language": "en\n"}, "language"),
        ({"language": "fr-FR\n"}, "language"),
        ({"picture": "https://example.com/a.png\n"}, "picture"),
        ({"picture": "https://example.com/a\x00.png"}, "picture"),
    ],
)
def test_trailing_newlines_controls_and_bidi_are_refused_everywhere(change, field):
    user = {**ADA, **change}
    with pytest.raises(ValueError, match=field):
        SsoUser.model_validate(user)
    with pytest.raises(ValueError, match=field):
        SsoIssuer(SECRET).issue(user, now=T)
    assert refusal(user).field == field


@pytest.mark.parametrize(
    "username", ["ada lovelace", "Zoë", "山田", "👩‍💻 dev", "a\u200db", "O'Brien"]
)
def test_real_names_still_pass(username):
    user = {**ADA, "username": username}
    assert SsoVerifier(SECRET).verify(SsoIssuer(SECRET).issue(user, now=T), now=T).username == (
        username
    )


@pytest.mark.parametrize(
    ("field", "meant"),
    [
        ("avatar", "picture"),
        ("avatar_url", "picture"),
        ("name", "username"),
        ("user_id", "id"),
        ("lang", "language"),
        ("locale", "language"),
        ("Email", "email"),
        ("usrname", "username"),
        ("mail", "email"),
    ],
)
def test_unknown_field_names_the_field_meant(field, meant):
    exc = refusal({**ADA, field: "https://example.com/a.png" if meant == "picture" else "x"})
    assert exc.field == field and exc.meant == meant
    assert f"unknown field {field!r}: the service's field is {meant!r}" in str(exc)
    assert exc.problems[0].code == "unknown_field"


def test_avatar_refusal_reads_as_the_issue_asks():
    exc = refusal({**ADA, "avatar": "https://example.com/a.png"})
    assert str(exc) == (
        "the user in ssoData is invalid: unknown field 'avatar': the service's field is 'picture'"
    )


def test_unknown_field_without_a_likely_meaning_lists_the_fields():
    exc = refusal({**ADA, "admin": True})
    assert exc.field == "admin" and exc.meant is None
    assert "id, username, email, language, bio, picture" in str(exc)


def test_every_bad_field_is_listed_with_its_problem():
    exc = refusal({"id": "1", "username": "ada", "avatar": "x", "language": "en\n"})
    by_field = {p.field: p for p in exc.problems}
    assert by_field["email"].code == "missing_field"
    assert by_field["avatar"].meant == "picture"
    assert by_field["language"].code == "bad_value"
    assert "token" not in str(exc)


def test_meant_field_is_none_for_a_real_field_and_for_noise():
    assert meant_field("picture") is None
    assert meant_field("zzzzzz") is None


@pytest.mark.parametrize("digits", [4301, 5000, 10_000])
def test_an_id_longer_than_the_int_digit_limit_is_bad_json(digits):
    text = '{"id": ' + "9" * digits + ', "username": "ada", "email": "ada@example.com"}'
    with pytest.raises(SsoInvalid) as info:
        SsoVerifier(SECRET).verify(signed(text), now=T)
    assert info.value.reason == "bad_json"


def test_a_huge_python_int_id_is_a_value_error_at_issue():
    with pytest.raises(ValueError, match="id"):
        SsoIssuer(SECRET).issue({**ADA, "id": 10**5000}, now=T)


huge_json = st.builds(
    lambda digits, where: (
        '{"id": "1", "username": "a", "email": "a@b.co", "n": ' + "9" * digits + "}"
        if where
        else '{"id": ' + "1" * digits + ', "username": "a", "email": "a@b.co"}'
    ),
    st.integers(min_value=4290, max_value=9000),
    st.booleans(),
).map(str.encode)


@settings(max_examples=60)
@given(st.binary(max_size=300) | huge_json)
def test_any_signed_bytes_raise_only_sso_errors(raw):
    token = assemble(SECRET, base64.b64encode(raw).decode(), T)
    try:
        SsoVerifier(SECRET).verify(token, now=T)
    except SsoInvalid as exc:
        assert exc.reason in {"bad_json", "bad_user", "bad_base64", "malformed"}
