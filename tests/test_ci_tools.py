"""The suite's own tools: ``make test-under-load``'s load and ``make test-profile``'s table."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

CI = Path(__file__).resolve().parents[1] / ".ci"


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_under_load_busies_every_core_while_the_command_runs_then_stops_them() -> None:
    # The command lists its parent's spinning children: the burners, while it runs.
    probe = (
        "import os, pathlib, sys;"
        "ppid = os.getppid();"
        "kids = [s.parent.name for s in pathlib.Path('/proc').glob('[0-9]*/status')"
        " if f'\\nPPid:\\t{ppid}\\n' in s.read_text()"
        " and (s.parent / 'cmdline').read_bytes().endswith(b'-c\\0while True: pass\\0')];"
        "print(' '.join(kids)); sys.exit(3)"
    )
    run = subprocess.run(
        [sys.executable, str(CI / "under_load.py"), "--", sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 3, run.stderr  # the command's own status
    banner, burners = run.stdout.splitlines()
    cores = os.cpu_count() or 1
    assert banner.startswith(f"==> under load: {cores} busy process(es) at the same priority")
    assert len(burners.split()) == cores
    # stopped and reaped once the command is over
    assert not [pid for pid in burners.split() if Path("/proc", pid).exists()]


def test_the_profile_sums_each_folder_and_ranks_the_fixtures(tmp_path: Path) -> None:
    sys.path.insert(0, str(CI))
    try:
        import suite_profile
    finally:
        sys.path.remove(str(CI))
    workers = {
        "gw0": {
            "tests": {"tests/sso/test_a.py::test_x": 1.5, "tests/webhooks/test_b.py::t": 4.0},
            "fixtures": {"gc_wheel (session)": [20.0], "tmp_path (function)": [0.1, 0.1]},
        },
        "gw1": {
            "tests": {"tests/sso/test_c.py::test_y": 0.5, "tests/test_top.py::test_z": 2.0},
            "fixtures": {"tmp_path (function)": [0.2]},
        },
    }
    for worker, data in workers.items():
        (tmp_path / f"{worker}.json").write_text(json.dumps(data), encoding="utf-8")
    lines = suite_profile.report(tmp_path, wall=7.25)
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:5]}
    assert rows["tests/webhooks"][:2] == ["1", "4.0"]
    assert rows["tests/sso"][:2] == ["2", "2.0"]
    assert rows["tests"][:2] == ["1", "2.0"]  # a file at the top counts as its folder
    assert lines.index("") < lines.index(next(ln for ln in lines if ln.startswith("gc_wheel")))
    fixture_rows = [ln for ln in lines if "(session)" in ln or "(function)" in ln]
    assert fixture_rows[0].split()[:4] == ["gc_wheel", "(session)", "1", "20.0"]
    assert fixture_rows[1].split()[:4] == ["tmp_path", "(function)", "3", "0.4"]
    assert lines[-1] == "wall time: 7.2 s"


def test_the_profile_counts_each_test_once_under_xdist(tmp_path: Path) -> None:
    # xdist's controller hears every worker's reports again: only the workers write.
    (tmp_path / "test_three.py").write_text(
        "def test_a(): pass\ndef test_b(): pass\ndef test_c(): pass\n", encoding="utf-8"
    )
    out = tmp_path / "profile"
    out.mkdir()
    env = {**os.environ, "GC_SUITE_PROFILE_DIR": str(out), "PYTHONPATH": str(CI)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "suite_profile", "-n", "2"]
        + ["-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    written = [json.loads(f.read_text(encoding="utf-8")) for f in out.glob("*.json")]
    assert sorted(n for data in written for n in data["tests"]) == [
        "test_three.py::test_a",
        "test_three.py::test_b",
        "test_three.py::test_c",
    ]


def test_the_suite_gives_its_commands_a_terminals_ctrl_c(tmp_path: Path) -> None:
    # Started with SIGINT ignored (`make test &` from a script): the commands the tests
    # start must still stop on the Ctrl-C the tests send them.
    conftest = Path(__file__).with_name("conftest.py").read_text(encoding="utf-8")
    (tmp_path / "conftest.py").write_text(conftest, encoding="utf-8")
    (tmp_path / "test_child.py").write_text(
        "import signal, subprocess, sys\n"
        "def test_a_child_stops_on_ctrl_c():\n"
        "    code = 'import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)'\n"
        "    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)\n"
        "    assert out.stdout.strip() == 'False'\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),  # noqa: PLW1509
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
