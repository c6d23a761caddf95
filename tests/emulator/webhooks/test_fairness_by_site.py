"""Fairness by site as well as by receiver.

A site that re-ran setup across four hanging receivers held all 32 workers (8 per
receiver), and another site's delivery waited for an attempt timeout. The caps
are asserted on which calls are picked and on what is in flight, never on time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from gcbridge.emulator.webhooks.fairness import PER_SITE, pick

A, B = "a" * 24, "b" * 24


def test_one_site_over_four_receivers_is_held_to_its_cap() -> None:
    # 32 due calls of site A, 8 to each of four receivers, then B's one call.
    candidates = [(f"a{n}", f"https://hang{n % 4}.example:443") for n in range(32)]
    candidates.append(("b0", "https://ok.example:443"))
    sites = {call_id: (B if call_id == "b0" else A) for call_id, _ in candidates}
    chosen = pick(candidates, {}, free=32, per_receiver=8, site_of=sites, per_site=PER_SITE)
    picked = [call_id for call_id, _ in chosen]
    assert sum(1 for c in picked if sites[c] == A) == PER_SITE
    assert "b0" in picked


def test_attempts_already_in_flight_count_against_the_site() -> None:
    inflight = {f"a{n}": f"https://hang{n}.example:443" for n in range(8)}  # 1 per receiver
    sites = {**{c: A for c in inflight}, "a9": A, "b0": B}
    candidates = [("a9", "https://hang9.example:443"), ("b0", "https://ok.example:443")]
    chosen = pick(candidates, inflight, free=24, per_receiver=8, site_of=sites, per_site=8)
    assert [c for c, _ in chosen] == ["b0"]  # A is at its cap of 8 over eight receivers


class _Hang(httpx.AsyncBaseTransport):
    """Every ``hang*`` host never answers; anything else answers 200. Logs starts in order."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        self.log.append(("start", host))
        if host.startswith("hang"):
            try:
                await asyncio.Event().wait()
            finally:
                self.log.append(("end", host))
        self.log.append(("end", host))
        return httpx.Response(200)


def _wait(predicate: Callable[[], Any], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    return predicate()


def test_a_site_rerunning_setup_across_hanging_receivers_leaves_workers_for_others(
    tmp_path: Path,
) -> None:
    from gcbridge.emulator.testing import EXAMPLE_SITE, OTHER_SITE
    from tests.emulator.hardening_support import live

    transport = _Hang()

    def setup(http: httpx.Client, site: Any, host: str) -> None:
        http.post(
            f"/webhook/website/{site.website_id}/setup",
            headers={"Authorization": f"Bearer {site.account_token}"},
            json={"url": f"https://{host}/hook", "events": ["comment.created"]},
        ).raise_for_status()

    def comment(http: httpx.Client, token: str, shortname: str, n: int) -> None:
        http.post(
            "/api/pub/comments",
            headers={"Authorization": f"Bearer {token}"},
            json={
                "website_id": shortname,
                "uid": f"t{n}",
                "url": "https://e.com/",
                "page_title": "t",
                "content": f"c{n}",
            },
        ).raise_for_status()

    def sign_in(http: httpx.Client, shortname: str, name: str) -> str:
        r = http.post(
            "/api/pub/auth/register",
            json={
                "website_id": shortname,
                "username": name,
                "email": f"{name}@e.com",
                "password": "long-enough",
            },
        )
        r.raise_for_status()
        return str(r.json()["token"])

    def hanging() -> int:
        starts = sum(1 for e, h in transport.log if e == "start" and h.startswith("hang"))
        ends = sum(1 for e, h in transport.log if e == "end" and h.startswith("hang"))
        return starts - ends

    for _, http in live(tmp_path, transport=transport, attempt_timeout=120.0):
        token = sign_in(http, "demo", "kim")
        for r in range(4):  # setup re-run across four receivers, eight comments each
            setup(http, EXAMPLE_SITE, f"hang{r}.example")
            for n in range(8):
                comment(http, token, "demo", r * 8 + n)
            assert _wait(lambda: hanging() >= 8)
        setup(http, OTHER_SITE, "ok.example")
        comment(http, sign_in(http, "other", "lee"), "other", 99)
        assert _wait(lambda: ("end", "ok.example") in transport.log), transport.log[-5:]
        b_started = transport.log.index(("start", "ok.example"))
        assert not any(e == "end" and h.startswith("hang") for e, h in transport.log[:b_started])
        assert hanging() == PER_SITE  # the site's cap, over all four receivers
