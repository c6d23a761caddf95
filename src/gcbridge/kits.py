"""Ships the React Native kit: ``gcbridge bridge --kit react-native DIR`` writes its npm tarball.

The kit is on no registry. Wheels carry its package files as package data
(``gcbridge/kits/react-native``); checkouts read the repository's copy. :func:`write_tarball`
packs them as ``npm pack`` does, in pure Python: no node on the user's machine. Unlike the
``npm pack`` of a checkout there is no compiled ``build/``: the packed ``package.json``
points at the TypeScript sources (:func:`source_manifest`), which Metro compiles and
TypeScript reads; the harness runs on the installed ``src/bridgeSource.ts``
(:data:`SHIPPED_BRIDGE`).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
from pathlib import Path
from typing import Any

from gcbridge.errors import GcBridgeError

__all__ = [
    "KITS",
    "SHIPPED_BRIDGE",
    "KitError",
    "kit_dir",
    "kit_files",
    "source_manifest",
    "tarball_name",
    "write_tarball",
]

KITS = ("react-native",)
"""The kits ``gcbridge bridge --kit`` writes."""

SHIPPED_BRIDGE = "src/bridgeSource.ts"
"""The kit's copy of bridge.js, relative to the package root (``node_modules/<name>/``)."""

# npm pack's time stamp for every entry (1985-10-26T08:15:00Z): the same bytes every time.
_NPM_MTIME = 499162500
# What npm always packs, whatever ``files`` says (the ones the kit has).
_ALWAYS = ("package.json", "README.md")


class KitError(GcBridgeError):
    """A kit tarball that cannot be written (``reason`` says why)."""

    reason = "kit_error"
    exit_code = 2


def kit_dir(name: str = "react-native") -> Path:
    """The kit's package files: package data, else the repository's kit directory."""
    if name not in KITS:
        raise KitError(f"no kit {name!r}; the kits are: {', '.join(KITS)}", reason="unknown_kit")
    packaged = Path(__file__).parent / "kits" / name
    if (packaged / "package.json").is_file():
        return packaged
    in_repo = Path(__file__).resolve().parents[2] / "bridge" / "platforms" / name
    if (in_repo / "package.json").is_file():
        return in_repo
    raise KitError(f"the {name} kit is not in this installation", reason="kit_missing")


def kit_files(root: Path, manifest: dict[str, Any]) -> list[str]:
    """The paths ``npm pack`` takes from ``root``: always-packed files, then ``files``, sorted.

    Only what exists is taken (a checkout without ``build/`` packs its sources alone).
    """
    found = {name for name in _ALWAYS if (root / name).is_file()}
    for entry in manifest.get("files", []):
        top = root / entry
        if top.is_file():
            found.add(entry)
        elif top.is_dir():
            for path in top.rglob("*"):
                if path.is_file() and not path.is_symlink():
                    found.add(path.relative_to(root).as_posix())
    return sorted(found)


def source_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
    """``package.json`` of the packed kit: its entry points at the TypeScript sources."""
    entry = f"./{manifest.get('react-native', 'src/index.ts')}".replace("././", "./")
    packed = dict(manifest)
    packed["main"] = packed["types"] = entry.removeprefix("./")
    exports = dict(packed.get("exports", {}))
    exports["."] = {"types": entry, "react-native": entry, "default": entry}
    packed["exports"] = exports
    packed["files"] = [f for f in packed.get("files", []) if f != "build"]
    packed.pop("scripts", None)  # prepack builds build/: nothing to run once packed
    return packed


def tarball_name(manifest: dict[str, Any]) -> str:
    """``npm pack``'s file name: ``@scope/name`` 1.0.0 -> ``scope-name-1.0.0.tgz``."""
    name = str(manifest["name"]).lstrip("@").replace("/", "-")
    return f"{name}-{manifest['version']}.tgz"


def _add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(f"package/{name}")
    info.size = len(data)
    info.mtime = _NPM_MTIME
    info.mode = 0o644
    archive.addfile(info, io.BytesIO(data))


def _target(directory: Path, filename: str, *, force: bool) -> Path:
    if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
        raise KitError(f"{directory}: not a directory", reason="bad_kit_dir")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise KitError(f"{directory}: {exc.strerror or exc}", reason="bad_kit_dir") from None
    target = directory / filename
    if target.is_symlink() or (target.exists() and not target.is_file()):
        raise KitError(f"{target}: not a regular file; remove it first", reason="kit_exists")
    if target.exists() and not force:
        raise KitError(f"{target} exists; pass --force to replace it", reason="kit_exists")
    return target


def write_tarball(directory: Path, name: str = "react-native", *, force: bool = False) -> Path:
    """Write the kit's npm tarball into ``directory``; its path."""
    root = kit_dir(name)
    manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    packed = source_manifest(manifest)
    target = _target(directory, tarball_name(manifest), force=force)
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.USTAR_FORMAT) as archive,
    ):
        for path in kit_files(root, packed):
            if path == "package.json":
                data = (json.dumps(packed, indent=2) + "\n").encode("utf-8")
            else:
                data = (root / path).read_bytes()
            _add(archive, path, data)
    # written beside, then renamed: never half a tarball, never through a link
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        partial.write_bytes(buffer.getvalue())
        os.replace(partial, target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise KitError(f"{target}: {exc.strerror or exc}", reason="bad_kit_dir") from None
    return target
