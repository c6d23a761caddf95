import dataclasses
import socket
import subprocess
import sys

import pytest

from gcbridge.emulator.errors import ConfigError
from gcbridge.emulator.settings import DEFAULT_RETRY_SCHEDULE, Settings, parse_retry_schedule
from gcbridge.emulator.sites import Sites, load_or_create_demo_site, load_sites
from gcbridge.emulator.testing import EXAMPLE_SITE

CONTRACT_EXAMPLE = """
[[site]]
shortname = "demo"                      # service_id / website_id in gc_url
website_id = "5f1c0ffee0ddba11c0ffee00" # 24 hex, used by the webhook routes
sso_public_key = "pk_demo"              # api_public_key
sso_secret = "sso-secret"               # signs ssoData
account_token = "acct-token"            # Authorization: Bearer <account_token>
site_key_id = "sk_demo"                 # server-to-server site-key signature
site_key_secret = "site-key-secret"
"""


def test_contract_sites_file_loads(tmp_path):
    f = tmp_path / "sites.toml"
    # its 10-byte sso_secret is an example credential: the file says so
    f.write_text(CONTRACT_EXAMPLE + "allow_weak_secret = true\n")
    sites = load_sites(f)
    assert sites.by_website_id("5f1c0ffee0ddba11c0ffee00") == EXAMPLE_SITE
    assert sites.by_shortname("demo") is sites.by_public_key("pk_demo")
    assert sites.by_website_id("demo") is None  # never the shortname


def test_secrets_are_masked_in_repr():
    text = repr(EXAMPLE_SITE)
    for secret in ("sso-secret", "acct-token", "site-key-secret"):
        assert secret not in text
    assert "sso_secret" not in EXAMPLE_SITE.public()


@pytest.mark.parametrize(
    ("patch", "reason"),
    [
        ({"website_id": "demo"}, "bad_website_id"),
        ({"website_id": "5F1C0FFEE0DDBA11C0FFEE00"}, "bad_website_id"),
        ({"shortname": "bad name"}, "bad_shortname"),
        ({"sso_secret": ""}, "missing_field"),
    ],
)
def test_bad_site_fields_are_named(patch, reason):
    with pytest.raises(ConfigError) as err:
        dataclasses.replace(EXAMPLE_SITE, **patch)
    assert err.value.reason == reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[[site]]\nshortname = 'x'\n", "missing_field"),
        ("not toml = = =", "sites_file_invalid"),
        ("title = 'no sites'", "no_sites"),
        (CONTRACT_EXAMPLE + "colour = 'red'\n", "unknown_field"),
        ((CONTRACT_EXAMPLE + "allow_weak_secret = true\n") * 2, "duplicate_site"),
        (CONTRACT_EXAMPLE + "allow_weak_secret = 'yes'\n", "wrong_type"),
        (CONTRACT_EXAMPLE.replace('"sk_demo"', "7"), "wrong_type"),
        (CONTRACT_EXAMPLE.replace('"pk_demo"', "true"), "wrong_type"),
    ],
)
def test_bad_sites_file(tmp_path, text, reason):
    f = tmp_path / "sites.toml"
    f.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_sites(f)
    assert err.value.reason == reason


def test_missing_sites_file(tmp_path):
    with pytest.raises(ConfigError) as err:
        load_sites(tmp_path / "nope.toml")
    assert err.value.reason == "sites_file_missing"


def test_demo_site_is_generated_once_and_kept_private(tmp_path):
    site, created = load_or_create_demo_site(tmp_path)
    again, created_again = load_or_create_demo_site(tmp_path)
    assert created and not created_again and site == again
    assert len(site.website_id) == 24
    assert (tmp_path / "demo-site.json").stat().st_mode & 0o077 == 0


def test_settings_from_options_defaults(tmp_path):
    s = Settings.from_options(data_dir=tmp_path, port=8123)
    assert s.widget_url == "http://127.0.0.1:8123/widget/"
    assert s.retry_schedule == DEFAULT_RETRY_SCHEDULE == (0, 60, 300, 900, 3600, 21600)
    assert s.generated_site is not None and len(s.sites) == 1
    assert Settings.from_options(data_dir=tmp_path).generated_site is None


@pytest.mark.parametrize("text", ["", "60,0", "1,2", "0,-1", "0,a"])
def test_bad_retry_schedule(text):
    with pytest.raises(ConfigError) as err:
        parse_retry_schedule(text)
    assert err.value.reason == "bad_schedule"


def test_sites_need_unique_ids():
    with pytest.raises(ConfigError):
        Sites([EXAMPLE_SITE, dataclasses.replace(EXAMPLE_SITE, shortname="b")])


def test_a_duplicate_names_both_lines(tmp_path):
    """duplicate_site names the line of each table, and the key."""
    second = CONTRACT_EXAMPLE.replace('shortname = "demo"', 'shortname = "blog"')
    f = tmp_path / "sites.toml"
    f.write_text(
        (CONTRACT_EXAMPLE + "allow_weak_secret = true\n") + second + "allow_weak_secret = true\n"
    )
    with pytest.raises(ConfigError) as err:
        load_sites(f)
    assert err.value.reason == "duplicate_site"
    message = str(err.value)
    assert f"{f}:12 [[site]] #2: website_id '5f1c0ffee0ddba11c0ffee00'" in message
    assert f"{f}:2 [[site]] #1" in message


def test_a_weak_secret_loads_with_a_warning_by_the_issuers_rule(tmp_path):
    # The contract's own example (a 10-byte secret) must load: outside tools use it. It is
    # never silent: one weak_secret line naming the place, never the secret.
    from gcbridge.sso import SsoIssuer
    from gcbridge.sso.errors import WeakSecret

    f = tmp_path / "sites.toml"
    f.write_text(CONTRACT_EXAMPLE.replace('"sso-secret"', '"abcde"'))
    (warning,) = load_sites(f).warnings
    assert warning.startswith("[weak_secret] ") and ":2 [[site]] #1" in warning
    assert "abcde" not in warning  # a secret, even a weak one, is never printed
    with pytest.raises(WeakSecret):
        SsoIssuer("abcde")
    f.write_text(CONTRACT_EXAMPLE)
    assert len(load_sites(f).warnings) == 1
    f.write_text(CONTRACT_EXAMPLE + "allow_weak_secret = true\n")  # said on purpose: quiet
    assert load_sites(f).warnings == ()
    strong = "s" * 16  # the shortest the issuer takes loads quietly too
    SsoIssuer(strong)
    f.write_text(CONTRACT_EXAMPLE.replace('"sso-secret"', f'"{strong}"'))
    sites = load_sites(f)
    assert sites.by_shortname("demo").sso_secret == strong and sites.warnings == ()


def test_the_emulator_prints_the_weak_secret_warning(tmp_path):
    f = tmp_path / "sites.toml"
    f.write_text(CONTRACT_EXAMPLE)
    # the sites file is read before the port is bound: a held port ends the run right after
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = str(held.getsockname()[1])
        run = subprocess.run(
            [sys.executable, "-m", "gcbridge", "emulator", "--sites", str(f), "--port", port],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
    assert "[port_in_use]" in run.stderr
    assert "gcbridge emulator: warning [weak_secret] " in run.stderr
    assert "sso-secret" not in run.stderr
