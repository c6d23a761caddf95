"""The WebKit driver's environment (``driver_environment``): what it adds, what it keeps."""

from __future__ import annotations

from gcbridge_harness.engines.webkit.client import driver_environment


def test_the_driver_draws_through_shared_memory_on_its_own_display() -> None:
    env = driver_environment({"PATH": "/usr/bin", "WAYLAND_DISPLAY": "wayland-0"}, ":7")
    assert env["DISPLAY"] == ":7" and env["GDK_BACKEND"] == "x11"
    assert "WAYLAND_DISPLAY" not in env
    assert env["WEBKIT_DISABLE_DMABUF_RENDERER"] == "1"
    assert env["PATH"] == "/usr/bin"


def test_a_renderer_choice_of_the_caller_is_kept() -> None:
    base = {"WEBKIT_DISABLE_DMABUF_RENDERER": "0"}
    assert driver_environment(base, ":7")["WEBKIT_DISABLE_DMABUF_RENDERER"] == "0"
    assert base == {"WEBKIT_DISABLE_DMABUF_RENDERER": "0"}  # the caller's mapping is untouched
