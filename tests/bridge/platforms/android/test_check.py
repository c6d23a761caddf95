"""The Android kit compiled against the platform, and its JVM unit tests biting.

``make kits-check`` (bridge/protocol/kits_check.py, android_check.py) compiles every file of
``gccomments/src/main`` with a Kotlin compiler from Maven Central against android-all (the real
Android classes) and an androidx.webkit stub, runs the kit's JUnit tests, and ends by naming
what it compiled and ran per language and what this machine cannot run (Swift). These tests
check that report, that a broken policy turns the run red, and the one-adapter rule for
androidx.webkit.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.bridge.protocol.kits import kits_check, need

ROOT = Path(__file__).resolve().parents[4]
ANDROID = ROOT / "bridge" / "platforms" / "android"
KIT = ANDROID / "gccomments" / "src" / "main" / "java" / "dev" / "gcbridge" / "comments"
POM = ANDROID / "check" / "pom.xml"


def _pom(name: str) -> str:
    found = re.search(rf"<{re.escape(name)}>([^<]+)</", POM.read_text())
    assert found is not None, name
    return found.group(1)


@pytest.mark.slow
@pytest.mark.timeout(1200)  # a cold cache: ~430 MB fetched, the kit compiled (minutes when busy)
@pytest.mark.xdist_group("rn-kit")  # shares the kit's npm workspace and the Android toolchain
def test_kits_check_names_what_it_compiled_and_ran_and_what_it_could_not():
    need("java", "javac", "mvn", "node")
    result = kits_check()
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    lines = result.stdout.splitlines()
    kotlin = next(line for line in lines if line.startswith("kits-check: kotlin:"))
    files = len(list(KIT.glob("*.kt")))
    assert f"the whole Android kit ({files} files" in kotlin
    assert f"Kotlin {_pom('kotlin.version')}" in kotlin
    assert f"Android API {_pom('android.api')}" in kotlin
    assert "androidx.webkit stub" in kotlin
    junit = re.search(r"JVM unit tests \(JUnit [\d.]+\) (\d+)/(\d+) passed", kotlin)
    assert junit is not None and junit.group(1) == junit.group(2) and int(junit.group(1)) >= 29
    robo = re.search(r"on Robolectric [\d.]+ \(offline, SDK \d+\) (\d+)/(\d+) passed", kotlin)
    assert robo is not None and robo.group(1) == robo.group(2) and int(robo.group(1)) >= 6
    typescript = next(line for line in lines if line.startswith("kits-check: typescript:"))
    node = re.search(r"node tests \(test/\*\.test\.cjs\) (\d+)/(\d+) passed", typescript)
    assert node is not None and node.group(1) == node.group(2) and int(node.group(1)) >= 20
    assert lines[-1].startswith("kits-check: swift: NOT compiled or run on this machine")


# (kit file, what breaks, the original text, the broken text, the JUnit test that must fail)
MUTATIONS = [
    (
        "GcWebkit.kt",
        "a message read without checking its type",
        "if (message.type == WebMessageCompat.TYPE_STRING) message.data.orEmpty() else null",
        "message.data.orEmpty()",
        "anArrayBufferIsNotReadAndDoesNotThrow",
    ),
    (
        "GcWebkit.kt",
        "a refused origin rule not caught",
        "} catch (e: IllegalArgumentException) {",
        "} catch (e: UnsupportedOperationException) {",
        "anOriginRuleRefusedFallsBackInsteadOfCrashing",
    ),
    (
        "GcCrashGuard.kt",
        "no bound on recoveries",
        "if (recoveries.size >= limit) return false",
        "if (recoveries.size > limit * 100) return false",
        "aPageThatKillsItsProcessEveryTimeEndsInTheErrorView",
    ),
    (
        "GcCrashGuard.kt",
        "recovering in the background",
        "if (!foreground || !visible) return GcRecovery.DEFER",
        "if (!visible) return GcRecovery.DEFER",
        "recoveryWaitsForTheForegroundAndTheScreen",
    ),
    (
        "GcLinkPolicy.kt",
        "mailto: / tel: / intent: swallowed",
        "if (scheme in OS_SCHEMES) return if (hasGesture) GcLinkAction.OS else GcLinkAction.BLOCK",
        "if (scheme in OS_SCHEMES) return GcLinkAction.BLOCK",
        "mailTelAndIntentGoToTheOsOnATap",
    ),
    (
        "GcCommentsController.kt",
        "the app's settings lost on a replaced WebView (Robolectric)",
        "GcWebViewSettings.copy(dead, fresh)",
        "Unit",
        "aDeadRenderProcessIsReplacedInPlaceWithTheAppsSettings",
    ),
    (
        "GcWebViewHost.kt",
        "a replaced WebView loaded while paused (Robolectric)",
        "GcRecoveryPolicy.decide(options.crashGuard, clock(), isForeground(), view.isShown)",
        "GcRecoveryPolicy.decide(options.crashGuard, clock(), true, view.isShown)",
        "whilePausedTheReplacementWaitsForResume",
    ),
    (
        "GcChromePolicy.kt",
        "confirm() answered false on OK",
        "GcDialogAnswer(confirmed = true, text = if",
        "GcDialogAnswer(confirmed = kind == GcDialogKind.ALERT, text = if",
        "okConfirmsCancelDoesNot",
    ),
]


@pytest.mark.slow
@pytest.mark.timeout(1200)  # one whole-kit compile of the mutated sources
@pytest.mark.xdist_group("rn-kit")
def test_a_broken_policy_fails_the_kits_jvm_tests(tmp_path):
    """All mutations compiled at once (one compile): each one's own test must fail."""
    need("java", "javac", "mvn")
    copies: dict[str, str] = {}
    for name, what, original, broken, _ in MUTATIONS:
        source = copies.get(name) or (KIT / name).read_text(encoding="utf-8")
        assert source.count(original) == 1, f"the mutation point moved: {name}: {what}"
        copies[name] = source.replace(original, broken)
    args = ["--only", "kotlin"]
    for name, text in copies.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        args += ["--kotlin-replace", f"{name}={tmp_path / name}"]
    result = kits_check(*args)
    assert result.returncode == 1, result.stdout[-4000:] + result.stderr[-2000:]
    assert "kotlinc main failed" not in result.stdout, result.stdout[-4000:]
    for _, what, _, _, failing in MUTATIONS:
        assert re.search(rf"^\d+\) {failing}\(", result.stdout, re.M), (what, result.stdout[-4000:])
    kotlin = next(ln for ln in result.stdout.splitlines() if ln.startswith("kits-check: kotlin:"))
    junit = re.search(r"\(JUnit [\d.]+\) (\d+)/(\d+) passed", kotlin)
    assert junit is not None and int(junit.group(1)) < int(junit.group(2))


def test_androidx_webkit_is_used_by_one_adapter_compiled_against_a_stub():
    importers = sorted(p.name for p in KIT.glob("*.kt") if "import androidx." in p.read_text())
    assert importers == ["GcWebkit.kt"]
    stubs = ANDROID / "check" / "stubs" / "androidx" / "webkit"
    assert {p.name for p in stubs.glob("*.java")} >= {
        "WebViewCompat.java",
        "WebViewFeature.java",
        "WebMessageCompat.java",
    }
    assert not list((ANDROID / "gccomments").rglob("*.java")), "no stub in the kit's sources"
    readme = (ANDROID / "README.md").read_text()
    assert "GcWebkit.kt" in readme and "stub" in readme


def test_the_kit_reads_a_message_only_after_checking_its_type():
    adapter = (KIT / "GcWebkit.kt").read_text()
    assert adapter.count("message.data") == 1
    assert "message.type == WebMessageCompat.TYPE_STRING" in adapter
    controller = (KIT / "GcCommentsController.kt").read_text()
    assert "message.data" not in controller
    assert "GcWebkit.addMessageListener" in controller


def test_the_toolchain_is_maven_not_debians_kotlin():
    deps = (ROOT / ".ci" / "system_deps.py").read_text()
    assert '"maven"' in deps and '"kotlin"' not in deps


def test_the_compose_module_wraps_the_controller_and_is_declared():
    compose = ANDROID / "gccomments-compose"
    source = (compose / "src/main/java/dev/gcbridge/comments/compose/GcComments.kt").read_text()
    for needle in (
        "@Composable\nfun GcComments(",
        "AndroidView(",
        "GcCommentsController(",
        "Lifecycle.Event.ON_PAUSE -> controller.onPause()",
        "Lifecycle.Event.ON_RESUME -> controller.onResume()",
        "controller.destroy()",
        "controller.appLoginStateChanged(appUser)",
        "rememberLauncherForActivityResult",
    ):
        assert needle in source, needle
    build = (compose / "build.gradle.kts").read_text()
    assert 'api(project(":gccomments"))' in build and "compose = true" in build
    settings = (ANDROID / "settings.gradle.kts").read_text()
    assert 'include(":gccomments-compose")' in settings
    assert "GcComments(" in (ANDROID / "README.md").read_text()
