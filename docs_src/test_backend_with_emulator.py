"""Your backend's ssoData against the service's own login, in your pytest suite: the emulator
started in-process on a free port (guide "The emulator")."""

import httpx

from gcbridge.emulator.sites import Site
from gcbridge.emulator.testing import running_emulator
from gcbridge.sso import SsoIssuer

# your test site: the same keys as in a sites file (examples/sites.toml)
SITE = Site(
    shortname="myblog",  # website_id on the widget and comment routes
    website_id="65a1c0ffee0ddba11c0ffee1",  # website_id on the webhook routes
    sso_public_key="pk_test_myblog",
    sso_secret="test-sso-secret-of-the-site-0123",
    account_token="acct_test_myblog",
    site_key_id="sk_test_myblog",
    site_key_secret="test-site-key-secret",
)


def test_our_ssodata_signs_a_user_in(tmp_path):
    with running_emulator(tmp_path / "emulator", sites=[SITE]) as emulator:
        user = {"id": "42", "username": "ada", "email": "ada@example.com"}
        sso_data = SsoIssuer(SITE.sso_secret).issue(user)  # what your /sso-data answers
        answer = httpx.post(
            f"{emulator.url}/api/pub/sso/login",
            json={"api_public_key": SITE.sso_public_key, "ssoData": sso_data},
        ).json()
        assert "token" in answer, answer  # an error would be {"gcCode", "error", "message"}
