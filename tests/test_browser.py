import stat

import pytest

from gcbridge.browser import BrowserNotFound, find_chromium, find_headless_chromium


def _exe(tmp_path, name="chrome"):
    p = tmp_path / name
    p.write_text("#!/bin/sh\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


def test_explicit_path_wins(tmp_path):
    exe = _exe(tmp_path)
    assert find_chromium(exe, environ={"GC_BROWSER": "/nope"}) == exe


def test_gc_browser_env_comes_first(tmp_path):
    exe = _exe(tmp_path)
    assert find_chromium(environ={"GC_BROWSER": exe}) == exe


def test_bad_gc_browser_is_a_clear_error_not_a_fallback(tmp_path):
    with pytest.raises(BrowserNotFound) as err:
        find_chromium(environ={"GC_BROWSER": str(tmp_path / "missing")})
    assert err.value.reason == "browser_path_invalid"
    assert "GC_BROWSER" in str(err.value)


def test_playwright_managed_before_system(tmp_path, monkeypatch):
    root = tmp_path / "pw"
    target = root / "chromium-1234" / "chrome-linux"
    target.mkdir(parents=True)
    exe = _exe(target, "chrome")
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(root))
    assert find_chromium(environ={}) == exe


def test_nothing_found_names_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("gcbridge.browser.SYSTEM_CANDIDATES", ("/nonexistent/chromium", "chromium"))
    with pytest.raises(BrowserNotFound) as err:
        find_chromium(environ={})
    assert err.value.reason == "browser_not_found"
    assert "install" in str(err.value)


# ---- headless runs: Playwright's headless shell where there is one ----------------------


def test_headless_prefers_playwrights_headless_shell(tmp_path, monkeypatch):
    root = tmp_path / "pw"
    (root / "chromium-1234" / "chrome-linux").mkdir(parents=True)
    _exe(root / "chromium-1234" / "chrome-linux", "chrome")
    (root / "chromium_headless_shell-1234" / "chrome-linux").mkdir(parents=True)
    shell = _exe(root / "chromium_headless_shell-1234" / "chrome-linux", "headless_shell")
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(root))
    assert find_headless_chromium(environ={}) == shell
    assert find_chromium(environ={}) != shell  # the full browser stays for what needs it


def test_headless_takes_the_system_shell_then_falls_back_to_chromium(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "none"))
    full, shell = _exe(tmp_path, "chromium"), _exe(tmp_path, "chromium-headless-shell")
    monkeypatch.setattr("gcbridge.browser.SYSTEM_CANDIDATES", (full,))
    monkeypatch.setattr("gcbridge.browser.HEADLESS_SHELL_CANDIDATES", (shell,))
    assert find_headless_chromium(environ={}) == shell
    monkeypatch.setattr("gcbridge.browser.HEADLESS_SHELL_CANDIDATES", ("/nonexistent/shell",))
    assert find_headless_chromium(environ={}) == full


def test_headless_uses_a_named_browser_as_named(tmp_path, monkeypatch):
    named = _exe(tmp_path, "my-chrome")
    monkeypatch.setattr(
        "gcbridge.browser.HEADLESS_SHELL_CANDIDATES", (_exe(tmp_path, "chromium-headless-shell"),)
    )
    assert find_headless_chromium(named, environ={}) == named
    assert find_headless_chromium(environ={"GC_BROWSER": named}) == named
    with pytest.raises(BrowserNotFound) as err:
        find_headless_chromium(environ={"GC_BROWSER": str(tmp_path / "missing")})
    assert err.value.reason == "browser_path_invalid"
