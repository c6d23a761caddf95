"""Compile the whole Android kit against the real Android classes and run its JVM tests.

    python bridge/protocol/android_check.py            # what kits_check.py's kotlin step does

Everything comes from Maven Central through ``mvn`` (bridge/platforms/android/check/):

- ``kotlinc/pom.xml``: the Kotlin compiler (``kotlin-compiler-embeddable``), run with ``java``;
- ``pom.xml``: ``org.robolectric:android-all`` (the Android framework's real classes, one API
  level), ``kotlinx-coroutines-android``, ``kotlin-stdlib`` and JUnit 4;
- ``robolectric/pom.xml``: Robolectric, for the tests named ``*RobolectricTest`` (the
  controller's glue on Robolectric's Android, offline, instrumenting the same android-all);
- ``stubs/``: androidx.webkit, which only Google's Maven repository serves, as a stub written
  from its API reference; only the kit's adapter ``GcWebkit.kt`` uses it.

The jars are copied once into ``~/.cache/gc-bridge/android-toolchain-<hash of the poms>`` (Maven's
own repository under ``~/.cache/gc-bridge/m2``; ``$GC_BRIDGE_CACHE`` moves both), the compiled
classes into ``android-build-<hash of the sources>``. The kit's main sources are compiled on their
own (``java.*`` from the JDK, at release 17, as android-all has none), then its tests
(``gccomments/src/test``), which JUnit runs on the JVM (the Robolectric ones on Robolectric),
and the app-side table runner.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ANDROID = ROOT / "bridge" / "platforms" / "android"
CHECK = ANDROID / "check"
SRC = ANDROID / "gccomments" / "src"
MAIN = SRC / "main" / "java"
TEST = SRC / "test" / "java"
PACKAGE = "dev.gcbridge.comments"
COMPILER = "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler"


class ToolchainError(Exception):
    """A tool is missing or Maven could not fetch (the message says which, and how to fix)."""


def cache_root() -> Path:
    explicit = os.environ.get("GC_BRIDGE_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gc-bridge"


@contextlib.contextmanager
def _locked(name: str):
    """One process at a time fetches or compiles (pytest-xdist workers share the cache)."""
    cache_root().mkdir(parents=True, exist_ok=True)
    with open(cache_root() / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _digest(paths: list[Path], extra: str = "") -> str:
    hasher = hashlib.sha256(extra.encode())
    for path in paths:
        hasher.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return hasher.hexdigest()[:16]


def _property(pom: Path, name: str) -> str:
    found = re.search(rf"<{re.escape(name)}>([^<]+)</{re.escape(name)}>", pom.read_text())
    if found is None:
        raise ToolchainError(f"{pom}: no <{name}> property")
    return found.group(1)


@dataclass(frozen=True)
class Toolchain:
    compiler: list[Path]
    classpath: list[Path]
    kotlin: str
    language: str
    api: int
    android_all: str
    junit: str
    #: Robolectric's jars (``robolectric/pom.xml``), for the tests named *RobolectricTest
    robolectric: list[Path]
    robolectric_version: str


def _jar_version(jars: list[Path], artifact: str) -> str:
    for jar in jars:
        found = re.fullmatch(rf"{re.escape(artifact)}-(.+)\.jar", jar.name)
        if found:
            return found.group(1)
    return "?"


def _copy_dependencies(pom: Path, into: Path, repo: Path) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ToolchainError("mvn not found; install it with: sudo apt-get install -y maven")
    command = [
        mvn, "-B", "-f", str(pom), "dependency:copy-dependencies",
        f"-DoutputDirectory={into}", f"-Dmaven.repo.local={repo}",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    tail: list[str] = []
    for line in process.stdout:
        tail = [*tail[-30:], line.rstrip()]
        if "Downloaded from" in line and ".jar " in line:
            # progress: one line per jar, "name-version.jar (size at speed)"; android-all is ~180 MB
            url, _, size = line.split(": ", 1)[-1].strip().partition(" ")
            print(f"    {url.rsplit('/', 1)[-1]} {size}", flush=True)
    if process.wait() != 0:
        detail = "\n".join(tail)
        raise ToolchainError(
            f"mvn could not fetch {pom} (Maven Central must be reachable):\n{detail}"
        )


def _fetch(poms: list[Path], home: Path) -> None:
    print(
        f"==> fetching the Android kit's toolchain from Maven Central into {home}\n"
        "    (once: the Kotlin compiler, android-all, coroutines, JUnit, Robolectric; ~430 MB)",
        flush=True,
    )
    cache_root().mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="android-toolchain-", dir=cache_root()))
    try:
        _copy_dependencies(poms[0], work / "kotlinc", cache_root() / "m2")
        _copy_dependencies(poms[1], work / "classpath", cache_root() / "m2")
        _copy_dependencies(poms[2], work / "robolectric", cache_root() / "m2")
        for aar in (work / "robolectric").glob("*.aar"):  # androidx.test: classes.jar inside
            with zipfile.ZipFile(aar) as archive:
                (work / "robolectric" / f"{aar.stem}.jar").write_bytes(archive.read("classes.jar"))
        (work / ".installed").write_text("ok\n")
        shutil.rmtree(home, ignore_errors=True)
        work.rename(home)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def toolchain() -> Toolchain:
    """The compiler's and the kit's jars, fetched once per pom version."""
    poms = [CHECK / "kotlinc" / "pom.xml", CHECK / "pom.xml", CHECK / "robolectric" / "pom.xml"]
    home = cache_root() / f"android-toolchain-{_digest(poms)}"
    stamp = home / ".installed"
    with _locked("android-toolchain"):
        if not stamp.is_file():
            _fetch(poms, home)
    classpath = sorted((home / "classpath").glob("*.jar"))
    return Toolchain(
        compiler=sorted((home / "kotlinc").glob("*.jar")),
        classpath=classpath,
        kotlin=_property(poms[0], "kotlin.version"),
        language=_property(poms[1], "kotlin.languageVersion"),
        api=int(_property(poms[1], "android.api")),
        android_all=_jar_version(classpath, "android-all"),
        junit=_jar_version(classpath, "junit"),
        robolectric=sorted((home / "robolectric").glob("*.jar")),
        robolectric_version=_jar_version(sorted((home / "robolectric").glob("*.jar")), "robolectric"),
    )


@dataclass(frozen=True)
class Build:
    toolchain: Toolchain
    main: Path
    test: Path
    stubs: Path
    main_files: int
    test_classes: list[str]
    robolectric_classes: list[str] = field(default_factory=list)
    #: the kit's assets as an APK-like zip, for the Robolectric tests (no Android Gradle plugin here)
    assets_zip: Path | None = None

    def runtime(self) -> str:
        return os.pathsep.join(
            map(str, [self.test, self.main, self.stubs, *self.toolchain.classpath])
        )


def _sources(overrides: dict[str, Path]) -> tuple[list[Path], list[Path], list[Path]]:
    main = sorted(MAIN.rglob("*.kt"))
    names = {p.name for p in main}
    unknown = set(overrides) - names
    if unknown:
        raise ToolchainError(f"no such kit source to replace: {sorted(unknown)}")
    main = [overrides.get(p.name, p) for p in main]
    return main, sorted(TEST.rglob("*.kt")), sorted((CHECK / "stubs").rglob("*.java"))


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        lines = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
        errors = [ln for ln in lines if "error:" in ln] or lines[-40:]
        raise ToolchainError(f"{what} failed:\n" + "\n".join(errors))


def _kotlinc(
    tools: Toolchain, sources: list[Path], classpath: list[Path], out: Path, *flags: str
) -> None:
    java = shutil.which("java") or "java"
    command = [
        java, "-Xss8m", "-cp", os.pathsep.join(map(str, tools.compiler)), COMPILER,
        "-jvm-target", "17", "-no-stdlib", "-no-reflect", *flags,
        "-language-version", tools.language, "-api-version", tools.language,
        "-classpath", os.pathsep.join(map(str, classpath)), "-d", str(out), *map(str, sources),
    ]  # fmt: skip
    _run(command, "kotlinc " + out.name)


def _compile(
    tools: Toolchain, main: list[Path], test: list[Path], stubs: list[Path], out: Path
) -> None:
    dirs = {name: out / name for name in ("stubs", "main", "test")}
    print(
        f"==> compiling the Android kit ({len(main)} files) with Kotlin {tools.kotlin}", flush=True
    )
    cache_root().mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="android-build-", dir=cache_root()))
    try:
        work = {name: tmp / name for name in dirs}
        android = [p for p in tools.classpath if p.name.startswith("android-all")]
        javac = shutil.which("javac") or "javac"
        _run(
            [javac, "--release", "17", "-nowarn", "-cp", os.pathsep.join(map(str, android)),
             "-d", str(work["stubs"]), *map(str, stubs)],
            "javac (androidx.webkit stub)",
        )  # fmt: skip
        # android-all holds android.*, org.json and the like, not java.*: that is the JDK's
        # (as in Robolectric); -Xjdk-release keeps it at the kit's Java 17
        _kotlinc(tools, main, [work["stubs"], *tools.classpath], work["main"], "-Xjdk-release=17")
        # -Xfriend-paths: the tests see the kit's internals, as in Gradle's test source set
        friends = f"-Xfriend-paths={work['main']}"
        _kotlinc(
            tools,
            test,
            [work["main"], work["stubs"], *tools.classpath, *tools.robolectric],
            work["test"],
            friends,
        )
        (tmp / ".built").write_text("ok\n")
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def build(overrides: dict[str, Path] | None = None) -> Build:
    """Compiles the stubs, the kit's main sources (on their own) and its tests; cached."""
    overrides = overrides or {}
    if shutil.which("java") is None or shutil.which("javac") is None:
        raise ToolchainError(
            "java/javac not found; install: sudo apt-get install -y openjdk-17-jdk-headless"
        )
    tools = toolchain()
    main, test, stubs = _sources(overrides)
    extra = f"{tools.kotlin} {tools.language} {tools.android_all} {tools.robolectric_version}"
    key = _digest(main + test + stubs, extra=extra)
    out = cache_root() / f"android-build-{key}"
    dirs = {name: out / name for name in ("stubs", "main", "test")}
    with _locked(f"android-build-{key}"):
        if not (out / ".built").is_file():
            _compile(tools, main, test, stubs, out)
    prefix = PACKAGE.replace(".", "/")
    tests = sorted(
        f"{PACKAGE}.{p.stem}"
        for p in (dirs["test"] / prefix).glob("*Test.class")
        if "$" not in p.stem
    )
    robolectric = [name for name in tests if name.endswith("RobolectricTest")]
    plain = [name for name in tests if name not in robolectric]
    assets = out / "kit-assets.zip"
    if not assets.is_file():
        with zipfile.ZipFile(assets.with_suffix(".tmp"), "w") as archive:
            for path in sorted((SRC / "main" / "assets").iterdir()):
                archive.write(path, f"assets/{path.name}")
        assets.with_suffix(".tmp").rename(assets)
    main_dir, test_dir, stubs_dir = dirs["main"], dirs["test"], dirs["stubs"]
    return Build(tools, main_dir, test_dir, stubs_dir, len(main), plain, robolectric, assets)


def build_table(coordinator: Path) -> Build:
    """Only GcJson.kt, [coordinator] and the table runner (mutation tests of the coordinator).

    The coordinator imports nothing of Android: a copy of it needs no whole-kit compile to be
    held to the table, and this is a third of the time on a busy machine. Cached by hash.
    """
    tools = toolchain()
    sources = [MAIN / "dev/gcbridge/comments/GcJson.kt", coordinator]
    runner = [TEST / "dev/gcbridge/comments/GcSsoCoordinatorTable.kt"]
    key = _digest(sources + runner, extra=f"table {tools.kotlin} {tools.language}")
    out = cache_root() / f"android-table-{key}"
    with _locked(f"android-table-{key}"):
        if not (out / ".built").is_file():
            cache_root().mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix="android-table-", dir=cache_root()))
            try:
                stdlib = [p for p in tools.classpath if p.name.startswith("kotlin-stdlib")]
                _kotlinc(tools, sources + runner, stdlib, tmp / "classes")
                (tmp / ".built").write_text("ok\n")
                shutil.rmtree(out, ignore_errors=True)
                tmp.rename(out)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    classes = out / "classes"
    return Build(tools, classes, classes, classes, len(sources), [])


@dataclass(frozen=True)
class JUnitResult:
    passed: int
    total: int
    output: str


def run_junit(built: Build) -> JUnitResult:
    java = shutil.which("java") or "java"
    done = subprocess.run(
        [java, "-cp", built.runtime(), "org.junit.runner.JUnitCore", *built.test_classes],
        capture_output=True,
        text=True,
        timeout=600,
    )
    return _junit_result(done.stdout + done.stderr)


def _junit_result(out: str) -> JUnitResult:
    """JUnitCore's closing lines: ``OK (N tests)``, or ``Tests run: N,  Failures: M``."""
    ok = re.search(r"^OK \((\d+) tests?\)", out, re.M)
    if ok:
        return JUnitResult(int(ok.group(1)), int(ok.group(1)), "")
    counts = re.search(r"^Tests run: (\d+),\s+Failures: (\d+)", out, re.M)
    if counts is None:
        return JUnitResult(0, 0, out.strip()[-3000:])
    total, failed = int(counts.group(1)), int(counts.group(2))
    failures = [
        ln
        for ln in out.splitlines()
        if re.match(r"^\d+\) ", ln) or ln.startswith(("java.lang.AssertionError", "org.junit"))
    ]
    return JUnitResult(total - failed, total, "\n".join(failures))


def run_robolectric(built: Build) -> JUnitResult:
    """The *RobolectricTest classes on Robolectric, offline, against the plain android-all.

    Robolectric instruments android-all as it loads it (``usePreinstrumentedJars=false``), so no
    jar beyond the toolchain is fetched at run time. The result is cached with the build (the
    tests are deterministic: no real clock, no network), so a warm kits-check costs nothing here.
    """
    if not built.robolectric_classes:
        return JUnitResult(0, 0, "")
    cached = built.test.parent / "robolectric-result.txt"
    if cached.is_file():
        passed, total = map(int, cached.read_text().split())
        return JUnitResult(passed, total, "")
    java = shutil.which("java") or "java"
    android_all = [p for p in built.toolchain.classpath if p.name.startswith("android-all")]
    runtime = os.pathsep.join([built.runtime(), *map(str, built.toolchain.robolectric)])
    done = subprocess.run(
        [
            java,
            "-Drobolectric.offline=true",
            f"-Drobolectric.dependency.dir={android_all[0].parent}",
            "-Drobolectric.usePreinstrumentedJars=false",
            "-Drobolectric.logging=stderr" if os.environ.get("GC_ROBOLECTRIC_LOG") else "-Dgc=0",
            f"-Dgc.test.assetsApk={built.assets_zip}",
            "-cp",
            runtime,
            "org.junit.runner.JUnitCore",
            *built.robolectric_classes,
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    result = _junit_result(done.stdout + done.stderr)
    if result.total and result.passed == result.total:
        cached.write_text(f"{result.passed} {result.total}\n")
    return result


def run_main(
    built: Build, main_class: str, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    java = shutil.which("java") or "java"
    return subprocess.run(
        [java, "-cp", built.runtime(), f"{PACKAGE}.{main_class}", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def main() -> int:
    try:
        built = build()
    except ToolchainError as exc:
        print(exc)
        return 1
    results = [run_junit(built), run_robolectric(built)]
    for result in results:
        if result.output:
            print(result.output)
    tools = built.toolchain
    junit, robo = results
    print(
        f"android: {built.main_files} kit files compiled by Kotlin {tools.kotlin} against "
        f"android-all {tools.android_all} (API {tools.api}); JUnit {junit.passed}/{junit.total}; "
        f"Robolectric {robo.passed}/{robo.total}"
    )
    return 0 if all(r.total and r.passed == r.total for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
