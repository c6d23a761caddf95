"""The React Native kit's bridgeSource.ts: written by the CLI, read back by the harness.

``gcbridge bridge --print --format ts`` regenerates the module a React
Native app ships, and the harness runs on that very file (``--gc-bridge bridgeSource.ts``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gcbridge.bridge import (
    BridgeError,
    bridge_text,
    load,
    script,
    source_from_typescript,
    typescript_module,
)
from gcbridge.cli import main

REPO = Path(__file__).resolve().parents[4]
KIT_MODULE = REPO / "bridge" / "platforms" / "react-native" / "src" / "bridgeSource.ts"

pytest_plugins = ["pytester"]


def _cli_ts() -> bytes:
    return subprocess.run(
        [sys.executable, "-m", "gcbridge", "bridge", "--print", "--format", "ts"],
        capture_output=True,
        check=True,
    ).stdout


def test_cli_writes_the_kit_module_byte_for_byte():
    assert _cli_ts() == KIT_MODULE.read_bytes()


def test_the_module_holds_the_exact_source_and_its_pin():
    text = _cli_ts().decode("utf-8")
    assert text.isascii(), "U+2028/U+2029 and every non-ASCII character are escaped"
    assert load(KIT_MODULE) == script()
    assert f'export const BRIDGE_SHA256 = "{script().sha256}";' in text
    assert f'export const BRIDGE_VERSION = "{script().version}";' in text


def test_format_js_is_bridge_js_itself():
    out = subprocess.run(
        [sys.executable, "-m", "gcbridge", "bridge", "--print", "--format", "js"],
        capture_output=True,
        check=True,
    ).stdout
    assert out == script().text.encode("utf-8")


def test_format_without_print_is_a_usage_error(capsys):
    assert main(["bridge", "--sha256", "--format", "ts"]) == 2
    assert "--format goes with --print" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["bridge", "--print", "--format", "py"])
    assert info.value.code == 2


def test_help_documents_the_format(capsys):
    with pytest.raises(SystemExit):
        main(["bridge", "--help"])
    assert "bridgeSource.ts" in capsys.readouterr().out


def test_a_hand_edited_source_fails_its_pin(tmp_path):
    tampered = KIT_MODULE.read_text(encoding="utf-8").replace("Protocol 1.", "Protocol 2.", 1)
    assert tampered != KIT_MODULE.read_text(encoding="utf-8")
    copy = tmp_path / "bridgeSource.ts"
    copy.write_text(tampered, encoding="utf-8")
    with pytest.raises(BridgeError) as info:
        load(copy)
    assert info.value.reason == "bridge_pin_mismatch"
    assert "gcbridge bridge --print --format ts" in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "export const OTHER = 1;\n",
        "export const BRIDGE_SOURCE: string = 'var VERSION = \\'1.0.0\\';';\n",  # reformatted
        "export const BRIDGE_SOURCE = someFunction();\n",
    ],
    ids=["no source", "single quotes", "not a literal"],
)
def test_a_module_without_a_json_literal_names_the_reason(text):
    with pytest.raises(BridgeError) as info:
        source_from_typescript(text)
    assert info.value.reason == "bridge_ts_no_source"


def test_a_module_without_pins_is_read_as_is():
    bridge = script()
    text = f"export const BRIDGE_SOURCE = {json.dumps(bridge.text)};\n"
    assert source_from_typescript(text) == bridge


def test_typescript_module_round_trips_awkward_characters():
    bridge = source_from_typescript(
        typescript_module(
            source_from_typescript(
                "export const BRIDGE_SOURCE = "
                + json.dumps(
                    "var VERSION = '9.9.9'; // \u2028 \u2029 \"q\" \\ </script> \U0001f600"
                )
                + ";"
            )
        )
    )
    assert bridge.version == "9.9.9"
    assert "\u2028 \u2029" in bridge.text and "\U0001f600" in bridge.text


def test_bridge_text_reads_plain_copies_without_a_version(tmp_path):
    broken = tmp_path / "broken.js"
    broken.write_text("window.nothing = 1;\n", encoding="utf-8")  # the harness tests such copies
    assert bridge_text(broken) == "window.nothing = 1;\n"
    assert bridge_text(KIT_MODULE) == script().text


HARNESS_PROBE = """
def test_probe(bridge_script):
    from gcbridge.bridge import script
    assert bridge_script == script().text
"""


def test_the_harness_runs_on_what_a_react_native_app_ships(pytester: pytest.Pytester):
    pytester.makepyfile(test_probe=HARNESS_PROBE)
    shipped = pytester.path / "bridgeSource.ts"
    shipped.write_bytes(KIT_MODULE.read_bytes())
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--gc-bridge", "bridgeSource.ts", "test_probe.py", timeout=120
    )
    result.assert_outcomes(passed=1)


def test_the_harness_refuses_a_module_that_fails_its_pin(pytester: pytest.Pytester):
    pytester.makepyfile(test_probe=HARNESS_PROBE)
    tampered = KIT_MODULE.read_text(encoding="utf-8").replace("Protocol 1.", "Protocol 2.", 1)
    (pytester.path / "bridgeSource.ts").write_text(tampered, encoding="utf-8")
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--gc-bridge", "bridgeSource.ts", "test_probe.py", timeout=120
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "[bridge_pin_mismatch]" in result.stderr.str()


@pytest.mark.slow
def test_harness_run_plays_a_scenario_on_bridge_source_ts(tmp_path):
    shipped = tmp_path / "bridgeSource.ts"
    shipped.write_bytes(KIT_MODULE.read_bytes())
    run = subprocess.run(
        [sys.executable, "-m", "gcbridge", "harness", "run", "--bridge", str(shipped)]
        + ["--engine", "chromium", "-k", "login_on_ready and document-start"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "1 passed, 0 failed" in run.stdout
