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
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

__all__ = ["NAMES", "path", "load", "main"]

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


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m gcbridge.vectors [--copy DIR]``: print the files' paths, or copy them."""
    parser = argparse.ArgumentParser(
        prog="python -m gcbridge.vectors",
        description="Print the paths of the shipped protocol test vectors, or copy them.",
    )
    parser.add_argument("--copy", metavar="DIR", type=Path, help="copy the files into DIR")
    args = parser.parse_args(argv)
    for name in NAMES:
        with resources.as_file(path(name)) as source:
            if args.copy is None:
                print(source)
                continue
            args.copy.mkdir(parents=True, exist_ok=True)
            target = args.copy / source.name
            shutil.copyfile(source, target)
            print(f"copied {target}")
    return 0
