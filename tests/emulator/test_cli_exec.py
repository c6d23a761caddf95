"""``gcbridge emulator exec`` and the emulator's new options, run as a user runs them."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A CMD that checks its environment against the live emulator, then exits 3.
PROBE = """
import json, os, sys, urllib.request
env = {k: v for k, v in os.environ.items() if k.startswith("GC_")}
health = json.load(urllib.request.urlopen(env["GC_EMULATOR_URL"] + "/_emulator/health"))
req = urllib.request.Request(
    env["GC_EMULATOR_URL"] + "/_emulator/clock",
    headers={"Authorization": "Bearer " + env["GC_EMULATOR_ADMIN_TOKEN"]},
)
clock = json.load(urllib.request.urlopen(req))
print(json.dumps({"names": sorted(env), "health": health, "clock": clock,
                  "argv": sys.argv[1:], "shortname": env["GC_SHORTNAME"]}))
sys.exit(3)
"""


def gcbridge(*args: str) -> list[str]:
    return [sys.executable, "-m", "gcbridge", *args]


def base_env(**extra: str) -> dict[str, str]:
    # Without this run's own GC_ variables (make test-clock-skew sets GC_CLOCK_SKEW_FILE):
    # the GC_ variables CMD sees are then exactly those exec gives it.
    env = {k: v for k, v in os.environ.items() if not k.startswith("GC_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "harness")])
    env.update(extra)
    return env


def test_exec_runs_the_command_with_the_emulator_in_its_environment(tmp_path: Path) -> None:
    result = subprocess.run(
        gcbridge(
            "emulator",
            "exec",
            "--ephemeral",
            "--clock",
            "manual",
            "--",
            sys.executable,
            "-c",
            PROBE,
            "--port",
            "x",
        ),
        env=base_env(),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 3, result.stderr
    seen = json.loads(result.stdout)
    assert seen["names"] == sorted(
        [
            "GC_EMULATOR_URL",
            "GC_EMULATOR_ADMIN_TOKEN",
            "GC_WEBSITE_ID",
            "GC_SHORTNAME",
            "GC_ACCOUNT_TOKEN",
            "GC_SSO_PUBLIC_KEY",
            "GC_SSO_SECRET",
        ]
    )
    assert seen["argv"] == ["--port", "x"]  # CMD's own options are its own
    assert seen["health"]["clock"]["mode"] == "manual"
    assert seen["clock"]["mode"] == "manual"
    assert seen["shortname"] == "demo"
    assert "ready on http://127.0.0.1:" in result.stderr
    assert not list(tmp_path.iterdir())  # --ephemeral: nothing left in the working dir


def test_exec_passes_a_zero_status_on_and_removes_its_temporary_data(tmp_path: Path) -> None:
    script = "import os; print(os.environ['GC_EMULATOR_URL'])"
    result = subprocess.run(
        gcbridge("emulator", "exec", "--ephemeral", "--", sys.executable, "-c", script),
        env=base_env(TMPDIR=str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("http://127.0.0.1:")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("gcbridge-emulator-")]


def test_exec_uses_an_admin_token_from_the_environment(tmp_path: Path) -> None:
    script = "import os; print(os.environ['GC_EMULATOR_ADMIN_TOKEN'])"
    result = subprocess.run(
        gcbridge(
            "emulator",
            "exec",
            "--data-dir",
            str(tmp_path / "d"),
            "--admin-token-env",
            "MY_TOKEN",
            "--",
            sys.executable,
            "-c",
            script,
        ),
        env=base_env(MY_TOKEN="token-of-the-ci-0123456789"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "token-of-the-ci-0123456789"
    assert not (tmp_path / "d" / "admin-token").exists()


@pytest.mark.parametrize(
    "args,reason,status",
    [
        (["--"], "no_command", 2),
        ([], "no_command", 2),
        (["--admin-token-env", "UNSET_VAR_X", "--", "true"], "admin_token_env_unset", 1),
        (["--ephemeral", "--data-dir", "x", "--", "true"], "bad_data_dir", 1),
        (["--", "/nonexistent/command"], "command_failed", 2),
    ],
)
def test_exec_usage_errors_are_one_line_with_a_reason(
    tmp_path: Path, args: list[str], reason: str, status: int
) -> None:
    result = subprocess.run(
        gcbridge("emulator", "exec", *args),
        env=base_env(),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == status
    assert f"[{reason}]" in result.stderr


def _exec_started(
    tmp_path: Path, on_signal: str, env: dict[str, str] | None = None, **popen: Any
) -> subprocess.Popen[str]:
    """``emulator exec`` running a command that handles a signal (``on_signal``, Python
    lines), returned once the command has started under the emulator. The command writes
    its process id to ``tmp_path / "started"``."""
    marker = tmp_path / "started"
    script = (
        "import os, pathlib, signal, subprocess, sys, time\n"
        f"{on_signal}\n"
        "pathlib.Path(sys.argv[1]).write_text(str(os.getpid())); time.sleep(600)"
    )
    proc = subprocess.Popen(
        gcbridge(
            "emulator", "exec", "--ephemeral", "--", sys.executable, "-c", script, str(marker)
        ),
        env=env or base_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )
    deadline = time.monotonic() + 60
    while not (marker.exists() and marker.read_text()):
        if proc.poll() is not None or time.monotonic() > deadline:
            if proc.poll() is None:
                if popen.get("start_new_session"):
                    os.killpg(proc.pid, signal.SIGKILL)
                else:
                    proc.kill()
            _, err = proc.communicate()
            raise AssertionError(f"the command did not start under the emulator: {err}")
        time.sleep(0.05)
    return proc


def test_ctrl_c_stops_the_command_and_the_emulator(tmp_path: Path) -> None:
    proc = _exec_started(
        tmp_path,
        "signal.signal(signal.SIGINT, lambda *a: sys.exit(0))",
        start_new_session=True,
    )
    try:
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "stopped (SIGINT)" in err
    assert "Traceback" not in err


def test_sigterm_is_passed_on_to_the_command(tmp_path: Path) -> None:
    proc = _exec_started(tmp_path, "signal.signal(signal.SIGTERM, lambda *a: sys.exit(9))")
    try:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert "Traceback" not in err


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (ended, not yet reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _gone_within(pid: int, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while _running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def test_sighup_is_taken_as_sigterm_and_the_ephemeral_dir_is_removed(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    got = tmp_path / "got"
    proc = _exec_started(
        tmp_path,
        f"signal.signal(signal.SIGTERM, lambda *a: (pathlib.Path({str(got)!r}).write_text("
        "'SIGTERM'), sys.exit(9)))",
        env=base_env(TMPDIR=str(temp)),
    )
    command = int((tmp_path / "started").read_text())
    assert [p.name[:18] for p in temp.iterdir()] == ["gcbridge-emulator-"]
    try:
        proc.send_signal(signal.SIGHUP)  # the terminal closed
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        _kill(command)
    assert proc.returncode == 129, err
    assert err.splitlines()[-1] == "gcbridge emulator exec: stopped (SIGHUP)"
    assert got.read_text() == "SIGTERM"  # the command was asked to stop as by SIGTERM
    assert _gone_within(command)
    assert list(temp.iterdir()) == []  # admin token, account token, SSO secret: all gone


def test_sigterm_stops_the_commands_own_children_too(tmp_path: Path) -> None:
    child_pid = tmp_path / "child"
    # the command starts a child of its own, then exits on SIGTERM without stopping it
    proc = _exec_started(
        tmp_path,
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"pathlib.Path({str(child_pid)!r}).write_text(str(child.pid))\n"
        "signal.signal(signal.SIGTERM, lambda *a: os._exit(9))",
    )
    grandchild = int(child_pid.read_text())
    try:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 143, err
        assert _gone_within(grandchild), "the command's child outlived exec's stop"
    finally:
        if proc.poll() is None:
            proc.kill()
        _kill(grandchild)


def test_the_emulator_with_ephemeral_removes_its_data_on_sighup(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        gcbridge("emulator", "--ephemeral", "--port", "0"),
        env=base_env(TMPDIR=str(tmp_path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("gcbridge emulator ready on"):
                break
        assert [p.name[:18] for p in tmp_path.iterdir()] == ["gcbridge-emulator-"]
        proc.send_signal(signal.SIGHUP)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 129, err
    assert err.splitlines()[-1] == "gcbridge emulator: stopped (SIGHUP)"
    assert list(tmp_path.iterdir()) == []


def test_the_emulator_with_ephemeral_removes_its_data_at_exit(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        gcbridge("emulator", "--ephemeral", "--port", "0", "--clock", "manual"),
        env=base_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("gcbridge emulator ready on"):
                break
        token_line = next(x for x in lines if "admin token of /_emulator/ routes in" in x)
        token_file = Path(token_line.rsplit(" in ", 1)[1].strip())
        data_dir = token_file.parent
        assert token_file.is_file() and (data_dir / "emulator.sqlite3").is_file()
        assert data_dir.name.startswith("gcbridge-emulator-")
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert not data_dir.exists()
    assert not list(tmp_path.iterdir())


def test_a_command_ended_by_a_signal_gives_128_plus_its_number(tmp_path: Path) -> None:
    script = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    result = subprocess.run(
        gcbridge("emulator", "exec", "--ephemeral", "--", sys.executable, "-c", script),
        env=base_env(),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 143, result.stderr


def test_a_command_run_in_a_terminal_can_read_it(tmp_path: Path) -> None:
    # The command has a process group of its own: it gets the terminal while it runs
    # (as a shell's job does), or reading it would stop it (SIGTTIN) for good.
    import pty
    import select

    argv = gcbridge("emulator", "exec", "--ephemeral", "--", sys.executable, "-c")
    argv.append("print('got', input())")
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover (the child)
        os.chdir(tmp_path)
        os.execve(sys.executable, argv, base_env())
    out, status = b"", None
    try:
        os.write(fd, b"hello\n")  # kept by the terminal until read
        deadline = time.monotonic() + 60
        while status is None and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.2)[0]:
                with contextlib.suppress(OSError):  # the terminal closed: all have exited
                    out += os.read(fd, 1024)
            done, code = os.waitpid(pid, os.WNOHANG)
            status = code if done else None
    finally:
        if status is None:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    assert b"got hello" in out, out
    assert status is not None and os.waitstatus_to_exitcode(status) == 0, out


def _start_refused(tmp_path: Path, *options: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        gcbridge("emulator", "exec", *options, "--", "true"),
        env=base_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )


@pytest.mark.parametrize(
    "token",
    [
        "ключ-администратора-0123456789",  # outside Latin-1: no client can send it
        "jeton-d'accès-0123456789",  # Latin-1, not ASCII: httpx cannot send it
        "two words of an admin token",
    ],
)
def test_an_admin_token_no_header_can_carry_is_refused_at_start(tmp_path: Path, token: str) -> None:
    result = _start_refused(tmp_path, "--ephemeral", "--admin-token-env", "TOK", TOK=token)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("gcbridge: error [bad_admin_token]: --admin-token-env TOK")
    assert len(result.stderr.splitlines()) == 1
    assert token not in result.stderr  # a secret is never printed


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe\x00 not a token at all, not even text", "ключ-администратора-0123456789".encode()],
)
def test_an_admin_token_file_of_odd_bytes_is_one_line_and_kept(
    tmp_path: Path, content: bytes
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "admin-token").write_bytes(content)
    result = _start_refused(tmp_path, "--data-dir", str(data))
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("gcbridge: error [bad_admin_token_file]: admin token file ")
    assert len(result.stderr.splitlines()) == 1
    assert (data / "admin-token").read_bytes() == content  # never overwritten


def test_a_directory_in_place_of_the_admin_token_file_is_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "admin-token").mkdir(parents=True)
    result = _start_refused(tmp_path, "--data-dir", str(data))
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("gcbridge: error [bad_admin_token_file]: admin token file ")
    assert "cannot be read" in result.stderr
    assert len(result.stderr.splitlines()) == 1
