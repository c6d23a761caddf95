"""gcbridge.sso against vectors computed by node crypto (tests/vectors/make_vectors.mjs)."""

import json
from pathlib import Path

import pytest

from gcbridge.sso import SsoError, SsoVerifier

VECTORS = json.loads((Path(__file__).parents[1] / "vectors" / "sso.json").read_text("utf-8"))


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
