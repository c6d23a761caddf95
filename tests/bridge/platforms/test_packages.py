"""The kits ship as packages their ecosystems install, and every README snippet compiles.

- React Native: ``npm pack`` of the kit (built by its own tsc) is installed by the example app
  (bridge/platforms/react-native/example) from the tarball, which type-checks with tsc together
  with every TypeScript snippet of the kit README and of docs/how-to/integrate-kits.md. The
  kit's node tests (pin at run time, gcSsoLogin by JSON-encoding, the lifecycle script) run too.
- iOS: a Swift package (Package.swift) whose target holds the kit's sources and resources.
- Android: the Gradle library module (build.gradle.kts, AndroidManifest.xml, assets).
- Each kit ships the app-side protocol table. Swift and Kotlin README snippets are parsed with
  tree-sitter (no Swift compiler or Android SDK here).

npm comes from the npm registry only (pinned versions); skipped with the reason where npm is absent.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PLATFORMS = ROOT / "bridge" / "platforms"
RN = PLATFORMS / "react-native"
TABLE = ROOT / "bridge" / "protocol" / "app-protocol.json"
SNIPPET_SOURCES = [
    RN / "README.md",
    PLATFORMS / "ios" / "README.md",
    PLATFORMS / "android" / "README.md",
    PLATFORMS / "README.md",
    ROOT / "docs" / "how-to" / "integrate-kits.md",
]
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.M | re.S)
NPM_FLAGS = ["--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"]


def snippets(language: str) -> list[tuple[str, str]]:
    """(where, code) of every fenced block of ``language`` in the kit READMEs and the how-to."""
    names = {"ts": ("ts", "tsx", "typescript"), "kotlin": ("kotlin", "kt"), "swift": ("swift",)}
    found = []
    for path in SNIPPET_SOURCES:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if match.group(1).lower() in names[language]:
                line = text.count("\n", 0, match.start()) + 1
                found.append((f"{path.relative_to(ROOT)}:{line}", match.group(2)))
    return found


def _cache_root() -> Path:
    explicit = os.environ.get("GC_BRIDGE_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gc-bridge"


def _node_tools() -> tuple[str, str]:
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        reason = "npm/node not found: the React Native kit's package checks need them"
        print(f"SKIP: {reason} (apt-get install npm)")
        pytest.skip(f"{reason} (apt-get install npm)")
    return npm, node


def _run(command: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def kit_tarball(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``npm pack`` of the kit, built with its own tsc (dev dependencies cached by lock hash)."""
    npm, node = _node_tools()
    lock = (RN / "package-lock.json").read_bytes() + (RN / "package.json").read_bytes()
    deps = _cache_root() / f"rn-kit-{hashlib.sha256(lock).hexdigest()[:16]}"
    stamp = deps / "node_modules" / ".gc-bridge-installed"
    if not stamp.is_file():
        deps.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(RN / name, deps / name)
        installed = _run([npm, "ci", *NPM_FLAGS], deps)
        assert installed.returncode == 0, installed.stderr[-2000:]
        stamp.write_text("ok\n")
    work = tmp_path_factory.mktemp("rn-kit")
    for name in ("src", "test", "protocol"):
        shutil.copytree(RN / name, work / name)
    for path in RN.glob("*.json"):
        shutil.copy2(path, work / path.name)
    shutil.copy2(RN / "README.md", work / "README.md")
    (work / "node_modules").symlink_to(deps / "node_modules")
    tsc = str(deps / "node_modules" / "typescript" / "bin" / "tsc")
    built = _run([node, tsc, "-p", "tsconfig.build.json", "--pretty", "false"], work)
    assert built.returncode == 0, built.stdout + built.stderr
    out = tmp_path_factory.mktemp("packed")
    packed = _run([npm, "pack", "--ignore-scripts", "--pack-destination", str(out)], work)
    assert packed.returncode == 0, packed.stderr
    (work / "node_modules").unlink()
    tarball = out / "gc-bridge-react-native-kit-1.0.0.tgz"
    assert tarball.is_file(), packed.stdout
    return tarball


@pytest.mark.slow
def test_the_npm_package_holds_the_build_the_sources_and_the_table(kit_tarball):
    with tarfile.open(kit_tarball) as archive:
        names = set(archive.getnames())
        table = archive.extractfile("package/protocol/app-protocol.json")
        assert table is not None and table.read() == TABLE.read_bytes()
    for needed in (
        "package/package.json",
        "package/README.md",
        "package/build/index.js",
        "package/build/index.d.ts",
        "package/build/GcCommentsWebView.js",
        "package/src/index.ts",
        "package/src/bridgeSource.ts",
    ):
        assert needed in names, needed
    assert not any(n.startswith(("package/test/", "package/node_modules/")) for n in names)
    assert not any(n.endswith("tsconfig.json") for n in names)


@pytest.mark.slow
def test_the_kit_node_tests_pass(kit_tarball):
    """Pin checked at run time, gcSsoLogin built by JSON-encoding, the table, the restore script."""
    _, node = _node_tools()
    lock = (RN / "package-lock.json").read_bytes() + (RN / "package.json").read_bytes()
    deps = _cache_root() / f"rn-kit-{hashlib.sha256(lock).hexdigest()[:16]}"
    work = kit_tarball.parent / "node-tests"
    shutil.copytree(RN, work, ignore=shutil.ignore_patterns("node_modules", "example", "build*"))
    (work / "node_modules").symlink_to(deps / "node_modules")
    tsc = str(deps / "node_modules" / "typescript" / "bin" / "tsc")
    built = _run([node, tsc, "-p", "tsconfig.node.json", "--pretty", "false"], work)
    assert built.returncode == 0, built.stdout + built.stderr
    ran = _run([node, "--test", "--test-reporter=tap", "test/"], work)
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    passed = re.search(r"^# pass (\d+)", ran.stdout, re.M)
    assert passed is not None and int(passed.group(1)) >= 50, ran.stdout[-500:]


CANARY = """import { GcCommentsWebView } from '@gc-bridge/react-native-kit';

export const Wrong = () => <GcCommentsWebView gcUrl={42} />;
"""


@pytest.fixture(scope="module")
def example_app(kit_tarball: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The example app installed from the tarball, its snippets added, type-checked once."""
    npm, node = _node_tools()
    root = kit_tarball.parent / "app"
    example = root / "example"
    shutil.copytree(RN / "example", example, ignore=shutil.ignore_patterns("node_modules"))
    shutil.copy2(kit_tarball, root / kit_tarball.name)  # where package.json's file: points
    installed = _run([npm, "install", *NPM_FLAGS], example, timeout=900)
    assert installed.returncode == 0, installed.stderr[-3000:]
    folder = example / "snippets"
    folder.mkdir()
    for index, (where, code) in enumerate(snippets("ts")):
        (folder / f"snippet_{index:02d}.tsx").write_text(f"// {where}\n{code}", encoding="utf-8")
    (folder / "zz_canary.tsx").write_text(CANARY, encoding="utf-8")
    tsc = str(example / "node_modules" / "typescript" / "bin" / "tsc")
    checked = _run([node, tsc, "--noEmit", "--pretty", "false", "-p", "."], example)
    return example, checked


def _errors(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stdout.splitlines() if ": error TS" in line]


@pytest.mark.slow
def test_the_example_app_installs_the_tarball_and_type_checks(example_app):
    example, checked = example_app
    installed = example / "node_modules" / "@gc-bridge" / "react-native-kit"
    assert (installed / "build" / "index.d.ts").is_file()
    assert not installed.is_symlink(), "installed from the tarball, not linked to the sources"
    errors = [e for e in _errors(checked) if not e.startswith("snippets/")]
    assert errors == [], checked.stdout + checked.stderr


@pytest.mark.slow
def test_every_typescript_snippet_of_the_docs_type_checks(example_app):
    example, checked = example_app
    assert len(snippets("ts")) >= 3
    errors = [e for e in _errors(checked) if e.startswith("snippets/snippet_")]
    shown = []
    for error in errors:
        name = error.split("(")[0]
        first = (example / name).read_text(encoding="utf-8").splitlines()[0]
        shown.append(f"{first[3:]}: {error}")
    assert shown == [], "\n".join(shown)


@pytest.mark.slow
def test_the_type_check_uses_the_kits_real_types(example_app):
    _, checked = example_app
    assert any(e.startswith("snippets/zz_canary.tsx") for e in _errors(checked)), checked.stdout


def _syntax_errors(grammar_module: str, source: bytes) -> list[str]:
    ts = pytest.importorskip("tree_sitter", reason="tree-sitter is in the dev extra")
    grammar = pytest.importorskip(grammar_module, reason=f"{grammar_module} is in the dev extra")
    parser = ts.Parser(ts.Language(grammar.language()))
    found: list[str] = []
    stack = [parser.parse(source).root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            found.append(f"{node.start_point[0] + 1}:{node.start_point[1] + 1} {node.type}")
        stack.extend(node.children)
    return found


@pytest.mark.parametrize(
    ("language", "grammar"), [("swift", "tree_sitter_swift"), ("kotlin", "tree_sitter_kotlin")]
)
def test_every_native_snippet_of_the_docs_parses(language, grammar):
    found = snippets(language)
    assert len(found) >= 2, f"no {language} snippets found"
    problems = {
        where: errs for where, code in found if (errs := _syntax_errors(grammar, code.encode()))
    }
    assert problems == {}


def test_swift_package_layout():
    manifest = (PLATFORMS / "ios" / "Package.swift").read_text(encoding="utf-8")
    assert manifest.startswith("// swift-tools-version:")
    assert _syntax_errors("tree_sitter_swift", manifest.encode()) == []
    assert '.library(name: "GcComments", targets: ["GcComments"])' in manifest
    assert 'path: "GcComments"' in manifest
    assert ".iOS(.v15)" in manifest
    for resource in ("gc-bridge.js", "app-protocol.json"):
        assert f'.copy("{resource}")' in manifest
        assert (PLATFORMS / "ios" / "GcComments" / resource).is_file()
    # The table's Swift runner, for Xcode: a test target that feeds every kind of input.
    assert 'path: "Tests/GcCommentsTests"' in manifest
    runner = (PLATFORMS / "ios/Tests/GcCommentsTests/GcSsoCoordinatorTableTests.swift").read_text()
    assert _syntax_errors("tree_sitter_swift", runner.encode()) == []
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    inputs = {step["in"]["in"] for case in table["cases"] for step in case["steps"]}
    for kind in inputs:
        assert f'case "{kind}":' in runner, kind
    assert 'step["view"]' in runner
    # SwiftPM resources live in Bundle.module; a copied-in kit reads Bundle.main.
    loader = (PLATFORMS / "ios" / "GcComments" / "GcBridgeScript.swift").read_text()
    assert "#if SWIFT_PACKAGE" in loader and "Bundle.module" in loader


def test_gradle_module_layout():
    module = PLATFORMS / "android" / "gccomments"
    build = (module / "build.gradle.kts").read_text(encoding="utf-8")
    assert _syntax_errors("tree_sitter_kotlin", build.encode()) == []
    assert 'id("com.android.library")' in build
    assert 'namespace = "dev.gcbridge.comments"' in build
    assert "minSdk = 24" in build
    manifest = (module / "src" / "main" / "AndroidManifest.xml").read_text(encoding="utf-8")
    assert "android.permission.INTERNET" in manifest
    settings = (PLATFORMS / "android" / "settings.gradle.kts").read_text(encoding="utf-8")
    assert 'include(":gccomments")' in settings
    assert _syntax_errors("tree_sitter_kotlin", settings.encode()) == []
    assets = module / "src" / "main" / "assets"
    assert (assets / "app-protocol.json").read_bytes() == TABLE.read_bytes()
    assert (assets / "gc-bridge.js").is_file()


@pytest.mark.parametrize(
    "copy",
    [
        "ios/GcComments/app-protocol.json",
        "android/gccomments/src/main/assets/app-protocol.json",
        "react-native/protocol/app-protocol.json",
    ],
)
def test_each_kit_ships_the_protocol_table(copy):
    assert (PLATFORMS / copy).read_bytes() == TABLE.read_bytes()
