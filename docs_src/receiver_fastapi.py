"""Receiving webhooks: a complete FastAPI receiver (guide "Receive webhooks").

Run it with ``uvicorn --factory docs_src.receiver_fastapi:create_app --port 9000``.
"""

import os
from typing import Annotated

from fastapi import Depends, FastAPI

from gcbridge.webhooks import DeliveryLog, WebhookEvent
from gcbridge.webhooks.receiver import WebhookReceiver


def setting(name: str, what: str) -> str:
    """An environment variable this example needs: one clear line when it is unset."""
    value = os.environ.get(name, "")
    if not value:
        raise SystemExit(f"receiver_fastapi: set {name} to {what}")
    return value


def create_app() -> FastAPI:
    """The receiver app, configured from the environment each time it is built."""
    receiver = WebhookReceiver(
        setting("GC_WEBHOOK_SECRET", "the secret returned by POST /webhook/website/{id}/setup"),
        # a file (one host), or postgresql://... / redis://... shared by every instance
        delivery_log=DeliveryLog.from_url(os.environ.get("GC_DELIVERY_LOG", "deliveries.db")),
    )
    app = FastAPI(exception_handlers=receiver.exception_handlers)

    @app.post("/webhooks/gc")
    def on_comment(
        event: Annotated[WebhookEvent, Depends(receiver, scope="function")],
    ) -> dict[str, bool]:
        comment = event.data.comment  # verified, fresh, first time: typed models
        print(f"{event.event_type}: {comment.author.name} said {comment.content!r}", flush=True)
        return {"ok": True}

    return app
