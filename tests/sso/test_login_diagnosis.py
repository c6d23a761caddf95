"""The emulator's login error passes the SDK's field diagnosis through."""

import httpx

from gcbridge.emulator.testing import EXAMPLE_SITE, running_emulator
from gcbridge.sso import SsoIssuer
from gcbridge.sso.format import assemble, encode_message


def test_login_with_an_avatar_field_says_which_field_is_meant(tmp_path):
    user = {"id": "42", "username": "ada", "email": "ada@example.com", "avatar": "https://e.com/a"}
    with running_emulator(tmp_path) as emu:
        clock_now = emu.state.clock.now()
        sso_data = assemble(EXAMPLE_SITE.sso_secret, encode_message(user), int(clock_now))
        r = httpx.post(
            emu.url + "/api/pub/sso/login",
            json={"api_public_key": EXAMPLE_SITE.sso_public_key, "ssoData": sso_data},
        )
        assert r.status_code == 401
        body = r.json()
        assert body["error"] == "sso_invalid"
        assert "unknown field 'avatar': the service's field is 'picture'" in body["message"]
        assert sso_data not in r.text

        # The fixed user signs in.
        fixed = {**{k: v for k, v in user.items() if k != "avatar"}, "picture": user["avatar"]}
        r = httpx.post(
            emu.url + "/api/pub/sso/login",
            json={
                "api_public_key": EXAMPLE_SITE.sso_public_key,
                "ssoData": SsoIssuer(EXAMPLE_SITE.sso_secret, allow_weak_secret=True).issue(
                    fixed, now=clock_now
                ),
            },
        )
        assert r.status_code == 200, r.text


def test_login_refuses_a_username_with_a_trailing_newline(tmp_path):
    with running_emulator(tmp_path) as emu:
        now = int(emu.state.clock.now())
        user = {"id": "43", "username": "ada\n", "email": "ada@example.com"}
        sso_data = assemble(EXAMPLE_SITE.sso_secret, encode_message(user), now)
        r = httpx.post(
            emu.url + "/api/pub/sso/login",
            json={"api_public_key": EXAMPLE_SITE.sso_public_key, "ssoData": sso_data},
        )
        assert r.status_code == 401 and "'username'" in r.json()["message"]
