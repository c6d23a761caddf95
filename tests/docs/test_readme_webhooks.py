"""The README's webhook block, pasted at once into bash from the repository root.

The block starts the emulator on its default port 8000 and the listener on 9000
in the background; ``gcbridge emulator ready`` makes the next line wait for the
emulator. Then a comment is posted and the listener must print it VERIFIED.
Other engineers' runs may hold 8000 or 9000 for a while: the test waits for them.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time

import httpx
import pytest

from gcbridge.sso import SsoIssuer
from tests.as_user import ROOT, Lines, gcbridge_cmd, readme_block, user_env, wait_ports_free

pytestmark = pytest.mark.defaults  # the README block: ports 8000 and 9000, ./.gcbridge

BASE = "http://127.0.0.1:8000"


def post_comment(site: dict[str, str], text: str) -> None:
    user = {"id": "zed-1", "username": "zed", "email": "zed@example.com"}
    sso = SsoIssuer(site["sso_secret"]).issue(user)
    login = httpx.post(
        f"{BASE}/api/pub/sso/login",
        json={"api_public_key": site["sso_public_key"], "ssoData": sso},
        timeout=30,
    ).json()
    assert "token" in login, login
    comment = httpx.post(
        f"{BASE}/api/pub/comments",
        headers={"Authorization": f"Bearer {login['token']}"},
        json={
            "website_id": site["shortname"],
            "uid": "newcomer-readme",
            "url": "https://app.example/readme",
            "page_title": "README",
            "content": text,
        },
        timeout=30,
    ).json()
    assert "gcCode" not in comment, comment


@pytest.mark.slow
def test_the_webhook_block_pasted_at_once_delivers_a_verified_event() -> None:
    # the block of the guide "The emulator": docs_src/webhooks_by_hand.sh, included in the page
    block = readme_block(
        "gcbridge emulator --port 8000 --data-dir .gcbridge", contains="gcbridge webhooks listen"
    )
    assert "gcbridge emulator ready" in block.splitlines()[1]
    if not wait_ports_free(8000, 9000, timeout=120):
        pytest.skip("ports 8000/9000 stayed busy (another run on this machine) for 2 minutes")
    # The block as pasted, then a marker; bash then waits for its background jobs.
    shell = Lines(["bash", "-c", block + '\necho "BLOCK DONE"\nwait\n'], cwd=ROOT, env=user_env())
    try:
        shell.wait_for(r"^BLOCK DONE$", timeout=120)
        shell.wait_for(r"^gcbridge webhooks listening on http://127\.0\.0\.1:9000/$", timeout=60)
        site = json.loads((ROOT / ".gcbridge" / "demo-site.json").read_text(encoding="utf-8"))
        text = f"hello webhook {time.time_ns()}"
        post_comment(site, text)
        line = shell.wait_for(r"VERIFIED\s+comment\.created", timeout=60).string
        assert "by 'zed'" in line and text[:20] in line
        code, err = shell.signal_group(signal.SIGTERM)
    finally:
        shell.kill()
    # both background commands stopped with their one line, nothing else on stderr
    assert "gcbridge emulator: stopped (SIGTERM)" in err
    assert "gcbridge webhooks listen: stopped (SIGTERM)" in err
    assert "Traceback" not in err and "Error" not in err, err


def test_ready_waits_for_an_emulator_and_gives_up_in_one_line(tmp_path) -> None:
    emulator = Lines(
        gcbridge_cmd("emulator", "--port", "0", "--data-dir", str(tmp_path / "d")),
        cwd=tmp_path,
    )
    try:
        url = emulator.wait_for(r"ready on (http://\S+)$").group(1)
        ok = subprocess.run(
            gcbridge_cmd("emulator", "ready", "--url", url, "--timeout", "30"),
            env=user_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert ok.returncode == 0, ok.stderr
        assert ok.stdout == f"gcbridge emulator ready on {url}\n"
        assert (tmp_path / "d" / "demo-site.json").is_file()
    finally:
        emulator.signal_group(signal.SIGINT)
        emulator.kill()
    gone = subprocess.run(
        gcbridge_cmd("emulator", "ready", "--url", url, "--timeout", "1"),
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert gone.returncode == 1
    assert gone.stderr.startswith("gcbridge: error [not_ready]: no emulator answered on ")
    assert gone.stderr.count("\n") == 1
