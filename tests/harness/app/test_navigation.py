"""The platforms' navigation callbacks as the harness models them, and the kits' reactions.

No browser: the tables of :mod:`gcbridge_harness.app.navigation` and the React Native
lifecycle messages, against the kit that posts them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from gcbridge_harness.app.navigation import (
    CALLBACKS,
    DOCUMENT_MESSAGE,
    REACTIONS,
    SENDER_FRAME_KNOWN,
    document_message,
    reactions_to,
)
from gcbridge_harness.app.platforms import INJECTION_POINTS, PLATFORM_OF, RN_LIFECYCLE_SCRIPT

ROOT = Path(__file__).resolve().parents[3]
RN_LIFECYCLE = ROOT / "bridge" / "platforms" / "react-native" / "src" / "lifecycle.ts"


def test_every_point_has_its_platform_model():
    for table in (CALLBACKS, REACTIONS, SENDER_FRAME_KNOWN):
        assert set(table) == set(INJECTION_POINTS)


def test_no_kit_takes_a_new_page_from_anything_but_a_new_document():
    # The kits' rule: a same-document navigation, a provisional start or a load that fails
    # before it commits replaces nothing; only the commit (or the page saying so) does.
    for point in INJECTION_POINTS:
        for event, callbacks in CALLBACKS[point].items():
            for callback in callbacks:
                if event != "committed":
                    assert "page-started" not in reactions_to(point, callback), (point, callback)
        starts = [c for c, r in REACTIONS[point].items() if r == "page-started"]
        assert len(starts) == 1, (point, starts)
        if PLATFORM_OF[point] == "react-native":
            assert starts == [DOCUMENT_MESSAGE]
        else:
            assert starts[0] in CALLBACKS[point]["committed"]


def test_the_platforms_fire_what_their_sources_say():
    # React Native: onLoadStart for same-document navigations (Android: doUpdateVisitedHistory,
    # pushState and hash; iOS: decidePolicyForNavigationAction, fragments) and, on iOS, at a
    # provisional start; Android's onPageStarted never for them, onPageFinished for a fragment.
    assert "onLoadStart" in CALLBACKS["page-started"]["hash"]
    assert "onLoadStart" in CALLBACKS["page-started"]["history"]
    assert "onLoadStart" in CALLBACKS["document-start"]["hash"]
    assert "onLoadStart" in CALLBACKS["document-start"]["started"]
    assert "didStartProvisionalNavigation" in CALLBACKS["document-end"]["started"]
    assert CALLBACKS["document-end"]["failed"] == ("didFailProvisionalNavigation",)
    for event in ("hash", "history", "failed", "started"):
        assert "onPageStarted" not in CALLBACKS["page-finished"].get(event, ())
    assert "onPageFinished" in CALLBACKS["page-finished"]["hash"]


def _kit_constant(name: str) -> str:
    match = re.search(rf"export const {name} = '([^']+)';", RN_LIFECYCLE.read_text("utf-8"))
    assert match, name
    return match.group(1)


def test_the_harness_reads_the_react_native_kit_s_messages():
    assert document_message(_kit_constant("DOCUMENT_MESSAGE")) is False
    assert document_message(_kit_constant("DOCUMENT_LOADED_MESSAGE")) is True
    for other in (_kit_constant("RESTORED_MESSAGE"), '{"name":"gc-ready"}', "gcLifecycle", "[]"):
        assert document_message(other) is None
    # ... and the harness's copy of the script posts the same object
    assert "gcLifecycle: 'document', complete: document.readyState === 'complete'" in (
        RN_LIFECYCLE_SCRIPT
    )
    assert json.loads(_kit_constant("DOCUMENT_LOADED_MESSAGE")) == {
        "gcLifecycle": "document",
        "complete": True,
    }
