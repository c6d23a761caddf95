"""The --sites format is documented by examples/sites.toml, which the
emulator loads as the README says; directories and bad TOML are one line with the line at fault."""

from __future__ import annotations

import signal
import subprocess
import tomllib
from pathlib import Path

import httpx
import pytest

from gcbridge.emulator.sites import load_sites
from tests.as_user import ROOT, Lines, gcbridge_cmd, readme_block, user_env


def test_the_emulator_serves_every_site_of_the_example_file(tmp_path: Path) -> None:
    example = tomllib.loads((ROOT / "examples/sites.toml").read_text(encoding="utf-8"))
    emulator = Lines(
        gcbridge_cmd(
            *("emulator", "--sites", "examples/sites.toml"),
            *("--port", "0", "--data-dir", str(tmp_path / "d")),
        )
    )
    try:
        url = emulator.wait_for(r"ready on (http://\S+)$").group(1)
        printed = "\n".join(emulator.seen)
        for site in example["site"]:
            assert f"site {site['shortname']} website_id={site['website_id']}" in printed
            assert site["sso_secret"] not in printed and site["account_token"] not in printed
            gc_url = httpx.get(
                f"{url}/api/pub/thread-load/",
                params={
                    "service_id": site["shortname"],
                    "url": "https://app.example/a",
                    "uid": "1",
                    "page_title": "A",
                    "inapp": "true",
                    "redirect": "true",
                },
                timeout=30,
            ).json()["gc_url"]
            assert f"website_id={site['shortname']}" in gc_url
            answer = httpx.get(
                f"{url}/webhook/website/{site['website_id']}/config",
                headers={"Authorization": f"Bearer {site['account_token']}"},
                timeout=30,
            ).json()
            assert answer["gcCode"] == 404  # authenticated: just not set up yet
        assert not (tmp_path / "d" / "demo-site.json").exists()
    finally:
        emulator.signal_group(signal.SIGTERM)
        emulator.kill()


def test_the_readme_toml_block_is_a_valid_sites_file(tmp_path: Path) -> None:
    # the block of the guide "The emulator": docs_src/sites.toml, included in the page
    sites_file = tmp_path / "sites.toml"
    sites_file.write_text(readme_block("[[site]]", lang="toml"), encoding="utf-8")
    assert [s.shortname for s in load_sites(sites_file)] == ["demo"]


def _emulator_error(tmp_path: Path, sites: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        gcbridge_cmd("emulator", "--sites", sites, "--port", "0", "--data-dir", "state"),
        cwd=tmp_path,
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


BAD = {
    "syntax": ('[[site]]\nshortname = "demo"\nwebsite_id = 5f1c\n', "sites_file_invalid", ":3"),
    "missing": (
        (ROOT / "examples/sites.toml")
        .read_text(encoding="utf-8")
        .replace('site_key_id = "sk_blog"\n', ""),
        "missing_field",
        ":23 [[site]] #2: missing keys ['site_key_id']",
    ),
    "bad_id": (
        (ROOT / "examples/sites.toml")
        .read_text(encoding="utf-8")
        .replace("0123456789abcdef01234567", "not-hex"),
        "bad_website_id",
        ":23 [[site]] #2: site 'blog': website_id 'not-hex'",
    ),
    "number": (
        '[[site]]\nshortname = "demo"\nwebsite_id = "5f1c0ffee0ddba11c0ffee00"\n'
        'sso_public_key = "pk"\nsso_secret = 7\naccount_token = "t"\nsite_key_id = "k"\n'
        'site_key_secret = "s"\n',
        "wrong_type",
        ":1 [[site]] #1: site 'demo': sso_secret must be a quoted string, not int",
    ),
    "empty": ("# nothing\n", "no_sites", "has no [[site]] table"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_sites_file_is_one_line_with_the_line_at_fault(tmp_path: Path, case: str) -> None:
    text, reason, needle = BAD[case]
    (tmp_path / "sites.toml").write_text(text, encoding="utf-8")
    run = _emulator_error(tmp_path, "sites.toml")
    assert run.returncode == 1
    assert run.stderr.startswith(f"gcbridge: error [{reason}]: "), run.stderr
    assert needle in run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert not (tmp_path / "state").exists()  # refused before anything is written
    if case == "syntax":
        assert "'website_id = 5f1c'" in run.stderr  # the line itself, quoted


def test_a_directory_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    run = _emulator_error(tmp_path, "conf")
    assert run.returncode == 1
    assert run.stderr.startswith("gcbridge: error [sites_file_is_directory]: sites file conf ")
    assert "examples/sites.toml" in run.stderr
    assert run.stderr.count("\n") == 1 and "IsADirectoryError" not in run.stderr


def test_emulator_help_documents_the_format() -> None:
    run = subprocess.run(
        gcbridge_cmd("emulator", "--help"), env=user_env(), capture_output=True, text=True
    )
    text = " ".join(run.stdout.split())
    for key in ("[[site]]", "shortname", "website_id", "sso_public_key", "sso_secret"):
        assert key in text
    assert "examples/sites.toml" in text
