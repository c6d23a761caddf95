"""A wheel user gets the React Native kit: ``gcbridge bridge --kit react-native DIR``.

The command runs from the unpacked wheel (its package data, not this checkout), writes a
tarball with the layout ``npm pack`` gives the kit's sources, which npm installs and an
app type-checks against; the harness command the docs give points at a file of that
installed layout.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from gcbridge.cli import main
from gcbridge.kits import SHIPPED_BRIDGE
from tests.built_artifacts import cache_root, wheel

ROOT = Path(__file__).resolve().parents[1]
RN = ROOT / "bridge" / "platforms" / "react-native"
DOCS = [ROOT / "docs" / "how-to" / "integrate-kits.md", RN / "README.md"]
PACKAGE = "@gc-bridge/react-native-kit"
TARBALL = "gc-bridge-react-native-kit-1.0.0.tgz"
NPM_FLAGS = ["--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"]


@pytest.fixture(scope="module")
def from_the_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tarball written by ``gcbridge bridge --kit`` run from the unpacked wheel."""
    unpacked = tmp_path_factory.mktemp("wheel")
    with zipfile.ZipFile(wheel()) as archive:
        archive.extractall(unpacked)
    out = tmp_path_factory.mktemp("kit")
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import gcbridge.kits as k;"
        "assert k.__file__.startswith(sys.argv[1]), k.__file__;"
        "from gcbridge.cli import main;"
        "sys.exit(main(['bridge', '--kit', 'react-native', sys.argv[2]]))"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(unpacked), str(out)],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(out)},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"node_modules/{PACKAGE}/{SHIPPED_BRIDGE}" in run.stdout
    return out / TARBALL


def _names(tarball: Path) -> list[str]:
    with tarfile.open(tarball) as archive:
        return sorted(archive.getnames())


def test_the_wheel_writes_the_kits_sources_under_package(from_the_wheel: Path) -> None:
    names = _names(from_the_wheel)
    assert all(n.startswith("package/") for n in names)
    sources = sorted(p.relative_to(RN).as_posix() for p in (RN / "src").rglob("*") if p.is_file())
    expected = ["README.md", "package.json", "protocol/app-protocol.json", *sources]
    assert names == sorted(f"package/{n}" for n in expected)
    with tarfile.open(from_the_wheel) as archive:
        for name in sources:
            member = archive.extractfile(f"package/{name}")
            assert member is not None and member.read() == (RN / name).read_bytes(), name
        manifest = json.load(archive.extractfile("package/package.json"))  # type: ignore[arg-type]
    assert manifest["exports"]["."]["types"] == "./src/index.ts"
    assert (RN / manifest["main"]).is_file() and (RN / manifest["types"]).is_file()


def test_the_file_list_is_npm_packs(from_the_wheel: Path, tmp_path: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm not found: comparing with npm pack needs it (apt-get install npm)")
    for name in ("package.json", "README.md"):
        shutil.copy2(RN / name, tmp_path / name)
    shutil.copytree(RN / "src", tmp_path / "src")
    shutil.copytree(RN / "protocol", tmp_path / "protocol")
    listed = subprocess.run(
        [npm, "pack", "--dry-run", "--json", "--ignore-scripts"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    files = sorted(f"package/{f['path']}" for f in json.loads(listed.stdout)[0]["files"])
    assert _names(from_the_wheel) == files


def _documented_paths() -> list[str]:
    pattern = re.compile(rf"--bridge node_modules/{re.escape(PACKAGE)}/(\S+)")
    return [m.group(1) for doc in DOCS for m in pattern.finditer(doc.read_text("utf-8"))]


def test_the_documented_harness_path_is_the_file_the_installed_kit_uses(
    from_the_wheel: Path, tmp_path: Path
) -> None:
    from gcbridge.bridge import load, script

    documented = _documented_paths()
    assert documented and set(documented) == {SHIPPED_BRIDGE}
    with tarfile.open(from_the_wheel) as archive:
        archive.extractall(tmp_path, filter="data")
    shipped = tmp_path / "package" / SHIPPED_BRIDGE
    # what the component imports: its index re-exports the module that reads this file
    assert "./bridgeSource" in (tmp_path / "package" / "src" / "bridgePin.ts").read_text("utf-8")
    assert load(shipped).sha256 == script().sha256


@pytest.mark.slow
def test_npm_installs_the_tarball_and_the_example_app_type_checks(from_the_wheel: Path) -> None:
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("npm/node not found: installing the tarball needs them (apt-get install npm)")
    root = from_the_wheel.parent / "app"
    example = root / "example"
    shutil.copytree(RN / "example", example, ignore=shutil.ignore_patterns("node_modules"))
    shutil.copy2(from_the_wheel, root / TARBALL)  # where the example's package.json points
    (example / "zz_canary.tsx").write_text(
        f"import {{ GcCommentsWebView }} from '{PACKAGE}';\n"
        "export const Wrong = () => <GcCommentsWebView gcUrl={42} />;\n",
        encoding="utf-8",
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(Path.home()), "XDG_CACHE_HOME": str(cache_root())}
    installed = subprocess.run(
        [npm, "install", *NPM_FLAGS],
        cwd=example,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    if installed.returncode != 0 and "ENOTCACHED" in installed.stderr + installed.stdout:
        pytest.skip("npm's cache lacks the example app's dependencies and there is no network")
    assert installed.returncode == 0, installed.stderr[-3000:]
    kit = example / "node_modules" / "@gc-bridge" / "react-native-kit"
    assert (kit / SHIPPED_BRIDGE).is_file() and not kit.is_symlink()
    tsc = str(example / "node_modules" / "typescript" / "bin" / "tsc")
    checked = subprocess.run(
        [node, tsc, "--noEmit", "--pretty", "false", "-p", "."],
        cwd=example,
        capture_output=True,
        text=True,
        timeout=600,
    )
    errors = [line for line in checked.stdout.splitlines() if ": error TS" in line]
    # the component and its types resolve; the canary's wrong prop type is the one error
    assert len(errors) == 1 and errors[0].startswith("zz_canary.tsx"), checked.stdout[-3000:]


def test_the_command_refuses_to_overwrite_or_write_into_a_file(tmp_path: Path, capsys) -> None:
    assert main(["bridge", "--kit", "react-native", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["bridge", "--kit", "react-native", str(tmp_path)]) == 2
    assert "[kit_exists]" in capsys.readouterr().err
    assert main(["bridge", "--kit", "react-native", str(tmp_path), "--force"]) == 0
    capsys.readouterr()
    (tmp_path / "file").write_text("x")
    assert main(["bridge", "--kit", "react-native", str(tmp_path / "file")]) == 2
    assert "[bad_kit_dir]" in capsys.readouterr().err
    assert main(["bridge", "--kit", "vue", str(tmp_path)]) == 2
    assert "[unknown_kit]" in capsys.readouterr().err
