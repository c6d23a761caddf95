"""Test pages on an origin of their own: :class:`FrameServer` (a hostile frame, for one).

The widget's origin is the emulator's; a page served here, on another port of
loopback, is cross-origin to it in every engine, without request interception.
"""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

__all__ = ["FrameServer", "PageServer"]


class PageServer(ThreadingHTTPServer):
    """An HTTP server for test pages that an engine may hang up on.

    An engine drops a request it no longer needs (a navigation replaced it, a view
    closed): that is no error of the page, and is not printed. Anything else is.
    """

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FrameServer:
    """Serves registered HTML pages on ``http://127.0.0.1:<port>`` until closed."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                body = pages.get(self.path.split("?")[0])
                data = (body or "not found").encode()
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = PageServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def serve(self, path: str, html: str) -> str:
        """Serve ``html`` at ``path``; returns its URL."""
        self.pages[path] = html
        return self.origin + path

    def close(self) -> None:
        """Stop serving."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FrameServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
