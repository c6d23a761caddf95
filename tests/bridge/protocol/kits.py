"""Run ``bridge/protocol/kits_check.py`` (what ``make kits-check`` runs) from a test."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
KITS_CHECK = ROOT / "bridge" / "protocol" / "kits_check.py"
_PACKAGE = {"node": "nodejs npm", "mvn": "maven"}  # else openjdk-17-jdk-headless (java, javac)
TOOLS = {"python": (), "typescript": ("node",), "kotlin": ("java", "mvn")}
"""What each language's run needs here (Kotlin's compiler comes from Maven Central)."""


def need(*tools: str) -> None:
    """Skip the test where one of ``tools`` is missing: ``make kits-check`` fails loudly instead."""
    for tool in tools:
        if shutil.which(tool) is None:
            package = _PACKAGE.get(tool, "openjdk-17-jdk-headless")
            pytest.skip(f"{tool} not found (apt-get install {package}); make kits-check fails")


def kits_check(*args: str, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    """Run kits_check.py with ``args`` from the checkout's root; its output as text."""
    return subprocess.run(
        [sys.executable, str(KITS_CHECK), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
