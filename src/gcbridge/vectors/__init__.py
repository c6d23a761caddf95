"""Protocol test vectors, shipped for implementations in any language.

The files, their cases and ``python -m gcbridge.vectors [--copy DIR [--force]]``:
docs/reference/test-vectors.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from gcbridge.errors import GcBridgeError
from gcbridge.output import flush_output, watched_stdout

__all__ = ["NAMES", "path", "load", "copy", "main", "VectorsCopyError"]

NAMES: tuple[str, ...] = ("webhook_signature", "sso")
"""The vector sets, each a ``<name>.json`` file in this package."""


def path(name: str) -> Traversable:
    """The shipped file of vector set ``name`` (``KeyError`` if there is no such set)."""
    if name not in NAMES:
        raise KeyError(f"no vector set {name!r}; one of {', '.join(NAMES)}")
    return resources.files(__name__).joinpath(f"{name}.json")


def load(name: str) -> dict[str, Any]:
    """The vector set ``name``, parsed."""
    value: dict[str, Any] = json.loads(path(name).read_text("utf-8"))
    return value


class VectorsCopyError(GcBridgeError):
    """``--copy DIR`` cannot write the files there; ``reason`` says why."""

    reason = "copy_dir_unusable"


def _plan_copy(directory: Path, *, force: bool) -> list[tuple[str, Path]]:
    """``(name, target)`` of each file to copy into ``directory``, made if missing.

    Every target is checked before anything is written: a refusal writes nothing.
    """
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VectorsCopyError(f"--copy {directory}: cannot make it ({exc.strerror})") from None
    if not directory.is_dir():
        raise VectorsCopyError(f"--copy {directory}: not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise VectorsCopyError(f"--copy {directory}: not writable")
    plan = []
    for name in NAMES:
        target = directory / f"{name}.json"
        if target.is_symlink():
            raise VectorsCopyError(
                f"--copy {directory}: {target.name} is a symbolic link; not written through",
                reason="copy_target_symlink",
            )
        if target.exists() and not (force and target.is_file()):
            raise VectorsCopyError(
                f"--copy {directory}: {target.name} exists"
                + ("; --force replaces it" if target.is_file() else " and is not a file"),
                reason="copy_target_exists",
            )
        plan.append((name, target))
    return plan


def _write_new(target: Path, data: bytes) -> None:
    """Write ``target`` as a new file beside it, then rename: a symbolic link or a file
    put there meanwhile is replaced, never written through."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def copy(directory: Path, *, force: bool = False) -> list[Path]:
    """Copy the vector files into ``directory``; the paths written (:func:`_plan_copy`)."""
    written = []
    for name, target in _plan_copy(directory, force=force):
        try:
            _write_new(target, path(name).read_bytes())
        except OSError as exc:
            raise VectorsCopyError(
                f"--copy {directory}: cannot write {target.name} ({exc.strerror})"
            ) from None
        written.append(target)
    return written


_PROG = "python -m gcbridge.vectors"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the paths of the shipped vector files, or copy them (``--copy DIR [--force]``)."""
    parser = argparse.ArgumentParser(
        prog=_PROG,
        description="Print the paths of the shipped protocol test vectors, or copy them.",
    )
    parser.add_argument("--copy", metavar="DIR", type=Path, help="copy the files into DIR")
    parser.add_argument(
        "--force", action="store_true", help="with --copy: replace files already in DIR"
    )
    args = parser.parse_args(argv)
    with watched_stdout() as watch:
        try:
            try:
                return _run(args)
            finally:
                flush_output()
        except VectorsCopyError as exc:
            print(f"{_PROG}: error [{exc.reason}]: {exc}", file=sys.stderr)
            return 1
        except OSError as exc:
            status = watch.answer(exc, _PROG)
            if status is None:
                raise
            return status


def _run(args: argparse.Namespace) -> int:
    if args.copy is None:
        for name in NAMES:
            with resources.as_file(path(name)) as source:
                print(source)
        return 0
    for target in copy(args.copy, force=args.force):
        print(f"copied {target}")
    return 0
