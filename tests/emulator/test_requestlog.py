"""The opt-in request log: what it records, holding answers, widening the widget's CSP."""

from __future__ import annotations

import threading
import time

import httpx

from gcbridge.emulator.testing import running_emulator


def test_off_by_default(tmp_path):
    with running_emulator(tmp_path) as emu:
        assert emu.request_log is None
        assert httpx.get(emu.url + "/healthz").status_code == 200


def test_records_requests_with_bodies_headers_status_and_error(tmp_path):
    with running_emulator(tmp_path, request_log=True) as emu:
        httpx.post(
            emu.url + "/api/pub/sso/login",
            json={"api_public_key": "pk_nobody", "ssoData": "x y 1"},
            headers={"Referer": "https://app.example/", "User-Agent": "test-agent/1"},
        )
        (entry,) = emu.request_log.matching(lambda e: e.path == "/api/pub/sso/login")
        assert entry.method == "POST" and entry.url.startswith(emu.url)
        assert '"ssoData": "x y 1"' in entry.body or '"ssoData":"x y 1"' in entry.body
        assert entry.headers["referer"] == "https://app.example/"
        assert entry.headers["user-agent"] == "test-agent/1"
        assert (entry.status, entry.error, entry.done) == (403, "unknown_public_key", True)


def test_hold_keeps_matching_answers_until_released(tmp_path):
    with running_emulator(tmp_path, request_log=True) as emu:
        gate = emu.request_log.hold(lambda e: e.path == "/healthz")
        answers: list[int] = []
        worker = threading.Thread(
            target=lambda: answers.append(httpx.get(emu.url + "/healthz").status_code)
        )
        worker.start()
        deadline = time.monotonic() + 5
        while not emu.request_log.matching(lambda e: e.path == "/healthz"):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert answers == []  # arrived, not answered
        (entry,) = emu.request_log.matching(lambda e: e.path == "/healthz")
        assert not entry.done
        gate.release()
        worker.join(5)
        assert answers == [200]


def test_allow_frames_widens_the_widget_csp_while_inside(tmp_path):
    with running_emulator(tmp_path, request_log=True) as emu:
        with emu.request_log.allow_frames("http://127.0.0.1:9"):
            inside = httpx.get(emu.url + "/widget/").headers["content-security-policy"]
            api = httpx.get(emu.url + "/healthz").headers.get("content-security-policy", "")
        after = httpx.get(emu.url + "/widget/").headers["content-security-policy"]
    assert inside.endswith("; frame-src http://127.0.0.1:9")
    assert "frame-src" not in api and "frame-src" not in after


def test_no_content_answers_the_path_204_while_inside(tmp_path):
    with running_emulator(tmp_path, request_log=True) as emu:
        with emu.request_log.no_content("/widget/next"):
            inside = httpx.get(emu.url + "/widget/next")
            other = httpx.get(emu.url + "/healthz")
        after = httpx.get(emu.url + "/widget/next")
        entries = emu.request_log.matching(lambda e: e.path == "/widget/next")
    assert (inside.status_code, inside.content) == (204, b"")
    assert other.status_code == 200 and after.status_code != 204
    assert [(e.status, e.done) for e in entries][0] == (204, True)


def test_unavailable_answers_the_paths_under_a_prefix_503_while_inside(tmp_path):
    with running_emulator(tmp_path, request_log=True) as emu:
        with emu.request_log.unavailable("/widget/"):
            page = httpx.get(emu.url + "/widget/?uid=x")
            script = httpx.get(emu.url + "/widget/main.js")
            api = httpx.get(emu.url + "/healthz")
        back = httpx.get(emu.url + "/widget/")
        entries = emu.request_log.matching(lambda e: e.path == "/widget/")
    assert (page.status_code, script.status_code) == (503, 503)
    assert page.headers["content-type"].startswith("text/html")
    assert api.status_code == 200 and back.status_code == 200
    assert [e.status for e in entries] == [503, 200]
