"""The harness's page server (``FrameServer``): serves pages, stays quiet when a client drops."""

from __future__ import annotations

import socket
import struct
import time

import httpx
import pytest
from gcbridge_harness.world.frames import FrameServer


def _reset_mid_request(origin: str) -> None:
    """A client that sends half a request, then resets the connection (as an engine may)."""
    host, port = origin.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(b"GET /page.html HTTP/1.1\r\nHost: x\r\n")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def test_a_client_that_resets_its_request_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    with FrameServer() as server:
        url = server.serve("/page.html", "<p>hi</p>")
        _reset_mid_request(server.origin)
        time.sleep(0.2)  # the handler thread reads the reset
        assert httpx.get(url).text == "<p>hi</p>"  # and the server serves on
    out, err = capfd.readouterr()
    assert "Exception occurred" not in out + err and "Traceback" not in err
