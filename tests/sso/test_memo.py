"""The issuer's and verifier's memos of recent users never change an outcome."""

import pytest

from gcbridge.sso import SsoExpired, SsoInvalid, SsoIssuer, SsoUser, SsoVerifier
from gcbridge.sso.format import assemble, encode_message

SECRET = "memo-secret"
NOW = 1_700_000_000
USER = {"id": "42", "username": "ada", "email": "ada@example.com"}


def test_same_user_twice_gives_tokens_that_verify_to_equal_users():
    issuer, verifier = SsoIssuer(SECRET, allow_weak_secret=True), SsoVerifier(SECRET)
    first = verifier.verify(issuer.issue(USER, now=NOW), now=NOW)
    second = verifier.verify(issuer.issue(dict(USER), now=NOW + 1), now=NOW + 1)
    assert first == second == SsoUser(**USER)


@pytest.mark.parametrize("lookalike", [True, 1.0])
def test_an_equal_but_refused_value_is_not_served_from_the_memo(lookalike):
    issuer = SsoIssuer(SECRET, allow_weak_secret=True)
    issuer.issue({**USER, "id": 1}, now=NOW)  # int ids are accepted and remembered
    assert lookalike == 1
    with pytest.raises(ValueError):
        issuer.issue({**USER, "id": lookalike}, now=NOW)


def test_invalid_users_raise_every_time():
    issuer = SsoIssuer(SECRET, allow_weak_secret=True)
    for _ in range(3):
        with pytest.raises(ValueError):
            issuer.issue({**USER, "email": "not-an-address"}, now=NOW)


def test_issuing_from_an_sso_user_or_a_mapping_matches_the_dict():
    class Claims(dict):
        pass

    issuer = SsoIssuer(SECRET, allow_weak_secret=True)
    expected = issuer.issue(USER, now=NOW)
    assert issuer.issue(SsoUser(**USER), now=NOW) == expected
    assert issuer.issue(Claims(USER), now=NOW) == expected
    assert issuer.issue({**USER, "bio": None}, now=NOW) == expected


def test_an_sso_user_subclass_keeps_its_own_claims():
    class Tagged(SsoUser):
        def claims(self) -> dict[str, str]:
            return {**super().claims(), "username": "tagged"}

    token = SsoIssuer(SECRET, allow_weak_secret=True).issue(Tagged(**USER), now=NOW)
    assert SsoVerifier(SECRET).verify(token, now=NOW).username == "tagged"


def test_a_remembered_message_still_needs_its_signature_and_age():
    issuer, verifier = SsoIssuer(SECRET, allow_weak_secret=True), SsoVerifier(SECRET)
    verifier.verify(issuer.issue(USER, now=NOW), now=NOW)  # the message is now remembered
    forged = assemble("other-secret", encode_message(USER), NOW)
    with pytest.raises(SsoInvalid) as invalid:
        verifier.verify(forged, now=NOW)
    assert invalid.value.reason == "bad_signature"
    with pytest.raises(SsoExpired) as expired:
        verifier.verify(issuer.issue(USER, now=NOW), now=NOW + 10_000)
    assert expired.value.reason == "expired"


def test_a_signed_bad_user_is_refused_every_time():
    verifier = SsoVerifier(SECRET)
    token = assemble(SECRET, encode_message({**USER, "email": "nope"}), NOW)
    for _ in range(3):
        with pytest.raises(SsoInvalid) as info:
            verifier.verify(token, now=NOW)
        assert info.value.reason == "bad_user"
