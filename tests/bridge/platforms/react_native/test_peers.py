"""The React Native kit type-checks against both ends of its react-native-webview peer range.

The floor is the first release whose ``onMessage`` ``nativeEvent.url`` names the frame that
posted (react-native-webview #3609, first released in 13.13.1: iOS ``frameInfo.request.URL``,
Android the WebMessageListener's ``sourceOrigin``); before it the URL was the top page's, so the
kit's sender check could not tell an iframe from the widget. The other end is the newest
release line (16.x). ``tests/bridge/platforms/react_native/test_typecheck.py`` checks the
kit's own pinned version, between them.

Each end is an npm workspace of the kit's own dev dependencies with react-native-webview
pinned to that end, installed once into the cache (``~/.cache/gc-bridge`` or
``$GC_BRIDGE_CACHE``, keyed by the exact versions), then ``tsc --noEmit`` runs on the kit's
current sources with a canary that must fail. Skipped, with the reason, only where npm is absent.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

KIT = Path(__file__).resolve().parents[4] / "bridge" / "platforms" / "react-native"
PACKAGE = json.loads((KIT / "package.json").read_text(encoding="utf-8"))

PEER_FLOOR = "13.13.1"
"""The first react-native-webview whose onMessage URL is the sending frame's (#3609)."""
PEER_NEWEST = "16.0.0"
"""The newest release (16.x: the New Architecture only)."""

# each end's npm workspace is one directory shared by the tests that use it
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("rn-kit-peers")]

# Type-checked in the same run as the kit: a string where a boolean prop belongs must fail, so
# the run sees that version's real prop types.
CANARY = """import { WebView } from 'react-native-webview';

export function Canary() {
  return <WebView source={{ uri: 'https://example.com' }} domStorageEnabled="yes" />;
}
"""


def _cache_root() -> Path:
    explicit = os.environ.get("GC_BRIDGE_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gc-bridge"


def _manifest(webview: str) -> dict[str, object]:
    """The kit's dev dependencies, react-native-webview pinned to ``webview``."""
    dev = dict(PACKAGE["devDependencies"])
    dev["react-native-webview"] = webview
    return {"name": "gc-kit-peer-check", "private": True, "devDependencies": dev}


def _workspace(webview: str) -> Path:
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        reason = "npm/node not found: the kit's tsc check needs them (apt-get install npm)"
        print(f"SKIP: {reason}")
        pytest.skip(reason)
    manifest = json.dumps(_manifest(webview), indent=2, sort_keys=True)
    key = hashlib.sha256(manifest.encode()).hexdigest()[:16]
    work = _cache_root() / f"rn-kit-peer-{webview}-{key}"
    stamp = work / "node_modules" / ".gc-bridge-installed"
    if not stamp.is_file():
        work.mkdir(parents=True, exist_ok=True)
        (work / "package.json").write_text(manifest + "\n", encoding="utf-8")
        subprocess.run(
            [npm, "install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"],
            cwd=work,
            check=True,
            capture_output=True,
            timeout=900,
        )
        stamp.write_text("ok\n")
    return work


def _tsc(work: Path) -> subprocess.CompletedProcess[str]:
    shutil.rmtree(work / "src", ignore_errors=True)
    shutil.copytree(KIT / "src", work / "src")
    shutil.copy2(KIT / "tsconfig.json", work / "tsconfig.json")
    (work / "src" / "zzCanary.tsx").write_text(CANARY, encoding="utf-8")
    node = shutil.which("node")
    assert node is not None
    tsc = work / "node_modules" / "typescript" / "bin" / "tsc"
    return subprocess.run(
        [node, str(tsc), "--noEmit", "--pretty", "false", "-p", "."],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_peer_range_starts_where_the_frame_origin_can_be_trusted():
    assert PACKAGE["peerDependencies"]["react-native-webview"] == f">={PEER_FLOOR}"
    lock = json.loads((KIT / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"][""]["peerDependencies"] == PACKAGE["peerDependencies"]
    # the kit's own pinned version lies inside the range
    pinned = PACKAGE["devDependencies"]["react-native-webview"]
    as_tuple = lambda v: tuple(int(p) for p in v.split("."))  # noqa: E731
    assert as_tuple(PEER_FLOOR) <= as_tuple(pinned) <= as_tuple(PEER_NEWEST)


@pytest.mark.parametrize("webview", [PEER_FLOOR, PEER_NEWEST])
def test_kit_type_checks_at_each_end_of_its_peer_range(webview: str):
    work = _workspace(webview)
    installed = json.loads(
        (work / "node_modules" / "react-native-webview" / "package.json").read_text("utf-8")
    )
    assert installed["version"] == webview
    result = _tsc(work)
    errors = [line for line in result.stdout.splitlines() if ": error TS" in line]
    kit_errors = [e for e in errors if not e.startswith("src/zzCanary.tsx")]
    assert kit_errors == [], result.stdout + result.stderr
    canary = [e for e in errors if e.startswith("src/zzCanary.tsx")]
    assert canary and "domStorageEnabled: string" in result.stdout, result.stdout
