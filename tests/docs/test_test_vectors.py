"""What the test-vectors page says of the shipped SSO vectors is true of them."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from gcbridge.vectors import load

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "reference" / "test-vectors.md").read_text(encoding="utf-8")


def _user_json(case: dict) -> str:
    return base64.b64decode(case["sso_data"].split(" ")[0]).decode("utf-8")


def test_the_page_names_every_valid_case_whose_user_json_is_not_compact() -> None:
    valid = [case for case in load("sso")["cases"] if "user" in case]
    assert valid
    for case in valid:
        text = _user_json(case)
        compact = json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
        if text != compact:
            # the page calls the valid cases compact: this one must be named as the exception
            assert f"`{case['name']}`" in PAGE, case["name"]
