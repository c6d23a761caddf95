"""The harness's models of the platforms hold in the real engines.

Each fact is checked where it is real (WebKit, a WebKitGTK view) and where it is
modelled (Chromium, Playwright init scripts), on the same page.
"""

from __future__ import annotations

import json

import pytest
from gcbridge_harness.app.platforms import NO_DOM_STORAGE_SCRIPT, at_document_end
from gcbridge_harness.world.frames import FrameServer

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><title>model</title><script>
  (window.order = window.order || []).push('parse');
  document.addEventListener('DOMContentLoaded', () => { window.order.push('page listener'); });
</script><p>model</p>"""
USER_SCRIPT = "(window.order = window.order || []).push('document-end script');"
EXPECTED = ["parse", "page listener", "document-end script"]


@pytest.fixture(scope="module")
def page_url():
    with FrameServer() as server:
        yield server.serve("/model.html", PAGE)


def test_chromium_model(browser, page_url):
    context = browser.new_context()
    try:
        context.add_init_script(at_document_end(USER_SCRIPT))
        page = context.new_page()
        page.goto(page_url)
        assert page.evaluate("window.order") == EXPECTED
    finally:
        context.close()
    context = browser.new_context()
    try:
        context.add_init_script(NO_DOM_STORAGE_SCRIPT)
        page = context.new_page()
        page.goto(page_url)
        assert page.evaluate("window.localStorage === null && window.sessionStorage === null")
    finally:
        context.close()


def test_webkit_is_what_the_model_says(webkit_process, page_url, tmp_path):
    def view(name, **options):
        webkit_process.request("open", view=name, profile=str(tmp_path / name), **options)
        webkit_process.request("load", view=name, url=page_url)

    def evaluate(name, expression):
        reply = webkit_process.request("eval", view=name, body=f"return {expression};")
        return json.loads(reply["json"])

    view("end", scripts=[{"source": USER_SCRIPT, "time": "end"}])
    view("nostorage", dom_storage=False)
    try:
        # A document-end user script runs after the page's DOMContentLoaded listeners.
        assert evaluate("end", "window.order") == EXPECTED
        # DOM storage off: null, not a throwing getter.
        assert evaluate("nostorage", "window.localStorage === null") is True
        assert evaluate("end", "window.localStorage !== null") is True
    finally:
        webkit_process.request("close", view="end")
        webkit_process.request("close", view="nostorage")
