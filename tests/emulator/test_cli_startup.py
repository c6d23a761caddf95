"""``gcbridge emulator`` (and ``demo``) at start: errors that name their cause.

``--data-dir`` that cannot be the data directory (a file, a path under a file, a
directory that cannot be created) is one line with a reason, no traceback; a
mistyped option is blamed, not the ``ready`` sub-command. Once listening it names
its dashboard; a second emulator on a data directory in use is refused.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from gcbridge.cli import main


def _bad_dirs(tmp_path: Path) -> list[tuple[Path, str]]:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a directory", encoding="utf-8")
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(locked, 0o500)
    cases = [(a_file, "it is a file"), (a_file / "sub", "is a file")]
    if os.geteuid() != 0:  # root creates directories anywhere
        cases.append((locked / "sub", "permission denied"))
    return cases


@pytest.mark.parametrize("command", [["emulator", "--port", "0"], ["demo", "--headless"]])
def test_a_data_dir_that_cannot_be_used_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    for where, why in _bad_dirs(tmp_path):
        code = main([*command, "--data-dir", str(where)])
        err = capsys.readouterr().err
        assert code == 1
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith("gcbridge: error [bad_data_dir]: --data-dir ")
        assert why in lines[0]
        assert "Traceback" not in err


@pytest.mark.parametrize("argv", [["--prot", "8000"], ["--port", "0", "--data-dri", "x"]])
def test_a_mistyped_option_is_blamed_not_the_ready_subcommand(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["emulator", *argv])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "ready" not in err.splitlines()[-1] and "invalid choice" not in err
    assert f"unrecognized arguments: {argv[-2]} (did you mean " in err


def _start(data_dir: Path) -> tuple[subprocess.Popen[str], list[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gcbridge", "emulator", "--port", "0", "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line.rstrip("\n"))
        if line.startswith("gcbridge emulator ready on "):
            return proc, seen
    raise AssertionError(f"exited before ready: {seen} {proc.stderr.read() if proc.stderr else ''}")


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)


def test_the_dashboard_url_is_printed_and_a_second_emulator_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    proc, seen = _start(data)
    try:
        url = seen[-1].removeprefix("gcbridge emulator ready on ")
        assert f"gcbridge emulator: dashboard {url}/dashboard/ · API {url}/docs" in seen
        assert httpx.get(f"{url}/dashboard/").status_code == 200

        # a second emulator on the same data dir, another port: refused in one line
        assert main(["emulator", "--port", "0", "--data-dir", str(data)]) == 1
        err = capsys.readouterr().err
        assert err.startswith("gcbridge: error [data_dir_in_use]: --data-dir ")
        assert f"(pid {proc.pid})" in err and err.count("\n") == 1
        assert httpx.get(f"{url}/healthz").status_code == 200  # the first one is untouched
    finally:
        _stop(proc)
    # stopped: the directory is free again (the lock went with the process)
    again, _ = _start(data)
    _stop(again)


def test_the_lock_is_released_when_its_holder_returns(tmp_path: Path) -> None:
    from gcbridge.emulator.datalock import lock_data_dir
    from gcbridge.emulator.errors import ConfigError

    first = lock_data_dir(tmp_path / "d")
    with pytest.raises(ConfigError) as refused:
        lock_data_dir(tmp_path / "d")
    assert refused.value.reason == "data_dir_in_use"
    assert f"pid {os.getpid()}" in str(refused.value)
    first.release()
    with lock_data_dir(tmp_path / "d"):
        pass
    assert oct((tmp_path / "d" / "emulator.lock").stat().st_mode & 0o777) == "0o600"
