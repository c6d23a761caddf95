"""The React Native kit type-checks with tsc against react-native-webview's and react-native's types

The dependencies come from the npm registry with ``npm ci`` (the kit's package-lock.json), into a
cache directory keyed by the lock file, so that only the first run on a machine pays for it.
Skipped, with the reason, only where npm is absent.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

KIT = Path(__file__).resolve().parents[4] / "bridge" / "platforms" / "react-native"

# the kit's npm workspace is one directory shared by every test that builds it
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("rn-kit")]


def _cache_root() -> Path:
    explicit = os.environ.get("GC_BRIDGE_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gc-bridge"


@pytest.fixture(scope="module")
def kit_workspace() -> Path:
    """A copy of the kit with node_modules installed by ``npm ci`` (cached across runs)."""
    npm = shutil.which("npm")
    node = shutil.which("node")
    if npm is None or node is None:
        reason = "npm/node not found: the React Native kit's tsc check needs them"
        reason += " (apt-get install npm)"
        print(f"SKIP: {reason}")
        pytest.skip(reason)
    lock = (KIT / "package-lock.json").read_bytes() + (KIT / "package.json").read_bytes()
    work = _cache_root() / f"rn-kit-{hashlib.sha256(lock).hexdigest()[:16]}"
    stamp = work / "node_modules" / ".gc-bridge-installed"
    if not stamp.is_file():
        work.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(KIT / name, work / name)
        subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"],
            cwd=work,
            check=True,
            capture_output=True,
            timeout=600,
        )
        stamp.write_text("ok\n")
    # Always the current sources and config.
    shutil.rmtree(work / "src", ignore_errors=True)
    shutil.copytree(KIT / "src", work / "src")
    shutil.copy2(KIT / "tsconfig.json", work / "tsconfig.json")
    return work


# Type-checked in the same tsc run as the kit: proves the check sees react-native-webview's
# real prop types (a string where a boolean prop belongs must fail) without a second run.
# (An unknown prop is not a good canary: WebView<P> is generic and infers it.)
CANARY = """import { WebView } from 'react-native-webview';

export function Canary() {
  return <WebView source={{ uri: 'https://example.com' }} domStorageEnabled="yes" />;
}
"""


@pytest.fixture(scope="module")
def tsc_result(kit_workspace: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node is not None
    (kit_workspace / "src" / "zzCanary.tsx").write_text(CANARY)
    tsc = kit_workspace / "node_modules" / "typescript" / "bin" / "tsc"
    return subprocess.run(
        [node, str(tsc), "--noEmit", "--pretty", "false", "-p", "."],
        cwd=kit_workspace,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _errors(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stdout.splitlines() if ": error TS" in line]


def test_kit_type_checks(tsc_result):
    kit_errors = [e for e in _errors(tsc_result) if not e.startswith("src/zzCanary.tsx")]
    assert kit_errors == [], tsc_result.stdout + tsc_result.stderr


def test_tsc_rejects_a_mistyped_webview_prop(tsc_result):
    assert tsc_result.returncode != 0
    assert any(e.startswith("src/zzCanary.tsx") for e in _errors(tsc_result)), tsc_result.stdout


def test_kit_uses_the_documented_webview_props():
    source = (KIT / "src" / "GcCommentsWebView.tsx").read_text()
    for needle in (
        "injectedJavaScriptBeforeContentLoaded={BRIDGE_SCRIPT}",
        "injectedJavaScript={BRIDGE_SCRIPT}",
        "onMessage={onMessage}",
        "domStorageEnabled",
        "javaScriptEnabled",
        "injectJavaScript(",
        "originOf(url) === widgetOrigin",
        # every decision goes through the pure coordinator
        "c.message(data, fromWidget)",
        # a new document is the lifecycle script's to say (onLoadStart fires for same-document
        # navigations too); page finished a trigger on Android; only background is time away
        "lifecycleEffects(c, data)",
        "onLoad={onLoad}",
        "triggers: triggersFor(Platform.OS)",
        "awayAfter(state, since, clock())",
        "callbacks.current.now ?? monotonicNow",
        "keepWidgetSession: props.keepWidgetSession ?? false",
    ):
        assert needle in source, needle
    assert "onLoadStart" not in source.split("export const GcCommentsWebView", 1)[1]
    assert "?? Date.now" not in source, "a wall clock for the time away"


def test_node_modules_stay_out_of_git():
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", str(KIT / "node_modules" / "x")], cwd=KIT
    )
    assert ignored.returncode == 0
