"""``--data-dir`` that cannot be the data directory: one line with a reason, no traceback.

For ``gcbridge emulator`` and ``gcbridge demo`` alike: a path that is a file, a
path under a file, a directory that cannot be created.
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
