"""The app-side protocol table (bridge/protocol/app-protocol.json) and the coordinators held to it.

The table is what every kit's glue delegates to; these tests check the table itself (versioned
with bridge.js, covering every rule, ssoData only ever in the injection), run it against the
Python, TypeScript and Kotlin coordinators as ``make kits-check`` does, and prove the runs bite:
a coordinator with one effect removed or two reordered fails.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from gcbridge_harness.coordinator import SsoCoordinator

from gcbridge.bridge import script
from tests.bridge.protocol.kits import TOOLS, kits_check, need

ROOT = Path(__file__).resolve().parents[3]
PROTOCOL_DIR = ROOT / "bridge" / "protocol"
TABLE = json.loads((PROTOCOL_DIR / "app-protocol.json").read_text(encoding="utf-8"))
PLATFORMS = ROOT / "bridge" / "platforms"
COORDINATORS = {
    "python": ROOT / "harness" / "gcbridge_harness" / "coordinator.py",
    "typescript": PLATFORMS / "react-native" / "src" / "coordinator.ts",
    "kotlin": PLATFORMS
    / "android/gccomments/src/main/java/dev/gcbridge/comments/GcSsoCoordinator.kt",
    "swift": PLATFORMS / "ios" / "GcComments" / "GcSsoCoordinator.swift",
}
sys.path.insert(0, str(PROTOCOL_DIR))
import run_python  # noqa: E402 - the table's Python runner (bridge/protocol)

RULES = {
    # the list of rules -> a case that pins each one
    "no login before gc-ready / gc-loaded": "no-login-before-ready",
    "page-finished on Android": "page-finished-is-a-trigger-on-android",
    "re-inject on every login-state change": "reinject-on-every-login-state-change",
    "gc-sso-auth is not the only trigger": "sso-auth-is-not-the-only-trigger",
    "a stale fetch after a user switch is never injected": (
        "stale-fetch-after-a-user-switch-is-never-injected"
    ),
    "a failed fetch leaves the widget signed out and reports": (
        "failed-fetch-signs-out-and-reports"
    ),
    "conflict: ask, re-inject": "conflict-asks-and-reinjects",
    "conflict: cancel": "conflict-cancelled",
    "foreign or malformed messages": "foreign-and-malformed-messages-do-nothing",
    "unknown names": "unknown-events-are-passed-on-and-nothing-else",
    "relaunch": "relaunch-waits-for-ready-again",
    # the WebView's life after the first load
    "reload: a new document, fresh ssoData": "reload-injects-freshly-fetched-ssoData",
    "restored from the back-forward cache": "restored-from-cache-fetches-fresh-ssoData",
    "content process terminated": "content-terminated-reloads-and-signs-in-again",
    "resumed after N seconds": "resume-after-the-ssoData-lifetime-reinjects",
    "a second page-finished": "second-page-finished-is-ignored",
    "two views": "two-views-each-signed-in-once",
    # signed in as exactly the app's user, and nobody else
    "ready with no app user: signed out": "ready-with-no-app-user-signs-the-widget-out",
    "page-finished with no app user: signed out": (
        "page-finished-with-no-app-user-signs-the-widget-out"
    ),
    "the option keeping the widget's own session": (
        "keep-widget-session-leaves-a-signed-out-widget-alone"
    ),
    "a sign-out before ready is applied at ready": "sign-out-before-ready-is-applied-at-ready",
    "... even keeping the widget's own session": (
        "sign-out-before-ready-lands-even-keeping-widget-sessions"
    ),
    "a user switch before ready: the new user at ready": (
        "user-switch-before-ready-signs-in-the-new-user-at-ready"
    ),
}
INPUTS = {"message", "page-finished", "app-login", "app-logout", "fetch-result"}
INPUTS |= {"conflict-result", "relaunch"}
INPUTS |= {"page-started", "restored", "content-terminated", "resume"}
EFFECTS = {"fetch", "login", "logout", "ask-conflict", "discard", "error", "ignore", "notify"}
EFFECTS |= {"reload"}


def _steps() -> list[tuple[str, dict[str, Any]]]:
    return [(case["name"], step) for case in TABLE["cases"] for step in case["steps"]]


def test_table_is_versioned_with_the_bridge_protocol():
    declared = re.search(r"var PROTOCOL = (\d+);", script().text)
    assert declared is not None
    assert TABLE["protocol"] == int(declared.group(1)) == 1
    # format 2: the setup field keep_widget_session, a ready widget signed out while
    # nobody is signed in to the app; every case's setup names only known fields
    assert TABLE["format"] == 2
    assert set(TABLE["defaults"]) == {"user", "sso", "triggers", "keep_widget_session"}
    assert all(set(case["setup"]) <= set(TABLE["defaults"]) for case in TABLE["cases"])


def test_table_pins_every_rule_with_every_input_and_effect():
    names = [case["name"] for case in TABLE["cases"]]
    assert len(names) == len(set(names)), "case names are unique"
    assert set(RULES.values()) <= set(names)
    assert {step["in"]["in"] for _, step in _steps()} == INPUTS
    assert {effect["do"] for _, step in _steps() for effect in step["out"]} == EFFECTS


def _sso_values(case: dict[str, Any]) -> set[str]:
    return {
        step["in"]["ssoData"]
        for step in case["steps"]
        if isinstance(step["in"].get("ssoData"), str)
    }


def test_sso_data_appears_in_no_effect_but_the_injection():
    for case in TABLE["cases"]:
        secrets = _sso_values(case)
        # in the table ...
        for step in case["steps"]:
            for effect in step["out"]:
                if effect["do"] != "login":
                    assert not any(s in json.dumps(effect) for s in secrets), (case["name"], effect)
        # ... and in what the reference coordinator really returns, parsed events included
        setup = {**TABLE["defaults"], **case["setup"]}
        views: dict[str, SsoCoordinator] = {}
        for step in case["steps"]:
            coordinator = views.setdefault(
                step.get("view", "a"),
                SsoCoordinator(
                    user=setup["user"],
                    sso=setup["sso"],
                    triggers=frozenset(setup["triggers"]),
                    keep_widget_session=setup["keep_widget_session"],
                ),
            )
            for effect in run_python.apply(coordinator, step["in"]):
                if effect["do"] != "login":
                    assert not any(s in json.dumps(effect) for s in secrets), (case["name"], effect)


def test_python_coordinator_passes_every_case():
    cls = run_python.load_coordinator_class(COORDINATORS["python"])
    failures = [run_python.run_case(cls, TABLE, case) for case in TABLE["cases"]]
    assert [f for f in failures if f] == []


def test_coordinators_have_no_platform_imports():
    forbidden = {
        "typescript": ("import", "require("),
        "kotlin": ("import android", "import androidx", "import org.json", "import kotlinx"),
        "swift": ("import UIKit", "import WebKit"),
        "python": ("import gcbridge", "from gcbridge", "playwright"),
    }
    for language, needles in forbidden.items():
        source = COORDINATORS[language].read_text(encoding="utf-8")
        for needle in needles:
            assert needle not in source, (language, needle)


def test_swift_coordinator_has_every_reason_of_the_table():
    swift = COORDINATORS["swift"].read_text(encoding="utf-8")
    reasons = {e["reason"] for _, step in _steps() for e in step["out"] if "reason" in e}
    for reason in reasons | {"app-login", "page-finished", "gc-sso-conflict"}:
        assert f'"{reason}"' in swift, reason


@pytest.mark.slow
@pytest.mark.timeout(1200)  # kotlin: the whole Android kit's compile (and a cold toolchain fetch)
@pytest.mark.xdist_group("rn-kit")  # the kit's npm workspace and the Android toolchain are shared
@pytest.mark.parametrize("language", ["typescript", "kotlin"])
def test_kit_coordinator_passes_every_case(language):
    need(*TOOLS[language])
    result = kits_check("--only", language, timeout=900)
    total = len(TABLE["cases"])
    assert result.returncode == 0, result.stdout + result.stderr
    cases = [
        ln for ln in result.stdout.splitlines() if ln.startswith("kits-check: app-protocol.json")
    ]
    assert cases and f"{language} {total}/{total}" in cases[-1]


# (language, what is mutated, the original text, the mutated text, a case that must fail)
MUTATIONS = [
    (
        "python",
        "failed fetch: the logout removed",
        '[{"do": "logout"}, {"do": "error", "reason": "fetch-failed", "error": error}]',
        '[{"do": "error", "reason": "fetch-failed", "error": error}]',
        "failed-fetch-signs-out-and-reports",
    ),
    (
        "python",
        "notify before the decision",
        'return [*effects, {"do": "notify", "name": name, "event": event}]',
        'return [{"do": "notify", "name": name, "event": event}, *effects]',
        "ready-fetches-and-injects",
    ),
    (
        "python",
        "a ready widget left signed in while the app has no user",
        "return self._no_app_user()",
        'return [_ignore("signed-out")]',
        "ready-with-no-app-user-signs-the-widget-out",
    ),
    (
        "python",
        "a sign-out before ready forgotten",
        "self._logout_owed = True  # applied when the widget is ready",
        "pass",
        "sign-out-before-ready-lands-even-keeping-widget-sessions",
    ),
    (
        "typescript",
        "a ready widget left signed in while the app has no user",
        "return logoutOwed || !keepWidgetSession;",
        "return logoutOwed || !keepWidgetSession && false;",
        "ready-with-no-app-user-signs-the-widget-out",
    ),
    (
        "typescript",
        "failed fetch: the logout removed",
        "return [{ do: 'logout' }, { do: 'error', reason: 'fetch-failed', error }];",
        "return [{ do: 'error', reason: 'fetch-failed', error }];",
        "failed-fetch-signs-out-and-reports",
    ),
    (
        "typescript",
        "notify before the decision",
        "return [...effects, { do: 'notify', name, event: event as { name: string } }];",
        "return [{ do: 'notify', name, event: event as { name: string } }, ...effects];",
        "ready-fetches-and-injects",
    ),
    (
        "kotlin",
        "failed fetch: the logout removed",
        'listOf(GcSsoEffect.Logout, GcSsoEffect.Error("fetch-failed", error))',
        'listOf(GcSsoEffect.Error("fetch-failed", error))',
        "failed-fetch-signs-out-and-reports",
    ),
    (
        "kotlin",
        "a ready widget left signed in while the app has no user",
        "logoutOwed || !keepWidgetSession",
        "logoutOwed || !keepWidgetSession && false",
        "ready-with-no-app-user-signs-the-widget-out",
    ),
    (
        "kotlin",
        "notify before the decision",
        "return effects + GcSsoEffect.Notify(name, event)",
        "return listOf<GcSsoEffect>(GcSsoEffect.Notify(name, event)) + effects",
        "ready-fetches-and-injects",
    ),
]


@pytest.mark.slow
@pytest.mark.xdist_group("rn-kit")
@pytest.mark.parametrize(
    ("language", "what", "original", "mutated", "failing_case"),
    MUTATIONS,
    ids=[f"{m[0]}: {m[1]}" for m in MUTATIONS],
)
def test_a_mutated_coordinator_fails_its_run(
    tmp_path, language, what, original, mutated, failing_case
):
    need(*TOOLS[language])
    source = COORDINATORS[language].read_text(encoding="utf-8")
    assert source.count(original) == 1, f"the mutation point moved: {original}"
    copy = tmp_path / COORDINATORS[language].name
    copy.write_text(source.replace(original, mutated), encoding="utf-8")
    option = {"python": "--python-coordinator", "typescript": "--ts-coordinator"}
    coordinator = option.get(language, "--kotlin-coordinator")
    result = kits_check("--only", language, coordinator, str(copy), timeout=900)
    assert result.returncode == 1, result.stdout + result.stderr
    assert failing_case in result.stdout
    total = len(TABLE["cases"])
    assert f"{language} {total}/{total}" not in result.stdout
