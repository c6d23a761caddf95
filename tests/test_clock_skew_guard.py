"""No time taken at import, at collection or in a long-lived fixture stands for "now".

A fresh 2-core machine reaches some files minutes after collecting them; a
timestamp taken at import is then minutes old when a test signs with it (issue
20: nine tests red with ``timestamp_too_old``). This guard reads the suite's
sources (tests, the harness and its scenarios, docs_src) and refuses a read of
the wall clock

- at module level or in a class body (it runs at import, i.e. at collection),
- in a default argument value or a decorator (evaluated at import),
- in a fixture of a scope wider than ``function`` (it lives across tests).

Take the timestamp where it is used, or inject a clock. A read that does not
stand for "now" (a duration measured inside the fixture, say) carries
``# clock-ok: <why>`` on its line. ``make test-clock-skew`` runs the whole suite
with the wall clock 400 s behind during collection, the end-to-end form of this.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("tests", "harness", "docs_src")
WALL_CLOCK = {
    ("time", "time"),
    ("time", "time_ns"),
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
}
LONG_SCOPES = {"session", "package", "module", "class"}


def _clock_reads(node: ast.AST) -> Iterator[ast.Call]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            owner = sub.func.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            if (name, sub.func.attr) in WALL_CLOCK:
                yield sub


def _fixture_scope(decorator: ast.expr) -> str | None:
    call = decorator if isinstance(decorator, ast.Call) else None
    func = call.func if call else decorator
    text = ast.unparse(func)
    if not text.endswith("fixture"):
        return None
    for keyword in call.keywords if call else ():
        if keyword.arg == "scope" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    return "function"


def _import_time(tree: ast.Module) -> Iterator[tuple[ast.Call, str]]:
    """Clock reads that run when the module is imported, and in long-lived fixtures."""

    def visit(body: list[ast.stmt], where: str) -> Iterator[tuple[ast.Call, str]]:
        for stmt in body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                for default in [*stmt.args.defaults, *stmt.args.kw_defaults]:
                    if default is not None:
                        yield from ((c, "a default argument") for c in _clock_reads(default))
                for decorator in stmt.decorator_list:
                    yield from ((c, "a decorator") for c in _clock_reads(decorator))
                    scope = _fixture_scope(decorator)
                    if scope in LONG_SCOPES:
                        for call in _clock_reads(stmt):
                            yield call, f"a {scope}-scoped fixture"
            elif isinstance(stmt, ast.ClassDef):
                for decorator in stmt.decorator_list:
                    yield from ((c, "a decorator") for c in _clock_reads(decorator))
                yield from visit(stmt.body, "a class body")
            else:
                yield from ((c, where) for c in _clock_reads(stmt))

    yield from visit(tree.body, "module level")


def _python_files() -> Iterator[Path]:
    for folder in SOURCES:
        yield from sorted((ROOT / folder).rglob("*.py"))


def findings(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    out = []
    for call, where in _import_time(ast.parse(text, filename=str(path))):
        line = lines[call.lineno - 1]
        if "# clock-ok:" not in line:
            rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            out.append(f"{rel}:{call.lineno}: {ast.unparse(call)} in {where}")
    return out


def test_no_wall_clock_read_at_import_or_in_long_lived_fixtures() -> None:
    found = [f for path in _python_files() for f in findings(path)]
    assert found == [], "take timestamps when used, or inject a clock:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "source, where",
    [
        ("import time\nSTART = time.time()\n", "module level"),
        ("import itertools, time\n_ts = itertools.count(int(time.time() * 1000))\n", "module"),
        ("from datetime import datetime\nclass T:\n    NOW = datetime.now()\n", "a class body"),
        ("import time\ndef sign(ts=int(time.time())):\n    pass\n", "a default argument"),
        (
            "import pytest, time\n@pytest.fixture(scope='session')\n"
            "def issued():\n    return time.time()\n",
            "a session-scoped fixture",
        ),
    ],
)
def test_the_guard_finds_each_form(tmp_path: Path, source: str, where: str) -> None:
    path = tmp_path / "test_x.py"
    path.write_text(source, encoding="utf-8")
    found = findings(path)
    assert len(found) == 1 and where in found[0], found


def test_the_guard_allows_reads_when_used(tmp_path: Path) -> None:
    path = tmp_path / "test_x.py"
    path.write_text(
        "import pytest, time\n"
        "def headers():\n    return int(time.time() * 1000)\n"
        "@pytest.fixture\ndef issued():\n    return time.time()\n"
        "@pytest.fixture(scope='module')\ndef server():\n"
        "    started = time.time()  # clock-ok: a duration, printed at the end\n",
        encoding="utf-8",
    )
    assert findings(path) == []


def test_the_skew_shim_moves_the_wall_clock_and_nothing_else(tmp_path: Path) -> None:
    """``make test-clock-skew``'s preload: wall clock behind by the file's seconds, sleeps work."""
    import shutil
    import subprocess
    import sys

    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not found: make test-clock-skew builds .ci/clock_skew.c with it")
    lib = tmp_path / "skew.so"
    subprocess.run(
        [gcc, "-O2", "-shared", "-fPIC", "-o", str(lib), str(ROOT / ".ci/clock_skew.c"), "-ldl"],
        check=True,
    )
    skew = tmp_path / "skew"
    skew.write_text("-400\n")
    probe = (
        "import datetime, pathlib, sys, time\n"
        "before, day = time.time(), datetime.datetime.now().timestamp()\n"
        "time.sleep(0.01)\n"
        "pathlib.Path(sys.argv[1]).write_text('0\\n')\n"
        "print(time.time() - before, day - before)\n"
    )
    env = {"LD_PRELOAD": str(lib), "GC_CLOCK_SKEW_FILE": str(skew), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", probe, str(skew)], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    jump, same = (float(x) for x in out.stdout.split())
    assert 399 < jump < 460  # the clock caught up by the skew once the file said 0
    assert abs(same) < 5  # datetime.now() is shifted like time.time()
