"""gcbridge.bridge: the shipped script's text, version and sha256, and `gcbridge bridge`."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gcbridge.bridge as bridge_mod
from gcbridge.bridge import BridgeError, BridgeScript, bridge_path, load, script
from gcbridge.cli import main

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "bridge" / "bridge.js"


def test_script_is_the_repository_source_with_its_sha256():
    s = script()
    assert s.text == SOURCE.read_text(encoding="utf-8")
    assert s.sha256 == hashlib.sha256(SOURCE.read_bytes()).hexdigest()
    assert re.fullmatch(r"[0-9a-f]{64}", s.sha256)


def test_version_is_the_js_var_and_the_changelog_top_release():
    s = script()
    assert f"var VERSION = '{s.version}';" in s.text
    changelog = (REPO / "bridge" / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", changelog, re.MULTILINE)
    assert headings[0] == "Unreleased"
    assert headings[1] == s.version
    assert re.fullmatch(r"\d+\.\d+\.\d+", s.version)


def test_protocol_is_one():
    assert "var PROTOCOL = 1;" in script().text


def test_script_is_frozen():
    with pytest.raises(AttributeError):
        script().version = "9.9.9"  # type: ignore[misc]


def test_load_reads_another_copy(tmp_path):
    copy = tmp_path / "bridge.js"
    copy.write_bytes(b"(function(){ var VERSION = '2.3.4'; })();\n")
    loaded = load(copy)
    assert loaded == BridgeScript(
        text=copy.read_text(), version="2.3.4", sha256=hashlib.sha256(copy.read_bytes()).hexdigest()
    )


def test_load_without_version_names_the_reason(tmp_path):
    copy = tmp_path / "bridge.js"
    copy.write_text("console.log('no version');\n")
    with pytest.raises(BridgeError) as info:
        load(copy)
    assert info.value.reason == "bridge_no_version"


def test_load_of_a_missing_file_names_the_reason(tmp_path):
    with pytest.raises(BridgeError) as info:
        load(tmp_path / "nope.js")
    assert info.value.reason == "bridge_missing"


def test_packaged_copy_wins_over_the_repository(tmp_path, monkeypatch):
    fake_module = tmp_path / "gcbridge" / "bridge.py"
    fake_module.parent.mkdir()
    (fake_module.parent / "bridge.js").write_text("var VERSION = '0.0.1';\n")
    monkeypatch.setattr(bridge_mod, "__file__", str(fake_module))
    assert bridge_path() == fake_module.parent / "bridge.js"
    assert script().version == "0.0.1"


def test_no_copy_anywhere_is_a_bridge_missing_error(tmp_path, monkeypatch):
    nowhere = tmp_path / "a" / "b" / "gcbridge" / "bridge.py"
    monkeypatch.setattr(bridge_mod, "__file__", str(nowhere))
    with pytest.raises(BridgeError) as info:
        bridge_path()
    assert info.value.reason == "bridge_missing"


def test_cli_version_and_sha256(capsys):
    s = script()
    assert main(["bridge", "--version"]) == 0
    assert capsys.readouterr().out == s.version + "\n"
    assert main(["bridge", "--sha256"]) == 0
    assert capsys.readouterr().out == s.sha256 + "\n"
    assert main(["bridge"]) == 0
    assert capsys.readouterr().out.startswith(f"bridge.js {s.version} sha256 {s.sha256} ")


def test_cli_print_writes_the_exact_bytes():
    # A subprocess, so that the bytes really go through stdout's buffer.
    out = subprocess.run(
        [sys.executable, "-m", "gcbridge", "bridge", "--print"], capture_output=True, check=True
    ).stdout
    assert out == SOURCE.read_bytes()
    assert hashlib.sha256(out).hexdigest() == script().sha256


def test_cli_flags_are_exclusive_and_documented(capsys):
    with pytest.raises(SystemExit):
        main(["bridge", "--version", "--sha256"])
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["bridge", "--help"])
    help_text = capsys.readouterr().out
    for flag in ("--print", "--version", "--sha256", "--path"):
        assert flag in help_text


def test_public_names():
    expected = [
        "APP_FILE_NAME",
        "BridgeError",
        "BridgeScript",
        "TS_SUFFIXES",
        "bridge_path",
        "bridge_text",
        "load",
        "script",
        "source_from_typescript",
        "typescript_module",
    ]
    assert sorted(bridge_mod.__all__) == expected
