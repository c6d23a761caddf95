"""``gcbridge emulator`` (and ``demo``) at start (issue 25): errors that name their cause.

``--data-dir`` that cannot be the data directory (a file, a path under a file, a
directory that cannot be created) is one line with a reason, no traceback; a
mistyped option is blamed, not the ``ready`` sub-command.
"""

from __future__ import annotations

import os
from pathlib import Path

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
