"""Run the app-side protocol table against every kit coordinator that can run here.

    python bridge/protocol/kits_check.py                 # python, typescript, kotlin
    python bridge/protocol/kits_check.py --only kotlin   # one language
    python bridge/protocol/kits_check.py --kotlin-coordinator copy.kt   # a copy (mutation tests)
    python bridge/protocol/kits_check.py --only kotlin --kotlin-replace GcCrashGuard.kt=copy.kt

- Python: ``harness/gcbridge_harness/coordinator.py`` (the reference), in this process.
- TypeScript: ``react-native/src/coordinator.ts`` compiled with the kit's own ``tsc`` (``npm ci``
  from the kit's package-lock.json into ``~/.cache/gc-bridge``), run with ``node --test``.
- Kotlin: the whole Android kit compiled by a current Kotlin compiler from Maven Central against
  android-all (the real Android classes) and an androidx.webkit stub, its JUnit tests run on the
  JVM, its Robolectric tests (the controller's glue) on Robolectric offline, then the table runner (``android_check.py``; jars and classes cached by their hashes).
  A coordinator copy (``--kotlin-coordinator``) is compiled alone with GcJson.kt and the runner.
- Swift: no compiler here; ``GcSsoCoordinator.swift`` is written to the table line by line.

Ends with a line naming each language and its passed cases, then one line per language saying
what was compiled and run, and what this machine could not run; exit status 1 if any case or
test failed or a toolchain is missing (the install command is printed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import android_check  # noqa: E402 - the Android kit's Maven toolchain, a sibling module
import run_python  # noqa: E402 - the sibling runner, found from any working directory

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "bridge" / "protocol" / "app-protocol.json"
RN_KIT = ROOT / "bridge" / "platforms" / "react-native"
ANDROID = ROOT / "bridge" / "platforms" / "android" / "gccomments" / "src"
KOTLIN_PACKAGE = "dev/gcbridge/comments"
# the coordinator a --kotlin-coordinator copy replaces in the whole kit's compile
KOTLIN_SOURCES = {
    "coordinator": ANDROID / "main" / "java" / KOTLIN_PACKAGE / "GcSsoCoordinator.kt",
}
INSTALL = {
    "node": "sudo apt-get install -y nodejs npm",
}
LANGUAGES = ("python", "typescript", "kotlin")
SWIFT_NOT_RUN = (
    "NOT compiled or run on this machine (no Swift toolchain here; UIKit and WebKit exist only in "
    "Xcode's SDK): GcSsoCoordinator.swift is written to the table line by line; run `swift test` "
    "in bridge/platforms/ios where Swift is installed (Linux or macOS: the table and the pure "
    "policies) and ios/ci/ios-kit.yml on macOS (xcodebuild test on a simulator, a real WKWebView)"
)


@dataclass
class Outcome:
    language: str
    passed: int
    total: int
    output: str
    #: what was compiled and run besides the table, for the closing lines
    facts: str = ""
    extra_ok: bool = True

    @property
    def ok(self) -> bool:
        return self.total > 0 and self.passed == self.total and self.extra_ok


def cache_root() -> Path:
    explicit = os.environ.get("GC_BRIDGE_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gc-bridge"


def _total() -> int:
    return len(run_python.load_table(TABLE)["cases"])


def _missing(language: str, tool: str) -> Outcome:
    text = f"{language}: {tool} not found; install it with: {INSTALL[tool]}"
    return Outcome(language, 0, _total(), text)


def check_python(coordinator: Path = run_python.COORDINATOR) -> Outcome:
    table = run_python.load_table(TABLE)
    cls = run_python.load_coordinator_class(coordinator)
    lines, passed = [], 0
    for case in table["cases"]:
        problem = run_python.run_case(cls, table, case)
        if problem is None:
            passed += 1
        else:
            lines.append(f"FAIL {case['name']}: {problem}")
    return Outcome("python", passed, len(table["cases"]), "\n".join(lines))


def rn_workspace() -> Path:
    """The kit's node_modules from ``npm ci`` (cached by package-lock.json's hash)."""
    lock = (RN_KIT / "package-lock.json").read_bytes() + (RN_KIT / "package.json").read_bytes()
    work = cache_root() / f"rn-kit-{hashlib.sha256(lock).hexdigest()[:16]}"
    stamp = work / "node_modules" / ".gc-bridge-installed"
    if not stamp.is_file():
        work.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(RN_KIT / name, work / name)
        npm = shutil.which("npm") or "npm"
        command = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"]
        print(f"==> npm {' '.join(command[1:])} in {work} (the kit's tsc, once)", flush=True)
        subprocess.run(command, cwd=work, check=True, capture_output=True, timeout=900)
        stamp.write_text("ok\n")
    return work


def check_typescript(coordinator: Path = RN_KIT / "src" / "coordinator.ts") -> Outcome:
    node = shutil.which("node")
    if node is None or shutil.which("npm") is None:
        return _missing("typescript", "node")
    try:
        tsc = rn_workspace() / "node_modules" / "typescript" / "bin" / "tsc"
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        stderr = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else ""
        text = f"typescript: npm ci failed (the npm registry must be reachable): {stderr[-800:]}"
        return Outcome("typescript", 0, _total(), text)
    with tempfile.TemporaryDirectory(prefix="gc-ts-") as tmp:
        work = Path(tmp)
        (work / "src").mkdir()
        shutil.copy2(coordinator, work / "src" / "coordinator.ts")
        for name in ("tsconfig.json", "tsconfig.coordinator.json"):
            shutil.copy2(RN_KIT / name, work / name)
        built = subprocess.run(
            [node, str(tsc), "-p", "tsconfig.coordinator.json", "--pretty", "false"],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if built.returncode != 0:
            return Outcome("typescript", 0, _total(), "tsc failed:\n" + built.stdout + built.stderr)
        env = dict(
            os.environ,
            GC_COORDINATOR_JS=str(work / "build" / "coordinator.js"),
            GC_APP_PROTOCOL=str(TABLE),
        )
        test_file = RN_KIT / "test" / "coordinator.table.test.cjs"
        run = subprocess.run(
            [node, "--test", "--test-reporter=tap", str(test_file)],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        kit_passed, kit_total, kit_detail = _rn_kit_tests(node, tsc, work)
    out = run.stdout + run.stderr
    passed = re.search(r"^# pass (\d+)", out, re.M)
    tests = re.search(r"^# tests (\d+)", out, re.M)
    failed = "\n".join(line for line in out.splitlines() if line.startswith("not ok"))
    detail = failed + ("\n" + out if run.returncode and not failed else "")
    version = json.loads((tsc.parents[1] / "package.json").read_text())["version"]
    facts = (
        f"coordinator.ts and the kit's pure modules (tsconfig.node.json) compiled by the kit's "
        f"tsc {version}; the kit's node tests (test/*.test.cjs) {kit_passed}/{kit_total} passed"
    )
    return Outcome(
        "typescript",
        int(passed.group(1)) if passed else 0,
        int(tests.group(1)) if tests else _total(),
        (detail + "\n" + kit_detail).strip(),
        facts,
        kit_total > 0 and kit_passed == kit_total,
    )


def _rn_kit_tests(node: str, tsc: Path, work: Path) -> tuple[int, int, str]:
    """The kit's pure modules compiled for Node, and its node tests but the table's."""
    shutil.copytree(RN_KIT / "src", work / "src", dirs_exist_ok=True)
    shutil.copy2(RN_KIT / "tsconfig.node.json", work / "tsconfig.node.json")
    built = subprocess.run(
        [node, str(tsc), "-p", "tsconfig.node.json", "--pretty", "false"],
        cwd=work, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if built.returncode != 0:
        return 0, 1, "tsc -p tsconfig.node.json failed:\n" + built.stdout + built.stderr
    files = sorted(
        str(p) for p in (RN_KIT / "test").glob("*.test.cjs") if p.name != "coordinator.table.test.cjs"
    )
    env = dict(os.environ, GC_KIT_BUILD=str(work / "build-node"))
    run = subprocess.run(
        [node, "--test", "--test-reporter=tap", *files],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    out = run.stdout + run.stderr
    passed = re.search(r"^# pass (\d+)", out, re.M)
    tests = re.search(r"^# tests (\d+)", out, re.M)
    failed = "\n".join(line for line in out.splitlines() if line.startswith("not ok"))
    if run.returncode and not failed:
        failed = out[-2000:]
    return int(passed.group(1)) if passed else 0, int(tests.group(1)) if tests else 1, failed


def check_kotlin(
    coordinator: Path = KOTLIN_SOURCES["coordinator"], replace: dict[str, Path] | None = None
) -> Outcome:
    """The whole Android kit compiled (android_check.py), its JUnit tests, then the table."""
    table_only = coordinator.resolve() != KOTLIN_SOURCES["coordinator"].resolve() and not replace
    try:
        if table_only:  # a coordinator copy (mutation tests): it alone, with GcJson and the runner
            built = android_check.build_table(coordinator)
        else:
            built = android_check.build(dict(replace or {}))
    except android_check.ToolchainError as exc:
        facts = "the Android kit was NOT compiled (the error is above); no JVM test ran"
        return Outcome("kotlin", 0, _total(), f"kotlin: {exc}", facts, False)
    if table_only:
        junit = robo = android_check.JUnitResult(0, 0, "")
    else:
        junit = android_check.run_junit(built)
        robo = android_check.run_robolectric(built)
    run = android_check.run_main(built, "GcSsoCoordinatorTableKt", str(TABLE))
    found = re.search(r"^kotlin: (\d+)/(\d+) cases passed", run.stdout, re.M)
    detail = "\n".join(line for line in run.stdout.splitlines() if not line.startswith("kotlin:"))
    tools = built.toolchain
    facts = (
        f"the whole Android kit ({built.main_files} files of gccomments/src/main) compiled by "
        f"Kotlin {tools.kotlin} (language {tools.language}) against android-all "
        f"{tools.android_all} (Android API {tools.api}) and the androidx.webkit stub "
        f"(android/check/stubs); JVM unit tests (JUnit {tools.junit}) "
        f"{junit.passed}/{junit.total} passed; the controller on Robolectric "
        f"{tools.robolectric_version} (offline, SDK {tools.api}) {robo.passed}/{robo.total} passed"
    )
    if table_only:
        facts = (
            f"table only: {coordinator.name} (a copy), GcJson.kt and the table runner compiled "
            f"by Kotlin {tools.kotlin}; the rest of the kit not compiled in this mode"
        )
    junit_ok = table_only or all(r.total > 0 and r.passed == r.total for r in (junit, robo))
    output = "\n".join(text for text in (junit.output, robo.output, detail) if text).strip()
    if found is None:
        output = (output + "\n" + run.stdout + run.stderr).strip()
        return Outcome("kotlin", 0, _total(), output, facts, junit_ok)
    return Outcome("kotlin", int(found.group(1)), int(found.group(2)), output, facts, junit_ok)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=LANGUAGES, help="repeatable")
    parser.add_argument("--python-coordinator", type=Path)
    parser.add_argument("--ts-coordinator", type=Path)
    parser.add_argument("--kotlin-coordinator", type=Path)
    parser.add_argument(
        "--kotlin-replace",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="compile the Android kit with PATH in place of its source NAME (repeatable)",
    )
    args = parser.parse_args(argv)
    replace = {}
    for item in args.kotlin_replace:
        name, _, path = item.partition("=")
        replace[name] = Path(path)
    outcomes = []
    for language in args.only or LANGUAGES:
        if language == "python":
            outcome = check_python(args.python_coordinator or run_python.COORDINATOR)
        elif language == "typescript":
            outcome = check_typescript(args.ts_coordinator or RN_KIT / "src" / "coordinator.ts")
        else:
            outcome = check_kotlin(args.kotlin_coordinator or KOTLIN_SOURCES["coordinator"], replace)
        if outcome.output:
            print(outcome.output)
        outcomes.append(outcome)
    summary = ", ".join(f"{o.language} {o.passed}/{o.total}" for o in outcomes)
    print(f"kits-check: app-protocol.json cases passed: {summary}")
    for outcome in outcomes:
        if outcome.facts:
            print(f"kits-check: {outcome.language}: {outcome.facts}")
    if not args.only:
        print(f"kits-check: swift: {SWIFT_NOT_RUN}")
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
