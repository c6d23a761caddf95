"""Loopback servers the benchmarks run in their own process (so they do not share our GIL).

    python bench/servers.py receiver   # row 3: verifies every delivery, records arrivals
    python bench/servers.py floor      # row 6: a bare FastAPI thread-load, the floor

Each binds 127.0.0.1 on a free port and prints ``ready on http://HOST:PORT``.
:func:`start` runs one and returns its URL and process.
"""

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

__all__ = ["start", "receiver_app", "floor_app"]


def receiver_app() -> Any:
    """A raw ASGI webhook receiver: verify the signature, record (delivery id, arrival time), 200.

    ``POST /configure {"secret"}`` sets the secret; ``GET /arrivals`` answers
    ``{delivery_id: arrival epoch seconds}`` and ``{"rejected": n}``.
    """
    from gcbridge.webhooks import WebhookVerificationError, verify_signature

    state: dict[str, Any] = {"secret": None, "arrivals": {}, "rejected": 0}

    async def read_body(receive: Any) -> bytes:
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                return b"".join(chunks)

    async def respond(send: Any, status: int, payload: Any) -> None:
        body = json.dumps(payload).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = await read_body(receive)
        path, method = scope["path"], scope["method"]
        if path == "/configure" and method == "POST":
            state["secret"] = json.loads(body)["secret"]
            state["arrivals"] = {}
            state["rejected"] = 0
            await respond(send, 200, {"ok": True})
        elif path == "/arrivals":
            await respond(send, 200, {"arrivals": state["arrivals"], "rejected": state["rejected"]})
        elif path == "/hook" and method == "POST":
            arrived = time.time()
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            try:
                verify_signature(state["secret"], body, headers)
            except WebhookVerificationError as exc:
                state["rejected"] += 1
                await respond(send, 401, {"error": exc.reason})
                return
            state["arrivals"].setdefault(headers["x-webhook-delivery-id"], arrived)
            await respond(send, 200, {"ok": True})
        else:
            await respond(send, 404, {"error": "not_found"})

    return app


def floor_app() -> Any:
    """The least a FastAPI thread-load can do: read and check the six parameters, build gc_url."""
    from fastapi import FastAPI, HTTPException, Request

    app = FastAPI()

    @app.get("/api/pub/thread-load/")
    async def thread_load(request: Request) -> dict[str, str]:
        q = request.query_params
        missing = [
            k
            for k in ("service_id", "url", "uid", "page_title", "inapp", "redirect")
            if not q.get(k)
        ]
        if missing:
            raise HTTPException(400, f"missing {missing}")
        query = urlencode(
            {
                "website_id": q["service_id"],
                "url": q["url"],
                "uid": q["uid"],
                "page_title": q["page_title"],
                "inapp": "true",
            },
            quote_via=quote,
            safe="",
        )
        return {"gc_url": f"http://127.0.0.1/widget/?{query}"}

    return app


def _serve(kind: str) -> None:
    import asyncio

    import uvicorn

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from gcbridge.serving import bind_socket

    app = receiver_app() if kind == "receiver" else floor_app()
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    )

    async def serve() -> None:
        task = asyncio.ensure_future(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        print(f"ready on http://127.0.0.1:{port}", flush=True)
        await task

    asyncio.run(serve())


def start(
    argv: list[str], *, ready_prefix: str, timeout: float = 60.0
) -> tuple[str, subprocess.Popen[str]]:
    """Start ``argv`` (a server printing ``<ready_prefix> URL``); returns (URL, process)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if line.startswith(ready_prefix):
            # Keep draining: a full pipe would block the server on its next log line.
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return line.split()[-1].strip(), proc
    proc.kill()
    raise RuntimeError(f"{argv} did not get ready: {''.join(seen)[-2000:]}")


if __name__ == "__main__":
    _serve(sys.argv[1])
