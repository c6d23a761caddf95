"""The wire-format page holds for another language: its Node version passes the shipped
vectors, and what it issues and signs is accepted by the Python SDKs and the other way round."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gcbridge.sso import SsoIssuer, SsoVerifier
from gcbridge.sso.format import assemble, encode_message
from gcbridge.webhooks import verify_signature
from gcbridge.webhooks.signature import sign

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is missing: apt-get install nodejs")


def node(script: str) -> str:
    run = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_the_node_version_passes_the_shipped_vectors() -> None:
    run = subprocess.run(
        [NODE, "docs_src/node/check_vectors.mjs", "src/gcbridge/vectors"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert re.search(r"^\d+ passed, 0 failed$", run.stdout, re.M)


def test_node_and_python_accept_each_others_tokens_and_signatures() -> None:
    secret = "a-secret-of-the-site-0123456789"
    user = {"id": "42", "username": "Zoë", "email": "zoe@example.com"}
    issued = node(
        "import {issueSsoData} from './docs_src/node/wire.mjs';"
        f"console.log(issueSsoData({json.dumps(secret)}, {json.dumps(user)}, 1700000000))"
    )
    verified = SsoVerifier(secret).verify(issued, now=1700000010)
    assert (verified.id, verified.username) == ("42", "Zoë")
    token = SsoIssuer(secret).issue(user, now=1700000000)
    back = node(
        "import {verifySsoData} from './docs_src/node/wire.mjs';"
        f"console.log(JSON.stringify(verifySsoData({json.dumps(secret)}, {json.dumps(token)},"
        " {now: 1700000010})))"
    )
    assert json.loads(back) == user

    body = '{"event_type":"comment.created","note":"é"}'
    signature = node(
        "import {signWebhook} from './docs_src/node/wire.mjs';"
        f"console.log(signWebhook('whsec_x', 1700000000000, Buffer.from({json.dumps(body)})))"
    )
    headers = {"X-Webhook-Timestamp": "1700000000000", "X-Webhook-Signature": signature}
    verify_signature("whsec_x", body.encode(), headers, now=1700000000)
    assert signature == sign("whsec_x", 1700000000000, body.encode())


def test_the_pages_worked_example_is_right() -> None:
    page = (ROOT / "docs" / "reference" / "wire-formats.md").read_text(encoding="utf-8")
    token = re.search(r"^ssoData   (.+)$", page, re.M).group(1)
    # the vectors' short secret: below what an issuer accepts, so the format's own functions
    message = encode_message({"id": "42", "username": "ada", "email": "ada@example.com"})
    assert token == assemble("sso-secret", message, 1700000000)
