"""`make bench` is said to write bench/out/, never the committed bench/results.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pages() -> list[Path]:
    pages = [ROOT / "README.md", ROOT / "bench" / "README.md", ROOT / "harness" / "README.md"]
    pages += sorted((ROOT / "docs").rglob("*.md")) if (ROOT / "docs").is_dir() else []
    return [p for p in pages if p.is_file()]


def test_no_page_says_make_bench_writes_the_committed_results() -> None:
    for page in _pages():
        text = " ".join(page.read_text(encoding="utf-8").split())
        for sentence in re.split(r"(?<=[.;])\s", text):
            if re.search(r"`make bench`", sentence) and "bench/results.md" in sentence:
                assert "bench/out" in sentence and "bench-publish" in sentence, (page, sentence)


def test_make_bench_says_where_it_writes() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nbench:", 1)[1].split("\n\n", 1)[0]
    assert "bench/out/" in recipe and "echo" in recipe
