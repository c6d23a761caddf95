"""The lifecycle cases of the app-side table bite in every language that runs here.

A coordinator that caches ssoData across a resume, does nothing when the content process dies,
lets a fetch for an old document through, or fetches twice for a doubled page-finished must fail
its run in Python, TypeScript and Kotlin alike (``kits_check.py`` on a mutated copy).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bridge.protocol.kits import TOOLS, kits_check, need

ROOT = Path(__file__).resolve().parents[3]
TABLE = json.loads((ROOT / "bridge" / "protocol" / "app-protocol.json").read_text("utf-8"))
PLATFORMS = ROOT / "bridge" / "platforms"
COORDINATORS = {
    "python": ROOT / "harness" / "gcbridge_harness" / "coordinator.py",
    "typescript": PLATFORMS / "react-native" / "src" / "coordinator.ts",
    "kotlin": PLATFORMS
    / "android/gccomments/src/main/java/dev/gcbridge/comments/GcSsoCoordinator.kt",
}
OPTION = {
    "python": "--python-coordinator",
    "typescript": "--ts-coordinator",
    "kotlin": "--kotlin-coordinator",
}

# (language, what the broken app does, original, mutated, a case that must fail)
MUTATIONS = [
    (
        "python",
        "caches ssoData across a resume",
        'self._orphan("fetched-before-resume", conflicts=False)',
        "pass",
        "resume-discards-a-fetch-made-before-it",
    ),
    (
        "python",
        "does nothing when the content process dies",
        'return [{"do": "reload", "reason": "content-process-terminated"}]',
        "return []",
        "content-terminated-reloads-and-signs-in-again",
    ),
    (
        "python",
        "fetches again for a second page-finished",
        'return [_ignore("already-finished")]',
        "pass",
        "second-page-finished-is-ignored",
    ),
    (
        "typescript",
        "caches ssoData across a resume",
        "this.orphan('fetched-before-resume', false);",
        "",
        "resume-discards-a-fetch-made-before-it",
    ),
    (
        "typescript",
        "does nothing when the content process dies",
        "return [{ do: 'reload', reason: 'content-process-terminated' }];",
        "return [];",
        "content-terminated-reloads-and-signs-in-again",
    ),
    (
        "typescript",
        "lets the old document's fetch through after a restore",
        "this.orphan('stale-document', true);\n    this.ready = true;",
        "this.ready = true;",
        "restored-without-page-started-replaces-the-fetch-in-flight",
    ),
    (
        "kotlin",
        "caches ssoData across a resume",
        'orphan("fetched-before-resume", conflicts = false)',
        "Unit",
        "resume-discards-a-fetch-made-before-it",
    ),
    (
        "kotlin",
        "does nothing when the content process dies",
        'return listOf(GcSsoEffect.Reload("content-process-terminated"))',
        "return emptyList()",
        "content-terminated-reloads-and-signs-in-again",
    ),
    (
        "kotlin",
        "fetches again for a second page-finished",
        'if (finished) return listOf(GcSsoEffect.Ignore("already-finished"))',
        "if (false) return emptyList()",
        "second-page-finished-is-ignored",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("language", "what", "original", "mutated", "failing_case"),
    MUTATIONS,
    ids=[f"{m[0]}: {m[1]}" for m in MUTATIONS],
)
def test_a_coordinator_that_mishandles_the_lifecycle_fails(
    tmp_path, language, what, original, mutated, failing_case
):
    need(*TOOLS[language])
    source = COORDINATORS[language].read_text(encoding="utf-8")
    assert source.count(original) == 1, f"the mutation point moved: {original}"
    copy = tmp_path / COORDINATORS[language].name
    copy.write_text(source.replace(original, mutated), encoding="utf-8")
    result = kits_check("--only", language, OPTION[language], str(copy), timeout=900)
    assert result.returncode == 1, result.stdout + result.stderr
    assert failing_case in result.stdout, result.stdout
    total = len(TABLE["cases"])
    assert f"{language} {total}/{total}" not in result.stdout


def test_every_lifecycle_case_is_in_the_table():
    names = {case["name"] for case in TABLE["cases"]}
    assert {m[4] for m in MUTATIONS} <= names
    views = {step.get("view", "a") for case in TABLE["cases"] for step in case["steps"]}
    assert views == {"a", "b"}
    resumes = [
        step["in"]["seconds"]
        for case in TABLE["cases"]
        for step in case["steps"]
        if step["in"]["in"] == "resume"
    ]
    assert 299 in resumes and 300 in resumes, "both sides of the ssoData lifetime"
