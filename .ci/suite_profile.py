"""Where the suite's time goes: seconds per folder, and the slowest fixtures.

    python .ci/suite_profile.py [PYTEST ARG...]      # make test-profile PYTEST_ARGS=...

Runs pytest (with the arguments given, after ``--gc-engine all -n auto``) with this
module loaded as a plugin in each worker, then prints:

- per folder, and for the 20 slowest files: tests, seconds summed over setup, call
  and teardown (CPU-time the workers spent, not wall time), and the share of the whole;
- the slowest fixtures: setup seconds summed over every time each was set up, and
  how many times (a session fixture is set up once per worker);
- the run's wall time.

The plugin side (``pytest_fixture_setup``, ``pytest_runtest_logreport``) writes one
JSON file per worker into ``GC_SUITE_PROFILE_DIR``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_DIR_ENV = "GC_SUITE_PROFILE_DIR"
_fixtures: dict[str, list[float]] = defaultdict(list)
_tests: dict[str, float] = defaultdict(float)


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: Any, request: Any) -> Iterator[None]:
    start = time.perf_counter()
    yield
    name = f"{fixturedef.argname} ({fixturedef.scope})"
    _fixtures[name].append(time.perf_counter() - start)


def pytest_runtest_logreport(report: Any) -> None:
    _tests[report.nodeid] += report.duration


def pytest_sessionfinish(session: Any) -> None:
    where = os.environ.get(_DIR_ENV)
    if not where or session.config.pluginmanager.has_plugin("dsession"):
        return  # xdist's controller hears every worker's reports again: the workers write
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    data = {"fixtures": _fixtures, "tests": _tests}
    Path(where, f"{worker}.json").write_text(json.dumps(data), encoding="utf-8")


def _folder(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    parent = str(Path(path).parent)
    return parent if parent != "." else path


def report(where: Path, wall: float) -> list[str]:
    """The printed table, from the workers' JSON files in ``where``."""
    folders: dict[str, list[float]] = defaultdict(list)
    files: dict[str, list[float]] = defaultdict(list)
    fixtures: dict[str, list[float]] = defaultdict(list)
    for file in sorted(where.glob("*.json")):
        data = json.loads(file.read_text(encoding="utf-8"))
        for nodeid, seconds in data["tests"].items():
            folders[_folder(nodeid)].append(seconds)
            files[nodeid.split("::", 1)[0]].append(seconds)
        for name, times in data["fixtures"].items():
            fixtures[name].extend(times)
    total = sum(sum(v) for v in folders.values()) or 1.0
    lines = [f"{'folder':<48} {'tests':>6} {'seconds':>9} {'share':>6}"]
    for folder, times in sorted(folders.items(), key=lambda kv: -sum(kv[1])):
        share = 100 * sum(times) / total
        lines.append(f"{folder:<48} {len(times):>6} {sum(times):>9.1f} {share:>5.1f}%")
    lines.append(
        f"{'all (summed over workers)':<48} {sum(map(len, folders.values())):>6} {total:>9.1f}"
    )
    lines += ["", f"{'slowest files':<60} {'tests':>6} {'seconds':>9}"]
    for name, times in sorted(files.items(), key=lambda kv: -sum(kv[1]))[:20]:
        lines.append(f"{name:<60} {len(times):>6} {sum(times):>9.1f}")
    lines += ["", f"{'slowest fixtures (setup)':<60} {'times':>6} {'seconds':>9}"]
    ranked = sorted(fixtures.items(), key=lambda kv: -sum(kv[1]))[:20]
    for name, times in ranked:
        lines.append(f"{name:<60} {len(times):>6} {sum(times):>9.1f}")
    lines += ["", f"wall time: {wall:.1f} s"]
    return lines


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="gc-suite-profile-") as tmp:
        env = {
            **os.environ,
            _DIR_ENV: tmp,
            "PYTHONPATH": os.pathsep.join(
                [str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]
            ).rstrip(os.pathsep),
        }
        command = [sys.executable, "-m", "pytest", "-p", "suite_profile", "--gc-engine", "all"]
        command += ["-n", "auto", "--dist", "loadgroup", *argv]
        print("==> " + " ".join(command[2:]), flush=True)
        start = time.monotonic()
        code = subprocess.call(command, env=env)  # noqa: S603 - our own pytest
        wall = time.monotonic() - start
        print()
        for line in report(Path(tmp), wall):
            print(line)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
