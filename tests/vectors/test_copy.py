"""``python -m gcbridge.vectors --copy DIR``: odd directories are one line, links are never
written through, and files already there are replaced only with ``--force``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gcbridge import vectors

ROOT = Path(__file__).resolve().parents[2]
FIRST = f"{vectors.NAMES[0]}.json"


def copy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gcbridge.vectors", "--copy", *args],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def refused(run: subprocess.CompletedProcess[str], reason: str) -> None:
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stderr.startswith(f"python -m gcbridge.vectors: error [{reason}]: --copy ")
    assert len(run.stderr.splitlines()) == 1
    assert run.stdout == ""


def test_a_dir_under_a_regular_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    refused(copy(str(tmp_path / "file" / "testdata")), "copy_dir_unusable")
    refused(copy(str(tmp_path / "file")), "copy_dir_unusable")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any directory")
def test_an_unwritable_dir_is_one_line(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    refused(copy(str(locked)), "copy_dir_unusable")
    refused(copy(str(locked / "testdata")), "copy_dir_unusable")


def test_a_write_the_system_refuses_is_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    # what an unwritable directory gives where the permission bits do not tell (root,
    # a read-only mount, an ACL)
    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(vectors.tempfile, "mkstemp", refuse)
    assert vectors.main(["--copy", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err == (
        "python -m gcbridge.vectors: error [copy_dir_unusable]: --copy "
        f"{tmp_path}: cannot write {FIRST} (Permission denied)\n"
    )


@pytest.mark.parametrize("force", [False, True])
def test_a_symlink_in_the_dir_is_never_written_through(tmp_path: Path, force: bool) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("mine")
    testdata = tmp_path / "testdata"
    testdata.mkdir()
    (testdata / FIRST).symlink_to(outside)
    refused(copy(str(testdata), *(["--force"] if force else [])), "copy_target_symlink")
    assert outside.read_text() == "mine"
    assert (testdata / FIRST).is_symlink()
    assert sorted(p.name for p in testdata.iterdir()) == [FIRST]  # nothing else written


def test_existing_files_are_replaced_only_with_force(tmp_path: Path) -> None:
    testdata = tmp_path / "testdata"
    testdata.mkdir()
    (testdata / FIRST).write_text("my edited copy")
    refused(copy(str(testdata)), "copy_target_exists")
    assert (testdata / FIRST).read_text() == "my edited copy"
    assert sorted(p.name for p in testdata.iterdir()) == [FIRST]  # all or nothing
    run = copy(str(testdata), "--force")
    assert run.returncode == 0, run.stderr
    for name in vectors.NAMES:
        assert (testdata / f"{name}.json").read_bytes() == vectors.path(name).read_bytes()
    assert sorted(p.name for p in testdata.iterdir()) == sorted(f"{n}.json" for n in vectors.NAMES)


def test_a_directory_in_place_of_a_file_is_refused_even_with_force(tmp_path: Path) -> None:
    (tmp_path / FIRST).mkdir()
    refused(copy(str(tmp_path), "--force"), "copy_target_exists")
