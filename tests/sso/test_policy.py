"""sso_age_ok / sso_age_verdict: a table and a property."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcbridge.sso import sso_age_ok, sso_age_verdict


@pytest.mark.parametrize(
    ("age", "verdict"),
    [(-31, "issued_in_future"), (-30, "ok"), (0, "ok"), (300, "ok"), (330, "ok"), (331, "expired")],
)
def test_table(age, verdict):
    assert sso_age_verdict(1000, 1000 + age, 300, 30) == verdict
    assert sso_age_ok(1000, 1000 + age, 300, 30) is (verdict == "ok")


@given(
    issued=st.integers(0, 2**40),
    age=st.floats(-1e6, 1e6, allow_nan=False),
    max_age=st.integers(0, 10_000),
    leeway=st.integers(0, 600),
)
def test_ok_exactly_inside_the_closed_window(issued, age, max_age, leeway):
    now = issued + age
    inside = -leeway <= now - issued <= max_age + leeway
    assert sso_age_ok(issued, now, max_age, leeway) is inside
