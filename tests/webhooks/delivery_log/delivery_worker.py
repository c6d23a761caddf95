"""One receiver process of the multi-process tests: ``python delivery_worker.py URL SINK ...``.

A FastAPI app with ``WebhookReceiver`` on ``DeliveryLog.from_url(URL)``, served by
uvicorn on a free loopback port that it prints as ``PORT <n>``. Its handler
appends one line per event to SINK (``O_APPEND``: whole lines, even from several
processes): ``start``, then ``done`` or ``fail``. Delivery ids steer it:

- ``flaky-*``: the first attempt anywhere (a marker file) fails by raising;
- ``hang-*``: the first attempt anywhere never returns (the test kills the process);
- others: handled after ``--handle-seconds``.
"""

import argparse
import os
import sys
import time

import uvicorn
from fastapi import Depends, FastAPI, HTTPException

from gcbridge.serving import bind_socket
from gcbridge.webhooks import Delivery, DeliveryLog
from gcbridge.webhooks.receiver import WebhookReceiver

SECRET = "whsec_test_secret"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("sink")
    parser.add_argument("--markers", required=True, help="directory of first-attempt markers")
    parser.add_argument("--lease", type=float, default=60)
    parser.add_argument("--handle-seconds", type=float, default=0.02)
    args = parser.parse_args()

    receiver = WebhookReceiver(
        SECRET, delivery_log=DeliveryLog.from_url(args.url, lease=args.lease)
    )
    app = FastAPI(exception_handlers=receiver.exception_handlers)
    sink = os.open(args.sink, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    pid = os.getpid()

    def note(what: str, delivery_id: str) -> None:
        os.write(sink, f"{what} {delivery_id} {pid} {time.time():.3f}\n".encode())

    def first_attempt(delivery_id: str) -> bool:
        try:
            os.close(os.open(os.path.join(args.markers, delivery_id), os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return False
        return True

    @app.post("/hook")
    def hook(delivery: Delivery = Depends(receiver.delivery, scope="function")) -> dict[str, bool]:
        delivery_id = delivery.delivery_id or "-"
        note("start", delivery_id)
        if delivery_id.startswith("hang-") and first_attempt(delivery_id):
            time.sleep(3600)
        if delivery_id.startswith("flaky-") and first_attempt(delivery_id):
            note("fail", delivery_id)
            raise HTTPException(500, "handler failed")
        time.sleep(args.handle_seconds)
        note("done", delivery_id)
        return {"ok": True}

    sock = bind_socket("127.0.0.1", 0)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="error", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
