"""gcbridge.sso against the shipped vectors (gcbridge.vectors), computed by node crypto
(tests/vectors/make_vectors.mjs)."""

import pytest

from gcbridge import vectors
from gcbridge.sso import SsoError, SsoVerifier

VECTORS = vectors.load("sso")


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda c: c["name"])
def test_vector(case):
    verifier = SsoVerifier(case["secret"], max_age=VECTORS["max_age"], leeway=VECTORS["leeway"])
    if "user" in case:
        user = verifier.verify(case["sso_data"], now=case["now"])
        assert user.claims() == case["user"]
    else:
        with pytest.raises(SsoError) as info:
            verifier.verify(case["sso_data"], now=case["now"])
        assert info.value.reason == case["reason"]


def test_issuer_reproduces_the_vector_byte_for_byte():
    from gcbridge.sso import SsoIssuer

    case = VECTORS["cases"][0]
    token = SsoIssuer(case["secret"], allow_weak_secret=True).issue(case["user"], now=1_700_000_000)
    assert token == case["sso_data"]
