"""What the kits evaluate in the page: gcSsoLogin by JSON-encoding, and the restore script.

A gcSsoLogin argument holding emoji, U+2028 / U+2029, quotes, backslashes and
``</script>`` arrives identical at the widget. The Kotlin kit's scripts (GcSsoScripts.kt) are
compiled with the whole kit (as make kits-check does) and evaluated in Node; the React Native
kit's run in its own node tests (tests/bridge/platforms/test_packages.py); Swift cannot
run here, so its lifecycle script is taken out of the Swift source and evaluated, and its
login goes through JSONEncoder (checked in the source).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PLATFORMS = ROOT / "bridge" / "platforms"
KOTLIN = PLATFORMS / "android" / "gccomments" / "src"
KOTLIN_PACKAGE = "dev/gcbridge/comments"
SWIFT_SCRIPTS = PLATFORMS / "ios" / "GcComments" / "GcSsoScripts.swift"
RESTORED = '{"gcLifecycle":"restored"}'

HOSTILE = [
    "eyJpZCI6ImFsaWNlIn0= 5a4c1e 1706000000",
    "emoji \U0001f600\U0001f469\u200d\U0001f4bb done",
    "line\u2028separator\u2029paragraph",
    "quotes \" ' ` and ${template}",
    "back\\slash \\u0041 \\n \\",
    "</script><script>alert(1)</script>",
    '"); window.stolen = true; ("',
    "nul \x00 and \r\n\t controls \x7f",
    "",
]

# Evaluates each script (one per argv line) against a fake widget; prints what arrived as JSON.
NODE_EVAL = r"""
const vm = require('node:vm');
const fs = require('node:fs');
const scripts = JSON.parse(fs.readFileSync(0, 'utf8'));
const out = [];
for (const script of scripts) {
  const calls = [];
  const window = {
    gcSsoLogin: (v) => { calls.push(['login', v]); return true; },
    gcSsoLogout: () => { calls.push(['logout']); return true; },
  };
  window.window = window;
  vm.runInNewContext(script, window);
  out.push({ calls, stolen: window.stolen === undefined ? null : true });
}
process.stdout.write(JSON.stringify(out));
"""

# Injects a lifecycle script twice into a fake page, fires pageshow (not persisted, persisted).
NODE_LIFECYCLE = r"""
const vm = require('node:vm');
const fs = require('node:fs');
const script = fs.readFileSync(0, 'utf8');
const listeners = [];
const posted = [];
const sink = { postMessage: (text) => posted.push(text) };
const window = {
  addEventListener: (type, fn) => listeners.push([type, fn]),
  GcBridgeAndroid: sink,
  ReactNativeWebView: sink,
  webkit: { messageHandlers: { gcBridge: sink } },
};
window.window = window;
const context = vm.createContext(window);
vm.runInContext(script, context);
vm.runInContext(script, context);
for (const persisted of [false, true]) {
  for (const [type, fn] of listeners) if (type === 'pageshow') fn({ persisted });
}
process.stdout.write(JSON.stringify({ listeners: listeners.length, posted }));
"""


def _node(program: str, stdin: str) -> object:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found (apt-get install nodejs): the scripts are evaluated in it")
    result = subprocess.run(
        [node, "-e", program], input=stdin, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def kotlin_output() -> list[str]:
    """GcSsoScripts' output for each HOSTILE value, then LOGOUT and LIFECYCLE_SCRIPT.

    The kit as make kits-check compiles it (bridge/protocol/android_check.py: Kotlin from Maven
    Central against android-all, cached), then GcSsoScriptsPrint run on the JVM.
    """
    for tool in ("java", "javac", "mvn"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not found (make setup installs it); make kits-check fails instead")
    sys.path.insert(0, str(ROOT / "bridge" / "protocol"))
    import android_check  # the kits-check toolchain, a script module beside kits_check.py

    built = android_check.build()
    lines = "".join(json.dumps(value, ensure_ascii=True) + "\n" for value in HOSTILE)
    ran = android_check.run_main(built, "GcSsoScriptsPrintKt", stdin=lines)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.splitlines()


@pytest.mark.slow
@pytest.mark.timeout(1200)  # the fixture compiles the whole Android kit once (cached)
def test_kotlin_gc_sso_login_delivers_every_value_unchanged(kotlin_output):
    scripts = kotlin_output[: len(HOSTILE)]
    assert all(script.isascii() for script in scripts), "U+2028/2029 and non-ASCII escaped"
    results = _node(NODE_EVAL, json.dumps(scripts + [kotlin_output[len(HOSTILE)]]))
    assert isinstance(results, list)
    for value, result in zip(HOSTILE, results, strict=False):
        assert result == {"calls": [["login", value]], "stolen": None}, value
    assert results[-1] == {"calls": [["logout"]], "stolen": None}


@pytest.mark.slow
@pytest.mark.timeout(1200)  # the fixture compiles the whole Android kit once (cached)
def test_kotlin_lifecycle_script_reports_a_restore_once(kotlin_output):
    script = kotlin_output[len(HOSTILE) + 1]
    assert _node(NODE_LIFECYCLE, script) == {"listeners": 1, "posted": [RESTORED]}


def _swift_multiline_literal(source: str, name: str) -> str:
    """The value of ``static let <name> = \"\"\" ... \"\"\"`` (no interpolation in it)."""
    match = re.search(rf'static let {name} = """\n(.*?)\n([ \t]*)"""', source, re.DOTALL)
    assert match is not None, name
    body, indent = match.group(1), match.group(2)
    assert "\\(" not in body, "no interpolation"
    lines = body.split("\n")
    assert all(line.startswith(indent) or not line.strip() for line in lines)
    return "\n".join(line[len(indent) :] for line in lines)


def test_swift_lifecycle_script_reports_a_restore_once():
    source = SWIFT_SCRIPTS.read_text(encoding="utf-8")
    script = _swift_multiline_literal(source, "lifecycleScript")
    assert _node(NODE_LIFECYCLE, script) == {"listeners": 1, "posted": [RESTORED]}
    assert f'static let restoredMessage = #"{RESTORED}"#' in source


def test_swift_gc_sso_login_is_json_encoded():
    source = SWIFT_SCRIPTS.read_text(encoding="utf-8")
    assert "JSONEncoder().encode(value)" in source
    assert 'return "window.gcSsoLogin && window.gcSsoLogin(\\(literal))"' in source
    controller = (PLATFORMS / "ios" / "GcComments" / "GcCommentsViewController.swift").read_text()
    assert "GcSsoScripts.login(ssoData)" in controller
    assert "gcSsoLogin(\\(" not in controller, "no ssoData pasted into a script"


def test_every_kit_glue_wires_the_lifecycle():
    glue = sorted((PLATFORMS / "ios" / "GcComments").glob("GcCommentsViewController*.swift"))
    swift = "\n".join(path.read_text() for path in glue)
    for needle in (
        "func webViewWebContentProcessDidTerminate(_ webView: WKWebView)",
        "perform(coordinator.contentTerminated())",
        "case .reload:",
        "webView.reload()",
        # a new document at its commit: a provisional load that fails replaces nothing
        "func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!) {\n"
        "        perform(coordinator.pageStarted())",
        "perform(coordinator.restored())",
        "coordinator.resume(seconds:",
        "UIApplication.willEnterForegroundNotification",
        "GcSsoScripts.lifecycleScript",
    ):
        assert needle in swift, needle
    assert "didStartProvisionalNavigation navigation" not in swift, "no new page before a commit"
    kotlin = (KOTLIN / "main" / "java" / KOTLIN_PACKAGE / "GcCommentsController.kt").read_text()
    for needle in (
        "override fun onRenderProcessGone(view: WebView, detail: RenderProcessGoneDetail): Boolean",
        "perform(coordinator.contentTerminated())\n            return true",
        "is GcSsoEffect.Reload -> replaceWebView()",
        "dead.destroy()",
        "perform(coordinator.pageStarted())",
        "coordinator.restored()",
        "coordinator.resume(",
        "GcSsoScripts.LIFECYCLE_SCRIPT",
    ):
        assert needle in kotlin, needle
    tsx = (PLATFORMS / "react-native" / "src" / "GcCommentsWebView.tsx").read_text()
    for needle in (
        "onContentProcessDidTerminate={onContentProcessDidTerminate}",
        "onRenderProcessGone={onRenderProcessGone}",
        "coordinator.current?.contentTerminated()",
        "case 'reload':",
        "key={generation}",
        "lifecycleEffects(c, data)",
        "coordinator.current?.resume(away.resumedAfter)",
        "AppState.addEventListener('change'",
        "verifiedBridgeSource()",
        "LIFECYCLE_SCRIPT",
    ):
        assert needle in tsx, needle
