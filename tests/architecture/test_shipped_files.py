"""What the wheel ships is never taken for a test by a JavaScript test runner.

A project holds its virtualenv (``.venv/lib/.../site-packages/gcbridge/...``), and a bare
``node --test`` (or jest, vitest, mocha) there looks through every directory: a shipped
script named like a test would run as one of the project's tests.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = (ROOT / "src" / "gcbridge", ROOT / "harness" / "gcbridge_harness")

_SCRIPT = r"\.[cm]?[jt]sx?$"
TEST_NAMES = re.compile(
    # node --test: *.test.js, *-test.js, *_test.js, test-*.js, test.js; jest and vitest:
    # *.spec.js as well
    rf"(^test([-_.].*)?{_SCRIPT})|([-_.](test|spec){_SCRIPT})"
)
TEST_DIRS = frozenset({"test", "tests", "__tests__"})
"""Directories whose scripts node --test (test/) and jest (__tests__/) run, whatever their name."""


def taken_for_a_test(relative: Path) -> bool:
    """Whether a JavaScript test runner would run the file at ``relative``."""
    if not re.search(_SCRIPT, relative.name):
        return False
    return bool(TEST_NAMES.search(relative.name)) or bool(TEST_DIRS & set(relative.parts[:-1]))


@pytest.mark.parametrize(
    "name,taken",
    [
        ("test-events.js", True),
        ("events.test.mjs", True),
        ("events-test.js", True),
        ("events_test.cjs", True),
        ("test.js", True),
        ("events.spec.ts", True),
        ("test/events.js", True),
        ("__tests__/events.js", True),
        ("event-sender.js", False),
        ("attestation.js", False),
        ("contest-results.js", False),
        ("test-events.css", False),
    ],
)
def test_the_rule_matches_the_runners_patterns(name: str, taken: bool) -> None:
    assert taken_for_a_test(Path(name)) is taken


def test_no_shipped_script_is_named_like_a_test() -> None:
    found = [
        str(path.relative_to(ROOT))
        for package in SHIPPED
        for path in package.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and taken_for_a_test(path.relative_to(package))
    ]
    assert found == []
