"""Protocol test vectors, shipped for implementations in any language.

Two JSON files, computed with Node's crypto independently of the Python code
(``tests/vectors/make_vectors.mjs`` in the repository) and checked in the suite by
both gcbridge and a dependency-free Node verifier (``node --test``):

- ``webhook_signature.json``: ``sign`` cases (secret, timestamp, body -> the 64-hex
  ``X-Webhook-Signature``) and ``verify`` cases (headers and a clock -> ``reason``
  ``null`` when valid, else the expected reason code: ``missing_header``,
  ``malformed_timestamp``, ``malformed_signature``, ``timestamp_too_old``,
  ``timestamp_too_new``, ``signature_mismatch``).
- ``sso.json``: ssoData strings with a secret and a clock -> the ``user`` inside, or
  the expected reason code (``malformed``, ``bad_base64``, ``bad_timestamp``,
  ``bad_signature``, ``expired``, ``issued_in_future``, ``bad_json``, ``bad_user``).

Bodies are base64 (``body_b64``) so that the exact bytes survive any JSON parser.
::

    from gcbridge import vectors

    vectors.load("webhook_signature")["sign"][0]["signature"]
    python -m gcbridge.vectors --copy testdata/   # the files, for another language's tests

``--copy`` never writes through a symbolic link in DIR and replaces files already
there only with ``--force``; a DIR it cannot use is one line with a reason.
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
    """``--copy DIR`` cannot write the files there; ``reason`` says why.

    Reasons: ``copy_dir_unusable`` (DIR cannot be made or written: under a regular
    file, no permission), ``copy_target_symlink`` (a file of the copy is a symbolic
    link in DIR: never written through), ``copy_target_exists`` (a file is there
    already: ``--force`` replaces it).
    """

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
    """Copy the vector files into ``directory``; the paths written.

    Raises :class:`VectorsCopyError`: files already there need ``force``, and a
    symbolic link in their place is refused even then.
    """
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
    """``python -m gcbridge.vectors [--copy DIR [--force]]``: print the files' paths, or copy them.

    Errors are one line, ``python -m gcbridge.vectors: error [reason]: ...``, exit 1;
    standard output closed or full is answered as by ``gcbridge`` (:mod:`gcbridge.output`).
    """
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
