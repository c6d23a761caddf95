"""The Swift and Kotlin kits parse (tree-sitter grammars from PyPI) and keep the contract's names.

No Swift or Kotlin compiler with the iOS / Android SDKs is installable from the registries this
project uses, so the kits are syntax-checked here and reviewed against the platform docs (see each
kit's README).
"""

from __future__ import annotations

from pathlib import Path

import pytest

PLATFORMS = Path(__file__).resolve().parents[3] / "bridge" / "platforms"
SWIFT = sorted((PLATFORMS / "ios").rglob("*.swift"))
KOTLIN = sorted((PLATFORMS / "android").rglob("*.kt"))


def _parser(grammar_module: str):
    ts = pytest.importorskip("tree_sitter", reason="tree-sitter is in the dev extra")
    grammar = pytest.importorskip(grammar_module, reason=f"{grammar_module} is in the dev extra")
    return ts.Parser(ts.Language(grammar.language()))


def _syntax_errors(parser, source: bytes) -> list[str]:
    found: list[str] = []
    stack = [parser.parse(source).root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            row, col = node.start_point
            kind = "missing" if node.is_missing else "error"
            found.append(f"{row + 1}:{col + 1} {kind} {node.type}")
        stack.extend(node.children)
    return found


@pytest.mark.parametrize("path", SWIFT, ids=lambda p: p.name)
def test_swift_file_parses(path):
    assert _syntax_errors(_parser("tree_sitter_swift"), path.read_bytes()) == []


@pytest.mark.parametrize("path", KOTLIN, ids=lambda p: p.name)
def test_kotlin_file_parses(path):
    assert _syntax_errors(_parser("tree_sitter_kotlin"), path.read_bytes()) == []


@pytest.mark.parametrize(
    ("grammar", "broken"),
    [
        ("tree_sitter_swift", b"final class A { func f( { }\n"),
        ("tree_sitter_kotlin", b"class A { fun f( { }\n"),
    ],
)
def test_the_checker_catches_a_syntax_error(grammar, broken):
    assert _syntax_errors(_parser(grammar), broken) != []


def test_kits_were_found():
    assert len(SWIFT) >= 3 and len(KOTLIN) >= 3


def _read(paths: list[Path]) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in paths)


def test_ios_kit_uses_the_documented_webkit_api():
    swift = _read(SWIFT)
    for needle in (
        "injectionTime: .atDocumentEnd",
        "forMainFrameOnly: true",
        "WKContentWorld.defaultClient",
        "in: Self.bridgeWorld",
        "contentWorld: Self.bridgeWorld, name: Self.handlerName",
        'handlerName = "gcBridge"',
        "message.frameInfo.isMainFrame",
        "message.frameInfo.securityOrigin",
        "websiteDataStore = .default()",
        "allowsContentJavaScript = true",
        "evaluateJavaScript(",
        "window.gcSsoLogin",
        "window.gcSsoLogout",
        "SHA256.hash",
        "URLSession",
    ):
        assert needle in swift, needle
    for event in ("gc-ready", "gc-loaded", "gc-sso-auth", "gc-sso-conflict"):
        assert f'"{event}"' in swift


def test_android_kit_uses_the_documented_webview_api():
    kotlin = _read(KOTLIN)
    for needle in (
        "javaScriptEnabled = true",
        "domStorageEnabled = true",
        "onPageFinished",
        "evaluateJavascript(",
        "WebViewFeature.DOCUMENT_START_SCRIPT",
        "WebViewCompat.addDocumentStartJavaScript",
        "WebViewFeature.WEB_MESSAGE_LISTENER",
        "WebViewCompat.addWebMessageListener",
        "addJavascriptInterface",
        'CHANNEL = "GcBridgeAndroid"',
        "isMainFrame",
        "GcJson.quote(ssoData)",
        "MessageDigest",
    ):
        assert needle in kotlin, needle
    for event in ("gc-ready", "gc-loaded", "gc-sso-auth", "gc-sso-conflict"):
        assert f'"{event}"' in kotlin
