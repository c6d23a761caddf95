"""Rotating secrets without losing a delivery or a login (how-to "Rotate secrets")."""

from typing import Annotated

from fastapi import Depends, FastAPI

from gcbridge.sso import SsoIssuer, SsoVerifier
from gcbridge.webhooks import DeliveryLog, WebhookEvent
from gcbridge.webhooks.receiver import WebhookReceiver
from gcbridge.webhooks.testing import WebhookPoster

OLD, NEW = "whsec_old_0123456789abcdef", "whsec_new_fedcba9876543210"


def test_the_webhook_secret_rotates_without_a_restart(tmp_path):
    receiver = WebhookReceiver(OLD, delivery_log=DeliveryLog.from_url(str(tmp_path / "d.db")))
    app = FastAPI(exception_handlers=receiver.exception_handlers)

    @app.post("/webhooks/gc")
    def on_comment(event: Annotated[WebhookEvent, Depends(receiver)]) -> dict[str, bool]:
        return {"ok": True}

    post = WebhookPoster(app, secret=OLD, path="/webhooks/gc")
    assert post("comment.created").status_code == 200

    # 1. the setup call answered NEW: the service signs with it from now on
    receiver.rotate([NEW, OLD])  # 2. accept both at once (from your config store)
    assert post.configure(secret=NEW)("comment.created").status_code == 200
    assert post.configure(secret=OLD)("comment.created").status_code == 200  # one in flight

    receiver.rotate(NEW)  # 3. later: the old secret is refused
    refused = post.configure(secret=OLD)("comment.created")
    assert (refused.status_code, refused.json()["error"]) == (401, "signature_mismatch")


def test_sso_tokens_of_either_secret_verify_during_a_rotation():
    user = {"id": "42", "username": "ada", "email": "ada@example.com"}
    old_token = SsoIssuer("sso-secret-old-0123456789").issue(user)
    new_token = SsoIssuer("sso-secret-new-0123456789").issue(user)
    verifier = SsoVerifier(["sso-secret-new-0123456789", "sso-secret-old-0123456789"])
    assert verifier.verify(old_token).id == verifier.verify(new_token).id == "42"
