"""Every reason code has a meaning and a fix, written once, and the reason codes page shows both."""

from __future__ import annotations

import sys
from pathlib import Path

from gcbridge.reasons import REASONS

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "gen"))

from ref_reasons import collect, reasons_reference  # noqa: E402


def test_every_reason_the_source_gives_has_a_meaning_and_a_fix() -> None:
    raised, _ = collect()
    missing = sorted(code for code in raised if code not in REASONS)
    assert missing == [], f"add these to gcbridge.reasons.REASONS: {missing}"
    stale = sorted(code for code in REASONS if code not in raised)
    assert stale == [], f"no longer raised anywhere: {stale}"
    empty = sorted(code for code, (meaning, fix) in REASONS.items() if not meaning or not fix)
    assert empty == []


def test_the_page_shows_each_codes_meaning_and_fix_on_its_row() -> None:
    page = reasons_reference()
    rows = {
        line.split("|")[1].strip().strip("`"): line
        for line in page.splitlines()
        if line.startswith("| `")
    }
    for code, (meaning, fix) in REASONS.items():
        assert code in rows, code
        assert meaning.replace("|", "\\|") in rows[code] and fix.replace("|", "\\|") in rows[code]
