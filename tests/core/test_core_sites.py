import dataclasses

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
    f.write_text(CONTRACT_EXAMPLE)
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
        (CONTRACT_EXAMPLE * 2, "duplicate_site"),
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
