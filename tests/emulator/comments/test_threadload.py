"""GET /api/pub/thread-load/ (docs/explanation/service.md#loading-the-widget): validation,
gc_url, thread upsert."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcbridge.clock import ManualClock
from tests.emulator.core_support import Emu

ROUTE = "/api/pub/thread-load/"
GOOD = {
    "service_id": "demo",
    "url": "https://news.example.com/a/42?x=1&y=2",
    "uid": "article-42",
    "page_title": "Café & crème: 42 %",
    "inapp": "true",
    "redirect": "true",
}


def _error(resp: object, status: int, reason: str) -> dict[str, object]:
    assert resp.status_code == status, resp.text  # type: ignore[attr-defined]
    body = resp.json()  # type: ignore[attr-defined]
    assert body["gcCode"] == status
    assert body["error"] == reason
    return body  # type: ignore[no-any-return]


def test_gc_url_carries_the_thread_on_the_front_url(emu: Emu) -> None:
    resp = emu.http.get(ROUTE, params=GOOD)
    assert resp.status_code == 200
    gc_url = resp.json()["gc_url"]
    parts = urlsplit(gc_url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{emu.url}/widget/"
    query = parse_qs(parts.query, strict_parsing=True)
    assert query == {
        "website_id": ["demo"],
        "url": [GOOD["url"]],
        "uid": ["article-42"],
        "page_title": [GOOD["page_title"]],
        "inapp": ["true"],
    }
    # An app appends &api_public_key=...: gc_url must already have a query.
    assert "?" in gc_url and not gc_url.endswith("&")


def test_gc_url_on_a_custom_front_url_with_a_query(make_emu: Callable[..., Emu]) -> None:
    client = make_emu(front_url="https://front.example/w?v=2").http
    gc_url = client.get(ROUTE, params=GOOD).json()["gc_url"]
    assert gc_url.startswith("https://front.example/w?v=2&website_id=demo&")


@pytest.mark.parametrize("value", ["true", "1", "TRUE", "True"])
def test_inapp_and_redirect_accept_true_and_1(client: httpx.Client, value: str) -> None:
    assert client.get(ROUTE, params={**GOOD, "inapp": value, "redirect": value}).status_code == 200


def test_the_thread_is_created_once_and_its_title_refreshed(
    make_emu: Callable[..., Emu], clock: ManualClock
) -> None:
    emu = make_emu()
    client, db = emu.http, emu.db
    client.get(ROUTE, params=GOOD)
    with db.read() as conn:
        first = dict(conn.execute("SELECT * FROM threads").fetchone())
    clock.advance(10)
    client.get(ROUTE, params=GOOD)
    with db.read() as conn:
        assert dict(conn.execute("SELECT * FROM threads").fetchone()) == first  # reload: no change
    clock.advance(10)
    client.get(ROUTE, params={**GOOD, "page_title": "New title"})
    with db.read() as conn:
        rows = conn.execute("SELECT * FROM threads").fetchall()
    assert len(rows) == 1
    assert rows[0]["id"] == first["id"]
    assert rows[0]["page_title"] == "New title"
    assert rows[0]["uid"] == "article-42" and rows[0]["site"] == "demo"
    assert rows[0]["updated_at"] == first["created_at"] + 20


@pytest.mark.parametrize("name", list(GOOD))
def test_every_parameter_is_required(client: httpx.Client, name: str) -> None:
    params = {k: v for k, v in GOOD.items() if k != name}
    body = _error(client.get(ROUTE, params=params), 400, "invalid_parameter")
    assert str(body["message"]).startswith(f"{name}:")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("service_id", ""),
        ("service_id", "   "),
        ("url", ""),
        ("url", "news.example.com/a/42"),
        ("url", "/a/42"),
        ("url", "ftp://news.example.com/a"),
        ("url", "javascript:alert(1)"),
        ("url", "http://"),
        ("url", "http://[::1"),
        ("url", "http://example.com:99999/"),
        ("url", "https://example.com/a b"),
        ("url", "https://example.com/" + "a" * 2100),
        ("uid", ""),
        ("uid", "  "),
        ("uid", "x" * 257),
        ("uid", "a\x00b"),
        ("page_title", ""),
        ("page_title", "t" * 513),
        ("page_title", "line\nbreak"),
        ("inapp", "false"),
        ("inapp", "0"),
        ("inapp", "yes"),
        ("inapp", ""),
        ("redirect", "false"),
        ("redirect", "no"),
    ],
)
def test_a_wrong_value_is_a_400_naming_the_parameter(
    client: httpx.Client, name: str, value: str
) -> None:
    body = _error(client.get(ROUTE, params={**GOOD, name: value}), 400, "invalid_parameter")
    assert str(body["message"]).startswith(f"{name}:")


@pytest.mark.parametrize("name", ["inapp", "redirect"])
def test_false_flags_explain_the_standalone_webview(client: httpx.Client, name: str) -> None:
    body = _error(client.get(ROUTE, params={**GOOD, name: "false"}), 400, "invalid_parameter")
    assert "standalone WebView" in str(body["message"])


def test_a_parameter_given_twice_is_refused(client: httpx.Client) -> None:
    query = urlencode(GOOD) + "&uid=other"
    body = _error(client.get(f"{ROUTE}?{query}"), 400, "invalid_parameter")
    assert str(body["message"]).startswith("uid:")


def test_unknown_service_id_is_a_404(client: httpx.Client) -> None:
    body = _error(client.get(ROUTE, params={**GOOD, "service_id": "nope"}), 404, "unknown_site")
    assert "nope" in str(body["message"])


def test_nothing_is_written_for_a_refused_request(make_emu: Callable[..., Emu]) -> None:
    emu = make_emu()
    emu.http.get(ROUTE, params={**GOOD, "inapp": "false"})
    emu.http.get(ROUTE, params={**GOOD, "service_id": "nope"})
    with emu.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM threads").fetchone()[0] == 0


_NAMES = st.sampled_from([*GOOD, "other", ""])
_VALUES = st.one_of(st.sampled_from(list(GOOD.values())), st.text(max_size=40))


def test_fuzzed_query_strings_never_500(client: httpx.Client) -> None:
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        pairs=st.lists(st.tuples(_NAMES, _VALUES), max_size=8),
        raw=st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=40),
        use_raw=st.booleans(),
    )
    def check(pairs: list[tuple[str, str]], raw: str, use_raw: bool) -> None:
        query = raw if use_raw else urlencode(pairs)
        resp = client.get(f"{ROUTE}?{query}")
        assert resp.status_code in (200, 400, 404), resp.text
        body = resp.json()
        if resp.status_code == 200:
            assert set(body) == {"gc_url"}
        else:
            assert body["gcCode"] == resp.status_code
            assert body["error"] in ("invalid_parameter", "unknown_site")

    check()
