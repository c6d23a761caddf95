"""The kits embed bridge/bridge.js only through sync_kits.py, and their pins match it."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from gcbridge.bridge import script

PLATFORMS = Path(__file__).resolve().parents[3] / "bridge" / "platforms"


def _sync_module():
    spec = importlib.util.spec_from_file_location("gc_sync_kits", PLATFORMS / "sync_kits.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_generated_kit_file_is_in_sync_with_bridge_js():
    stale = _sync_module().stale_files()
    assert stale == [], f"run: python bridge/platforms/sync_kits.py (stale: {stale})"


@pytest.mark.parametrize(
    "copy", ["ios/GcComments/gc-bridge.js", "android/gccomments/src/main/assets/gc-bridge.js"]
)
def test_native_copies_are_byte_identical(copy):
    assert (PLATFORMS / copy).read_text(encoding="utf-8") == script().text


def test_pins_carry_the_shipped_version_and_sha256():
    s = script()
    swift = (PLATFORMS / "ios/GcComments/GcBridgePin.swift").read_text()
    kotlin = PLATFORMS / "android/gccomments/src/main/java/dev/gcbridge/comments/GcBridgePin.kt"
    kotlin_text = kotlin.read_text()
    for text in (swift, kotlin_text):
        assert f'"{s.version}"' in text
        assert f'"{s.sha256}"' in text


def test_react_native_module_embeds_the_exact_source():
    ts = (PLATFORMS / "react-native/src/bridgeSource.ts").read_text(encoding="utf-8")
    literal = re.search(r"export const BRIDGE_SOURCE: string = (\".*\");\n", ts, re.DOTALL)
    assert literal is not None
    assert json.loads(literal.group(1)) == script().text
    assert f'BRIDGE_SHA256 = "{script().sha256}"' in ts
    assert f'BRIDGE_VERSION = "{script().version}"' in ts


def test_check_mode_reports_a_hand_edited_copy(tmp_path, monkeypatch, capsys):
    sync = _sync_module()
    fake = tmp_path / "platforms"
    fake.mkdir()
    monkeypatch.setattr(sync, "PLATFORMS", fake)
    assert sync.main(["--check"]) == 1
    assert "stale: ios/GcComments/gc-bridge.js" in capsys.readouterr().err
    assert sync.main([]) == 0
    assert sync.main(["--check"]) == 0
    copy = fake / "ios/GcComments/gc-bridge.js"
    copy.write_text(copy.read_text() + "// local tweak\n")
    assert sync.main(["--check"]) == 1
