"""sign / verify_signature: vectors, every reason, both window edges, rotation, headers."""

import base64
import json

import httpx
import pytest
from starlette.datastructures import Headers

from gcbridge import vectors
from gcbridge.clock import ManualClock
from gcbridge.errors import GcBridgeError
from gcbridge.webhooks import (
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    WebhookError,
    WebhookVerificationError,
    sign,
    verify_signature,
)
from gcbridge.webhooks.errors import VERIFICATION_REASONS
from gcbridge.webhooks.testing import signed_headers

VECTORS = vectors.load("webhook_signature")  # shipped in the wheel (src/gcbridge/vectors)
SECRET = "whsec_test_secret"
TS = 1_700_000_000_000
BODY = b'{"event_type":"comment.created"}'


def reason(body=BODY, headers=None, secrets=SECRET, now=TS / 1000, **kw):
    with pytest.raises(WebhookVerificationError) as info:
        verify_signature(
            secrets,
            body,
            signed_headers(SECRET, BODY, timestamp_ms=TS) if headers is None else headers,
            now=now,
            **kw,
        )
    assert isinstance(info.value, WebhookError) and isinstance(info.value, GcBridgeError)
    assert info.value.reason in VERIFICATION_REASONS
    return info.value.reason


@pytest.mark.parametrize("case", VECTORS["sign"], ids=lambda c: c["name"])
def test_sign_vector(case):
    body = base64.b64decode(case["body_b64"])
    assert sign(case["secret"], case["timestamp_ms"], body) == case["signature"]


@pytest.mark.parametrize("case", VECTORS["verify"]["cases"], ids=lambda c: c["name"])
def test_verify_vector(case):
    body = base64.b64decode(VECTORS["verify"]["body_b64"])
    secret = VECTORS["verify"]["secret"]
    if case["reason"] is None:
        verify_signature(
            secret, body, case["headers"], tolerance=VECTORS["tolerance"], now=case["now"]
        )
    else:
        with pytest.raises(WebhookVerificationError) as info:
            verify_signature(
                secret, body, case["headers"], tolerance=VECTORS["tolerance"], now=case["now"]
            )
        assert info.value.reason == case["reason"]


def test_signature_is_64_lowercase_hex():
    value = sign(SECRET, TS, BODY)
    assert len(value) == 64 and value == value.lower() and int(value, 16) >= 0


def test_uppercase_hex_signature_is_the_same_signature():
    headers = signed_headers(SECRET, BODY, timestamp_ms=TS)
    headers[SIGNATURE_HEADER] = headers[SIGNATURE_HEADER].upper()
    verify_signature(SECRET, BODY, headers, now=TS / 1000)


@pytest.mark.parametrize(
    ("offset", "expected"),
    [
        (-300.0, None),
        (300.0, None),
        (300.001, "timestamp_too_old"),
        (-300.001, "timestamp_too_new"),
        (86_400, "timestamp_too_old"),
        (-86_400, "timestamp_too_new"),
    ],
)
def test_window_both_directions_with_injected_clock(offset, expected):
    clock = ManualClock(start=TS / 1000)
    clock.set(TS / 1000 + offset)
    if expected is None:
        verify_signature(
            SECRET, BODY, signed_headers(SECRET, BODY, timestamp_ms=TS), now=clock.now()
        )
    else:
        assert reason(now=clock.now()) == expected


def test_custom_tolerance():
    assert reason(now=TS / 1000 + 11, tolerance=10) == "timestamp_too_old"
    verify_signature(
        SECRET,
        BODY,
        signed_headers(SECRET, BODY, timestamp_ms=TS),
        now=TS / 1000 + 10,
        tolerance=10,
    )


def test_timestamp_checked_before_signature():
    headers = signed_headers(SECRET, BODY, timestamp_ms=TS)
    headers[SIGNATURE_HEADER] = "0" * 64
    assert reason(headers=headers, now=TS / 1000 + 1000) == "timestamp_too_old"


def test_default_now_is_the_system_clock():
    import time

    ts = int(time.time() * 1000)
    verify_signature(SECRET, BODY, signed_headers(SECRET, BODY, timestamp_ms=ts))
    with pytest.raises(WebhookVerificationError):
        verify_signature(SECRET, BODY, signed_headers(SECRET, BODY, timestamp_ms=TS))


def test_rotation_accepts_any_listed_secret():
    for current in ("old", "new"):
        verify_signature(
            ["new", "old"], BODY, signed_headers(current, BODY, timestamp_ms=TS), now=TS / 1000
        )
    assert (
        reason(headers=signed_headers("gone", BODY, timestamp_ms=TS), secrets=["new", "old"])
        == "signature_mismatch"
    )


@pytest.mark.parametrize("secrets", ["", [], [""], [None], b""])
def test_no_usable_secret_is_a_programming_error(secrets):
    with pytest.raises(ValueError):
        verify_signature(
            secrets, BODY, signed_headers(SECRET, BODY, timestamp_ms=TS), now=TS / 1000
        )


def test_modified_body_or_reserialized_json():
    assert reason(body=BODY + b" ") == "signature_mismatch"
    reserialized = json.dumps(json.loads(BODY), indent=1).encode()
    assert reason(body=reserialized) == "signature_mismatch"


def test_bytearray_and_memoryview_bodies_are_raw_bytes_too():
    headers = signed_headers(SECRET, BODY, timestamp_ms=TS)
    verify_signature(SECRET, bytearray(BODY), headers, now=TS / 1000)
    verify_signature(SECRET, memoryview(BODY), headers, now=TS / 1000)


@pytest.mark.parametrize("body", [BODY.decode(), json.loads(BODY), None, 3])
def test_non_bytes_body_is_refused_with_a_hint(body):
    with pytest.raises(WebhookVerificationError) as info:
        verify_signature(SECRET, body, signed_headers(SECRET, BODY, timestamp_ms=TS), now=TS / 1000)
    assert info.value.reason == "body_not_bytes"
    assert "raw" in str(info.value)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {TIMESTAMP_HEADER: str(TS)},
        {SIGNATURE_HEADER: "0" * 64},
        {"X-Webhook-Timestamps": str(TS), SIGNATURE_HEADER: "0" * 64},
    ],
)
def test_missing_header(headers):
    assert reason(headers=headers) == "missing_header"


@pytest.mark.parametrize(
    "value",
    ["", "abc", "-1700000000000", "1.7e12", "1700000000000.0", "0x10", "1" * 21, "١٢٣", "1 2"],
)
def test_malformed_timestamp(value):
    headers = signed_headers(SECRET, BODY, timestamp_ms=TS)
    headers[TIMESTAMP_HEADER] = value
    assert reason(headers=headers) == "malformed_timestamp"


@pytest.mark.parametrize(
    "value",
    ["", "0" * 63, "0" * 65, "g" * 64, "sha256=" + "0" * 64, "0" * 10_000, "v1," + "0" * 61],
)
def test_malformed_signature(value):
    headers = signed_headers(SECRET, BODY, timestamp_ms=TS)
    headers[SIGNATURE_HEADER] = value
    assert reason(headers=headers) == "malformed_signature"


def test_header_lookup_is_case_insensitive_for_every_mapping():
    good = signed_headers(SECRET, BODY, timestamp_ms=TS)
    variants = [
        {k.lower(): v for k, v in good.items()},
        {k.upper(): v for k, v in good.items()},
        Headers(headers={k.lower(): v for k, v in good.items()}),
        Headers(raw=[(k.lower().encode(), v.encode()) for k, v in good.items()]),
        httpx.Headers(good),
        {k.encode(): v.encode() for k, v in good.items()},
    ]
    for headers in variants:
        verify_signature(SECRET, BODY, headers, now=TS / 1000)


def test_values_are_stripped_of_surrounding_whitespace():
    good = signed_headers(SECRET, BODY, timestamp_ms=TS)
    verify_signature(SECRET, BODY, {k: f" {v} " for k, v in good.items()}, now=TS / 1000)


def test_conflicting_duplicate_headers_are_malformed():
    good = signed_headers(SECRET, BODY, timestamp_ms=TS)
    raw = [(k.lower().encode(), v.encode()) for k, v in good.items()]
    doubled = Headers(raw=[*raw, (b"x-webhook-signature", b"0" * 64)])
    assert reason(headers=doubled) == "malformed_signature"
    same_twice = Headers(raw=[*raw, (b"x-webhook-signature", good[SIGNATURE_HEADER].encode())])
    verify_signature(SECRET, BODY, same_twice, now=TS / 1000)


def test_errors_never_show_the_secret():
    with pytest.raises(WebhookVerificationError) as info:
        verify_signature(
            "s3cr3t-value", BODY, signed_headers(SECRET, BODY, timestamp_ms=TS), now=TS / 1000
        )
    assert "s3cr3t-value" not in str(info.value) and "s3cr3t-value" not in repr(info.value)


@pytest.mark.parametrize("timestamp", [-1, 1.5, "1", True])
def test_sign_refuses_bad_timestamps(timestamp):
    with pytest.raises(TypeError):
        sign(SECRET, timestamp, BODY)


def test_sign_refuses_text_bodies():
    with pytest.raises(TypeError):
        sign(SECRET, TS, "text")


@pytest.mark.parametrize("value", ["²" * 5, "1700000000000²", "𝟏" * 13, "1" * 20 + " 1"])
def test_non_ascii_or_spaced_digits_are_malformed_timestamps(value):
    headers = signed_headers(SECRET, BODY, timestamp_ms=TS)
    headers[TIMESTAMP_HEADER] = value
    assert reason(headers=headers) == "malformed_timestamp"


def test_twenty_digits_is_still_a_timestamp_shape():
    headers = signed_headers(SECRET, BODY, timestamp_ms=TS)
    headers[TIMESTAMP_HEADER] = "0" * 7 + str(TS)  # 20 characters, leading zeros
    verify_signature(SECRET, BODY, headers, now=TS / 1000)  # signs str(int(...)), as before


@pytest.mark.parametrize(
    "value",
    [
        "00 " + "0" * 61,  # 64 characters, but a space inside: fromhex would skip it
        "\t" + "0" * 62 + "\t",
        "0" * 62 + "\u00e9\u00e9",
        "0" * 63 + "\u0660",
    ],
)
def test_whitespace_or_non_hex_inside_64_characters_is_malformed(value):
    headers = signed_headers(SECRET, BODY, timestamp_ms=TS)
    headers[SIGNATURE_HEADER] = value
    assert reason(headers=headers) == "malformed_signature"


def test_two_casings_of_one_header_in_a_dict_are_ambiguous():
    good = signed_headers(SECRET, BODY, timestamp_ms=TS)
    assert reason(headers={**good, "x-webhook-signature": "0" * 64}) == "malformed_signature"
    assert reason(headers={**good, "x-webhook-timestamp": str(TS + 1)}) == "malformed_timestamp"
    same = {**good, "X-WEBHOOK-SIGNATURE": good[SIGNATURE_HEADER]}
    verify_signature(SECRET, BODY, same, now=TS / 1000)


def test_a_non_text_header_value_is_malformed_even_next_to_a_good_one():
    good = signed_headers(SECRET, BODY, timestamp_ms=TS)
    assert reason(headers={**good, "x-webhook-signature": 42}) == "malformed_signature"
    verify_signature(SECRET, BODY, {**good, 7: "a non-text name is skipped"}, now=TS / 1000)


@pytest.mark.parametrize(
    "secrets",
    [
        SECRET,
        SECRET.encode(),
        (b"old", SECRET.encode()),
        [b"old", SECRET],
        ("old", SECRET),
    ],
)
def test_every_secret_shape_verifies(secrets):
    verify_signature(secrets, BODY, signed_headers(SECRET, BODY, timestamp_ms=TS), now=TS / 1000)


@pytest.mark.parametrize("secrets", ["", b"", (b"",), (b"ok", b""), (), (b"ok", 3)])
def test_empty_or_odd_secrets_are_still_refused(secrets):
    with pytest.raises(ValueError):
        verify_signature(
            secrets, BODY, signed_headers(SECRET, BODY, timestamp_ms=TS), now=TS / 1000
        )


def test_bytes_body_subclass_and_views_verify_the_same_bytes():
    class Body(bytes):
        pass

    headers = {SIGNATURE_HEADER: sign(SECRET, TS, BODY), TIMESTAMP_HEADER: str(TS)}
    for body in (Body(BODY), bytearray(BODY), memoryview(BODY)):
        verify_signature(SECRET, body, headers, now=TS / 1000)
    assert reason(body=bytearray(BODY + b" ")) == "signature_mismatch"


@pytest.mark.parametrize(
    "headers",
    [
        {TIMESTAMP_HEADER: f" {TS} ", SIGNATURE_HEADER: sign(SECRET, TS, BODY).upper()},
        {TIMESTAMP_HEADER.lower(): str(TS), SIGNATURE_HEADER: sign(SECRET, TS, BODY)},
        {TIMESTAMP_HEADER: str(TS).encode(), SIGNATURE_HEADER: sign(SECRET, TS, BODY)},
        {TIMESTAMP_HEADER: str(TS), "X-Other": "1", SIGNATURE_HEADER: sign(SECRET, TS, BODY)},
    ],
)
def test_spaced_uppercase_lowercased_bytes_or_extra_headers_verify(headers):
    verify_signature(SECRET, BODY, headers, now=TS / 1000)


def test_a_timestamp_that_is_not_text_is_malformed():
    headers = {TIMESTAMP_HEADER: TS, SIGNATURE_HEADER: sign(SECRET, TS, BODY)}
    assert reason(headers=headers) == "malformed_timestamp"
