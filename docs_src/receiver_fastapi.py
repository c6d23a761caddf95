"""Receiving webhooks: a complete FastAPI receiver (README, "Receiving webhooks")."""

import os
from typing import Annotated

from fastapi import Depends, FastAPI

from gcbridge.webhooks import DeliveryLog, WebhookEvent
from gcbridge.webhooks.receiver import WebhookReceiver

receiver = WebhookReceiver(
    os.environ["GC_WEBHOOK_SECRET"],  # returned by POST /webhook/website/{id}/setup
    # a file (one host), or postgresql://... / redis://... shared by every instance
    delivery_log=DeliveryLog.from_url(os.environ.get("GC_DELIVERY_LOG", "deliveries.db")),
)
app = FastAPI(exception_handlers=receiver.exception_handlers)


@app.post("/webhooks/gc")
def on_comment(
    event: Annotated[WebhookEvent, Depends(receiver, scope="function")],
) -> dict[str, bool]:
    comment = event.data.comment  # verified, fresh, first time: typed models of spec 2.4
    print(f"{event.event_type}: {comment.author.name} said {comment.content!r}")
    return {"ok": True}
