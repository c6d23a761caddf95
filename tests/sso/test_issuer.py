"""SsoIssuer and SsoUser: what goes into a token, and bad input refused at issue time."""

import base64
import json

import pytest

from gcbridge.sso import SsoIssuer, SsoUser, SsoVerifier

T = 1_700_000_000
ADA = {"id": "42", "username": "ada", "email": "ada@example.com"}


def claims_of(token):
    return json.loads(base64.b64decode(token.split(" ")[0]).decode("utf-8"))


def test_token_shape_follows_the_contract():
    token = SsoIssuer("s", allow_weak_secret=True).issue(ADA, now=T)
    message, signature, timestamp = token.split(" ")
    assert timestamp == str(T)
    assert len(signature) == 40 and signature == signature.lower()
    assert claims_of(token) == ADA


def test_optional_fields_only_when_set_and_utf8_kept():
    user = SsoUser(**ADA, language="fr-FR", bio="Zoë", picture="https://cdn.example.com/z.png")
    token = SsoIssuer("s", allow_weak_secret=True).issue(user, now=T)
    assert claims_of(token) == user.claims()
    assert "Zo\u00eb".encode() in base64.b64decode(token.split(" ")[0])
    assert SsoVerifier("s").verify(token, now=T) == user


def test_integer_id_is_sent_as_text():
    assert (
        claims_of(SsoIssuer("s", allow_weak_secret=True).issue({**ADA, "id": 7}, now=T))["id"]
        == "7"
    )


def test_user_is_immutable():
    user = SsoUser(**ADA)
    with pytest.raises(ValueError):
        user.username = "eve"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"id": None}, "id"),
        ({"id": ""}, "id"),
        ({"id": "   "}, "id"),
        ({"id": True}, "id"),
        ({"username": ""}, "username"),
        ({"email": "ada"}, "email"),
        ({"email": "ada@localhost"}, "email"),
        ({"email": "a b@example.com"}, "email"),
        ({"email": "a@b@example.com"}, "email"),
        ({"picture": "/avatar.png"}, "picture"),
        ({"picture": "javascript:alert(1)"}, "picture"),
        ({"picture": "https://"}, "picture"),
        ({"picture": "https://exa mple.com/a.png"}, "picture"),
        ({"language": "english language"}, "language"),
        ({"nickname": "x"}, "nickname"),
    ],
)
def test_bad_user_input_is_a_clear_value_error(change, field):
    with pytest.raises(ValueError) as info:
        SsoIssuer("s", allow_weak_secret=True).issue({**ADA, **change}, now=T)
    assert field in str(info.value)


@pytest.mark.parametrize("missing", ["id", "username", "email"])
def test_required_fields(missing):
    user = {k: v for k, v in ADA.items() if k != missing}
    with pytest.raises(ValueError, match=missing):
        SsoIssuer("s", allow_weak_secret=True).issue(user, now=T)


def test_user_must_be_a_mapping():
    with pytest.raises(TypeError):
        SsoIssuer("s", allow_weak_secret=True).issue(["id", "42"], now=T)  # type: ignore[arg-type]


def test_negative_time_is_refused():
    with pytest.raises(ValueError):
        SsoIssuer("s", allow_weak_secret=True).issue(ADA, now=-5)
