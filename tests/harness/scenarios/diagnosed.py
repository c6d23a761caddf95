"""Run a harness scenario that must fail and read what the report says about it."""

from __future__ import annotations

from typing import Any

import pytest
from gcbridge_harness.report.diagnosis import diagnose
from gcbridge_harness.report.reporting import APPS


def diagnosed_failure(request: pytest.FixtureRequest, scenario: Any, *args: Any) -> list[str]:
    """``scenario(*args)`` fails; the diagnosis lines of its apps (closed without their checks)."""
    with pytest.raises(AssertionError) as failure:
        scenario(*args)
    apps: list[Any] = request.node.stash[APPS]
    lines = [line for app in apps for line in diagnose(app, f"E   {failure.value}")]
    for app in apps:
        app.close()  # failed on purpose: no end-of-scenario checks
    return lines
