"""Which hand-written source files are over 400 lines: a report, not a rule.

    python .ci/size_report.py          # make lint prints it

A long file is a place to look, not a failure: split it where it holds two ideas,
never to pass a count. ``bridge.js`` and its kit copies ship as one file on purpose.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 400
SOURCE_SUFFIXES = {".py", ".js", ".ts", ".tsx", ".kt", ".swift", ".css", ".html"}
ONE_FILE_BY_DESIGN = {
    "bridge/bridge.js",
    "bridge/platforms/ios/GcComments/gc-bridge.js",
    "bridge/platforms/android/gccomments/src/main/assets/gc-bridge.js",
}


def long_files() -> list[tuple[int, str]]:
    """``(lines, path)`` of each tracked source file over :data:`LIMIT` lines, longest first."""
    tracked = subprocess.run(
        ["git", "ls-files", "src", "harness", "bridge", "bench", "docs_src"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    found = []
    for name in tracked:
        path = ROOT / name
        if path.suffix not in SOURCE_SUFFIXES or name in ONE_FILE_BY_DESIGN or not path.exists():
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").count("\n")
        if lines > LIMIT:
            found.append((lines, name))
    return sorted(found, reverse=True)


def main() -> int:
    """Print the report; always 0."""
    found = long_files()
    print(f"size report: {len(found)} source file(s) over {LIMIT} lines")
    for lines, name in found:
        print(f"  {lines:5d}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
