"""Hypothesis: whatever arrives, the verifier only ever raises SsoError."""

import base64
import contextlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcbridge.sso import SsoError, SsoVerifier
from gcbridge.sso.format import assemble

SECRET = "sso-secret"
T = 1_700_000_000
VERIFIER = SsoVerifier(SECRET)


def check(sso_data):
    with contextlib.suppress(SsoError):
        VERIFIER.verify(sso_data, now=T)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_arbitrary_text(text):
    check(text)


@settings(max_examples=150)
@given(st.binary(max_size=300))
def test_signed_arbitrary_message_bytes(raw):
    # Correctly signed tokens reach the decoding stages (base64, UTF-8, JSON, user).
    check(assemble(SECRET, base64.b64encode(raw).decode(), T))


scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
json_values = (
    scalars
    | st.lists(scalars, max_size=3)
    | st.sampled_from(["ada@example.com", "https://example.com/a.png", "fr-FR", "42", ""])
)


@settings(max_examples=150)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "id": json_values,
            "username": json_values,
            "email": json_values,
            "picture": json_values,
            "language": json_values,
            "bio": json_values,
        },
    )
)
def test_signed_arbitrary_user_objects(obj):
    import json

    message = base64.b64encode(json.dumps(obj).encode()).decode()
    check(assemble(SECRET, message, T))


@settings(max_examples=100)
@given(
    st.lists(st.sampled_from(["YQ==", " ", "0" * 40, "1700000000", "=", "\u00a0", "-"]), max_size=8)
)
def test_near_miss_structures(pieces):
    check("".join(pieces))
