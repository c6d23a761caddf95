"""Run the app-side protocol table against every kit coordinator that can run here.

    python bridge/protocol/kits_check.py                 # python, typescript, kotlin
    python bridge/protocol/kits_check.py --only kotlin   # one language
    python bridge/protocol/kits_check.py --kotlin-coordinator copy.kt   # a copy (mutation tests)

- Python: ``harness/gcbridge_harness/coordinator.py`` (the reference), in this process.
- TypeScript: ``react-native/src/coordinator.ts`` compiled with the kit's own ``tsc`` (``npm ci``
  from the kit's package-lock.json into ``~/.cache/gc-bridge``), run with ``node --test``.
- Kotlin: ``GcJson.kt`` + ``GcSsoCoordinator.kt`` + the table runner compiled by ``kotlinc``
  in one invocation (the jar is cached by the sources' hash), run with ``java``.
- Swift: no compiler here; ``GcSsoCoordinator.swift`` is written to the table line by line.

Ends with one line naming each language and its passed cases; exit status 1 if any case
failed or a toolchain is missing (the install command is printed).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_python  # noqa: E402 - the sibling runner, found from any working directory

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "bridge" / "protocol" / "app-protocol.json"
RN_KIT = ROOT / "bridge" / "platforms" / "react-native"
ANDROID = ROOT / "bridge" / "platforms" / "android" / "gccomments" / "src"
KOTLIN_PACKAGE = "dev/gcbridge/comments"
KOTLIN_SOURCES = {
    "json": ANDROID / "main" / "java" / KOTLIN_PACKAGE / "GcJson.kt",
    "coordinator": ANDROID / "main" / "java" / KOTLIN_PACKAGE / "GcSsoCoordinator.kt",
    "runner": ANDROID / "test" / "java" / KOTLIN_PACKAGE / "GcSsoCoordinatorTable.kt",
}
INSTALL = {
    "node": "sudo apt-get install -y nodejs npm",
    "kotlinc": "sudo apt-get install -y kotlin openjdk-17-jdk-headless",
}
LANGUAGES = ("python", "typescript", "kotlin")


@dataclass
class Outcome:
    language: str
    passed: int
    total: int
    output: str

    @property
    def ok(self) -> bool:
        return self.total > 0 and self.passed == self.total


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
    out = run.stdout + run.stderr
    passed = re.search(r"^# pass (\d+)", out, re.M)
    tests = re.search(r"^# tests (\d+)", out, re.M)
    failed = "\n".join(line for line in out.splitlines() if line.startswith("not ok"))
    detail = failed + ("\n" + out if run.returncode and not failed else "")
    return Outcome(
        "typescript",
        int(passed.group(1)) if passed else 0,
        int(tests.group(1)) if tests else _total(),
        detail.strip(),
    )


def check_kotlin(coordinator: Path = KOTLIN_SOURCES["coordinator"]) -> Outcome:
    kotlinc, java = shutil.which("kotlinc"), shutil.which("java")
    if kotlinc is None or java is None:
        return _missing("kotlin", "kotlinc")
    sources = [KOTLIN_SOURCES["json"], coordinator, KOTLIN_SOURCES["runner"]]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:16]
    jar = cache_root() / f"kotlin-table-{digest}.jar"
    if not jar.is_file():
        jar.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="gc-kt-") as tmp:
            # Copies under the kit's own names (the file name makes the runner's class name),
            # so that a mutated coordinator compiles exactly like the shipped one.
            copies = []
            for index, source in enumerate(sources):
                copy = Path(tmp) / str(index) / f"{source.stem.split('.')[0]}.kt"
                copy.parent.mkdir()
                shutil.copy2(source, copy)
                copies.append(str(copy))
            built = subprocess.run(
                [kotlinc, *copies, "-include-runtime", "-d", str(Path(tmp) / "table.jar")],
                capture_output=True,
                text=True,
                timeout=600,
            )
            if built.returncode != 0:
                errors = [line for line in built.stderr.splitlines() if "error:" in line]
                return Outcome("kotlin", 0, _total(), "kotlinc failed:\n" + "\n".join(errors))
            shutil.move(str(Path(tmp) / "table.jar"), jar)
    run = subprocess.run(
        [java, "-cp", str(jar), "dev.gcbridge.comments.GcSsoCoordinatorTableKt", str(TABLE)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    found = re.search(r"^kotlin: (\d+)/(\d+) cases passed", run.stdout, re.M)
    detail = "\n".join(line for line in run.stdout.splitlines() if not line.startswith("kotlin:"))
    if found is None:
        return Outcome("kotlin", 0, _total(), (run.stdout + run.stderr).strip())
    return Outcome("kotlin", int(found.group(1)), int(found.group(2)), detail.strip())


CHECKS = {"python": check_python, "typescript": check_typescript, "kotlin": check_kotlin}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=LANGUAGES, help="repeatable")
    parser.add_argument("--python-coordinator", type=Path)
    parser.add_argument("--ts-coordinator", type=Path)
    parser.add_argument("--kotlin-coordinator", type=Path)
    args = parser.parse_args(argv)
    overrides = {
        "python": args.python_coordinator,
        "typescript": args.ts_coordinator,
        "kotlin": args.kotlin_coordinator,
    }
    outcomes = []
    for language in args.only or LANGUAGES:
        check = CHECKS[language]
        source = overrides[language]
        outcome = check(source) if source is not None else check()
        if outcome.output:
            print(outcome.output)
        outcomes.append(outcome)
    summary = ", ".join(f"{o.language} {o.passed}/{o.total}" for o in outcomes)
    swift = "" if args.only else "; swift: not compiled here (written to the table line by line)"
    print(f"kits-check: app-protocol.json cases passed: {summary}{swift}")
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
