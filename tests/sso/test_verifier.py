"""SsoVerifier: the validity window, tampering, keys, and every refusal reason."""

import base64
import json

import pytest

from gcbridge.clock import ManualClock
from gcbridge.errors import GcBridgeError
from gcbridge.sso import SsoError, SsoExpired, SsoInvalid, SsoIssuer, SsoUser, SsoVerifier
from gcbridge.sso.format import assemble

SECRET = "sso-secret"
T = 1_700_000_000
ADA = {"id": "42", "username": "ada", "email": "ada@example.com"}


def token(now=T, secret=SECRET, user=ADA):
    return SsoIssuer(secret, allow_weak_secret=True).issue(user, now=now)


def reason_of(sso_data, now=T, secrets=SECRET, **kw):
    with pytest.raises(SsoError) as info:
        SsoVerifier(secrets, **kw).verify(sso_data, now=now)
    return info.value


@pytest.mark.parametrize("age", [0, 1, 299, 300, 301, 329, 330])
def test_accepted_within_max_age_plus_leeway(age):
    assert SsoVerifier(SECRET).verify(token(), now=T + age) == SsoUser(**ADA)


@pytest.mark.parametrize("age", [331, 330.001, 10_000])
def test_expired_after_max_age_plus_leeway(age):
    exc = reason_of(token(), now=T + age)
    assert isinstance(exc, SsoExpired)
    assert exc.reason == "expired"
    assert exc.issued_at == T


@pytest.mark.parametrize("ahead", [1, 29, 30])
def test_leeway_for_a_clock_behind_the_issuer(ahead):
    assert SsoVerifier(SECRET).verify(token(), now=T - ahead).username == "ada"


@pytest.mark.parametrize("ahead", [30.5, 31, 3600])
def test_issued_in_future_beyond_leeway(ahead):
    exc = reason_of(token(), now=T - ahead)
    assert isinstance(exc, SsoExpired)
    assert exc.reason == "issued_in_future"


def test_custom_window():
    assert SsoVerifier(SECRET, max_age=10, leeway=0).verify(token(), now=T + 10)
    assert reason_of(token(), now=T + 11, max_age=10, leeway=0).reason == "expired"
    assert reason_of(token(), now=T - 1, max_age=10, leeway=0).reason == "issued_in_future"


def test_injected_clock_is_used_when_now_is_omitted():
    clock = ManualClock(start=T)
    verifier = SsoVerifier(SECRET, clock=clock)
    issued = SsoIssuer(SECRET, clock=clock, allow_weak_secret=True).issue(ADA)
    clock.advance(330)
    assert verifier.verify(issued).id == "42"
    clock.advance(1)
    with pytest.raises(SsoExpired):
        verifier.verify(issued)


def test_issuer_truncates_fractional_time():
    assert token(now=T + 0.999).endswith(f" {T}")


@pytest.mark.parametrize("part", [0, 1, 2])
def test_tampering_any_part_is_bad_signature(part):
    fields = token().split(" ")
    if part == 0:
        other = (
            SsoIssuer(SECRET, allow_weak_secret=True).issue({**ADA, "id": "1"}, now=T).split(" ")[0]
        )
        fields[0] = other
    elif part == 1:
        fields[1] = ("1" if fields[1][0] == "0" else "0") + fields[1][1:]
    else:
        fields[2] = str(T - 1)
    assert reason_of(" ".join(fields)).reason == "bad_signature"


def test_expired_token_with_bad_signature_says_bad_signature():
    fields = token().split(" ")
    fields[1] = "0" * 40
    assert reason_of(" ".join(fields), now=T + 10_000).reason == "bad_signature"


def test_wrong_secret():
    assert reason_of(token(secret="other")).reason == "bad_signature"


def test_rotation_accepts_old_and_new_secret():
    verifier = SsoVerifier(["new-secret", SECRET])
    assert verifier.verify(token(secret=SECRET), now=T).id == "42"
    assert verifier.verify(token(secret="new-secret"), now=T).id == "42"
    with pytest.raises(SsoInvalid):
        verifier.verify(token(secret="retired"), now=T)


def test_bytes_secret_equals_its_utf8_text():
    assert SsoVerifier("clé".encode()).verify(token(secret="clé"), now=T).id == "42"


def signed(message, ts=T):
    return assemble(SECRET, message, ts)


def b64(text):
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


@pytest.mark.parametrize(
    ("sso_data", "reason"),
    [
        ("", "malformed"),
        ("just-one-field", "malformed"),
        ("a b", "malformed"),
        ("a b c d", "malformed"),
        (" a b c", "malformed"),
        ("a\tb\tc", "malformed"),
        (None, "malformed"),
        (b"a b c", "malformed"),
        (12, "malformed"),
        ("x" * 20_000, "malformed"),
        ("a!b " + "0" * 40 + f" {T}", "bad_base64"),
        ("YQ== " + "0" * 40 + " -1", "bad_timestamp"),
        ("YQ== " + "0" * 40 + " 1.5", "bad_timestamp"),
        ("YQ== " + "0" * 40 + " ١٢٣", "bad_timestamp"),
        ("YQ== " + "0" * 40 + " 9999999999999", "bad_timestamp"),
        ("YQ== " + "0" * 39 + f" {T}", "bad_signature"),
        ("YQ== " + "g" * 40 + f" {T}", "bad_signature"),
        (signed("YQ="), "bad_base64"),
        (signed("=YQ="), "bad_base64"),
        (signed(b64("no json")), "bad_json"),
        (signed(b64(b"\xff\xfe")), "bad_json"),
        (signed(b64("null")), "bad_json"),
        (signed(b64('"text"')), "bad_json"),
        (signed(b64("[" * 100_00)), "bad_json"),
        (signed(b64("{}")), "bad_user"),
        (signed(b64(json.dumps({**ADA, "email": "x"}))), "bad_user"),
        (signed(b64(json.dumps({**ADA, "id": ""}))), "bad_user"),
        (signed(b64(json.dumps({**ADA, "id": None}))), "bad_user"),
        (signed(b64(json.dumps({**ADA, "username": ["a"]}))), "bad_user"),
        (signed(b64(json.dumps({**ADA, "picture": "ftp://x/y"}))), "bad_user"),
        (signed(b64(json.dumps({**ADA, "admin": True}))), "bad_user"),
    ],
)
def test_every_bad_input_has_its_reason(sso_data, reason):
    exc = reason_of(sso_data)
    assert isinstance(exc, SsoInvalid)
    assert isinstance(exc, GcBridgeError)
    assert exc.reason == reason


def test_error_messages_and_reprs_never_show_secrets_or_tokens():
    secret = "top-secret-value"
    bad = SsoIssuer(secret, allow_weak_secret=True).issue(ADA, now=T)
    verifier = SsoVerifier(["other-secret", secret])
    assert secret not in repr(verifier) and "other-secret" not in repr(verifier)
    assert secret not in repr(SsoIssuer(secret, allow_weak_secret=True))
    for now in (T + 10_000, T - 10_000):
        with pytest.raises(SsoExpired) as info:
            verifier.verify(bad, now=now)
        assert secret not in str(info.value) and bad.split()[1] not in str(info.value)
    with pytest.raises(SsoInvalid) as info:
        SsoVerifier("nope").verify(bad, now=T)
    assert bad.split()[0] not in str(info.value) and bad.split()[1] not in str(info.value)


@pytest.mark.parametrize("kw", [{"max_age": -1}, {"leeway": -1}])
def test_negative_window_is_refused(kw):
    with pytest.raises(ValueError):
        SsoVerifier(SECRET, **kw)


@pytest.mark.parametrize("secrets", ["", b"", [], [""]])
def test_empty_secrets_are_refused(secrets):
    with pytest.raises(ValueError):
        SsoVerifier(secrets)
