"""verify_signature's per-request fast paths keep the general rules (issue #6, row 2)."""

import pytest

from gcbridge.webhooks import (
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    WebhookVerificationError,
    sign,
    signed_headers,
    verify_signature,
)

SECRET = "whsec_test_secret"
TS = 1_700_000_000_000
BODY = b'{"event_type":"comment.created"}'


def reason(secrets=SECRET, body=BODY, headers=None):
    headers = signed_headers(SECRET, TS, BODY) if headers is None else headers
    with pytest.raises(WebhookVerificationError) as info:
        verify_signature(secrets, body, headers, now=TS / 1000)
    return info.value.reason


@pytest.mark.parametrize("value", ["²" * 5, "1700000000000²", "𝟏" * 13, "1" * 20 + " 1"])
def test_non_ascii_or_spaced_digits_are_malformed_timestamps(value):
    headers = signed_headers(SECRET, TS, BODY)
    headers[TIMESTAMP_HEADER] = value
    assert reason(headers=headers) == "malformed_timestamp"


def test_twenty_digits_is_still_a_timestamp_shape():
    headers = signed_headers(SECRET, TS, BODY)
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
    headers = signed_headers(SECRET, TS, BODY)
    headers[SIGNATURE_HEADER] = value
    assert reason(headers=headers) == "malformed_signature"


def test_two_casings_of_one_header_in_a_dict_are_ambiguous():
    good = signed_headers(SECRET, TS, BODY)
    assert reason(headers={**good, "x-webhook-signature": "0" * 64}) == "malformed_signature"
    assert reason(headers={**good, "x-webhook-timestamp": str(TS + 1)}) == "malformed_timestamp"
    same = {**good, "X-WEBHOOK-SIGNATURE": good[SIGNATURE_HEADER]}
    verify_signature(SECRET, BODY, same, now=TS / 1000)


def test_a_non_text_header_value_is_malformed_even_next_to_a_good_one():
    good = signed_headers(SECRET, TS, BODY)
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
    verify_signature(secrets, BODY, signed_headers(SECRET, TS, BODY), now=TS / 1000)


@pytest.mark.parametrize("secrets", ["", b"", (b"",), (b"ok", b""), (), (b"ok", 3)])
def test_empty_or_odd_secrets_are_still_refused(secrets):
    with pytest.raises(ValueError):
        verify_signature(secrets, BODY, signed_headers(SECRET, TS, BODY), now=TS / 1000)


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
def test_a_dict_of_the_two_headers_and_the_general_scan_agree(headers):
    # The exact-two-canonical-names shortcut and the scan accept the same things.
    verify_signature(SECRET, BODY, headers, now=TS / 1000)


def test_a_dict_of_two_with_a_wrong_value_type_is_still_checked():
    headers = {TIMESTAMP_HEADER: TS, SIGNATURE_HEADER: sign(SECRET, TS, BODY)}
    assert reason(headers=headers) == "malformed_timestamp"
