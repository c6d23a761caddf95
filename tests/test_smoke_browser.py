import pytest


@pytest.mark.browser
def test_playwright_drives_the_discovered_chromium(page):
    page.set_content("<p id=x>ok</p>")
    assert page.inner_text("#x") == "ok"
