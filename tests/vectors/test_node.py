"""The protocol vectors ship in the wheel and a non-Python receiver passes them.

``vectors.test.mjs`` verifies every webhook-signature and ssoData vector with Node's own
crypto and test runner (``node --test``, no dependency); here it runs on the
repository's copy, on a tampered copy (it must fail), and on the files taken out of a
freshly built wheel, next to the JSON Schemas of the webhook bodies.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from gcbridge import vectors
from gcbridge.webhooks.catalog import EVENT_TYPES
from gcbridge.webhooks.event_schemas import body_schema, schema_file_name

ROOT = Path(__file__).resolve().parents[2]
NODE_CHECK = Path(__file__).with_name("vectors.test.mjs")
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the non-Python vector check needs Node >= 18"
)


def node_check(vectors_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NODE_")}
    if vectors_dir is not None:
        env["GC_VECTORS_DIR"] = str(vectors_dir)
    assert NODE is not None
    return subprocess.run(
        [NODE, "--test", str(NODE_CHECK)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def passed(run: subprocess.CompletedProcess[str]) -> int:
    counts = dict(
        line.lstrip("# ").split(" ", 1) for line in run.stdout.splitlines() if line[:3] == "# p"
    )
    return int(counts.get("pass", "0"))


def test_accessor_lists_and_loads_the_shipped_sets() -> None:
    assert vectors.NAMES == ("webhook_signature", "sso")
    webhook = vectors.load("webhook_signature")
    assert {c["reason"] for c in webhook["verify"]["cases"]} >= {None, "signature_mismatch"}
    sso = vectors.load("sso")
    assert any("user" in c for c in sso["cases"]) and any("reason" in c for c in sso["cases"])
    with pytest.raises(KeyError):
        vectors.path("nope")


def test_one_copy_only() -> None:
    """The generator writes into the package; tests/vectors holds no second copy."""
    assert not list(Path(__file__).parent.glob("*.json"))
    generator = Path(__file__).with_name("make_vectors.mjs").read_text("utf-8")
    assert '"..", "..", "src", "gcbridge", "vectors"' in generator


def test_copy_command(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "gcbridge.vectors", "--copy", str(tmp_path / "testdata")],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    for name in vectors.NAMES:
        copied = json.loads((tmp_path / "testdata" / f"{name}.json").read_text("utf-8"))
        assert copied == vectors.load(name)


@needs_node
def test_node_check_passes_the_vectors() -> None:
    run = node_check()
    assert run.returncode == 0, run.stdout + run.stderr
    assert passed(run) == 3, run.stdout


@needs_node
def test_node_check_fails_on_a_tampered_vector(tmp_path: Path) -> None:
    for name in vectors.NAMES:
        (tmp_path / f"{name}.json").write_text(vectors.path(name).read_text("utf-8"), "utf-8")
    data = vectors.load("webhook_signature")
    case = next(c for c in data["verify"]["cases"] if c["reason"] == "timestamp_too_old")
    case["reason"] = None  # a wrong expectation
    (tmp_path / "webhook_signature.json").write_text(json.dumps(data), "utf-8")
    run = node_check(tmp_path)
    assert run.returncode != 0 and passed(run) == 2, run.stdout


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_wheel_ships_the_vectors_and_the_schemas(tmp_path: Path) -> None:
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = tmp_path.glob("gc_bridge-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for name in vectors.NAMES:
            assert f"gcbridge/vectors/{name}.json" in names
        assert "gcbridge/vectors/__init__.py" in names
        for event_type in (*EVENT_TYPES, None):
            member = f"gcbridge/webhooks/schemas/{schema_file_name(event_type)}"
            assert json.loads(archive.read(member)) == body_schema(event_type)
        archive.extractall(tmp_path / "unpacked", [n for n in names if "/vectors/" in n])
    if NODE is None:
        pytest.skip("node is not installed: the wheel's vectors were listed but not run")
    run = node_check(tmp_path / "unpacked" / "gcbridge" / "vectors")
    assert run.returncode == 0, run.stdout + run.stderr
    assert passed(run) == 3
