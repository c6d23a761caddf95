"""``gcbridge sso verify`` errors on stderr with unit hints, documented
options, the README's quoting, and secrets under 16 bytes refused by the CLI and the SDK."""

from __future__ import annotations

import json
import subprocess

import pytest

from gcbridge.cli import main
from gcbridge.sso import SsoError, SsoIssuer, SsoVerifier
from gcbridge.sso.errors import WeakSecret
from gcbridge.sso.format import assemble, encode_message
from tests.as_user import ROOT, gcbridge_cmd, readme, readme_block, user_env

SECRET = "newcomer-sso-secret-0123456789"
T = 1_700_000_000


def test_the_readme_shell_block_runs_as_written(tmp_path) -> None:
    # the block of the guide "Issue ssoData": docs_src/sso_cli.sh, included in the page
    block = readme_block("export GC_SSO_SECRET=")
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block],
        cwd=ROOT,
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2  # both verify lines print the user
    for line in lines:
        assert json.loads(line) == {"id": "42", "username": "ada", "email": "ada@example.com"}
    # a token in argv is still verified, with a warning that it is in argv (nothing else)
    assert all(
        line.startswith("warning [credential_in_argv]") for line in run.stderr.splitlines()
    ), run.stderr


def test_an_unquoted_token_is_a_usage_error_not_a_wrong_verdict(monkeypatch, capsys) -> None:
    monkeypatch.setenv("GC_NC_SSO", SECRET)
    token = SsoIssuer(SECRET).issue({"id": "1", "username": "a", "email": "a@b.co"})
    with pytest.raises(SystemExit) as info:
        main(["sso", "verify", "--secret-env", "GC_NC_SSO", *token.split(" ")])
    assert info.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_failures_go_to_stderr_and_stdout_stays_empty(monkeypatch) -> None:
    token = SsoIssuer(SECRET).issue({"id": "1", "username": "a", "email": "a@b.co"}, now=T)
    run = subprocess.run(
        gcbridge_cmd("sso", "verify", "--secret-env", "GC_NC_SSO", token),
        cwd=ROOT,
        env=user_env(GC_NC_SSO="another-secret-0123456789"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert run.stdout == ""
    assert run.stderr.startswith("invalid: bad_signature")


def test_a_timestamp_in_milliseconds_is_diagnosed(monkeypatch, capsys) -> None:
    monkeypatch.setenv("GC_NC_SSO", SECRET)
    message = encode_message({"id": "1", "username": "a", "email": "a@b.co"})
    token = assemble(SECRET.encode(), message, T * 1000)  # milliseconds, a common mistake
    assert main(["sso", "verify", "--secret-env", "GC_NC_SSO", token]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "looks like milliseconds" in err and "Unix seconds" in err


def test_a_webhook_timestamp_in_seconds_is_diagnosed(tmp_path, monkeypatch, capsys) -> None:
    from gcbridge.webhooks import sign

    body = tmp_path / "body.json"
    body.write_bytes(b'{"event_type": "comment.created"}')
    monkeypatch.setenv("GC_NC_WH", "whsec_newcomer")
    good = sign("whsec_newcomer", T * 1000, body.read_bytes())
    args = ["webhooks", "verify", "--secret-env", "GC_NC_WH", "--signature", good, str(body)]
    assert main([*args, "--timestamp", str(T)]) == 1  # seconds where ms were signed
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("invalid: signature_mismatch")
    assert "looks like seconds" in err and "milliseconds" in err
    assert main([*args, "--timestamp", str(T * 1000)]) == 0
    assert "looks like" not in capsys.readouterr().err


def test_max_age_and_leeway_are_documented_and_work(monkeypatch, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["sso", "verify", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--max-age S token lifetime in seconds" in help_text
    assert "--leeway S clock skew tolerated both ways" in help_text
    assert "quote it" in help_text
    text = readme()
    assert "--max-age" in text and "--leeway" in text and '"$TOKEN"' in text
    monkeypatch.setenv("GC_NC_SSO", SECRET)
    token = SsoIssuer(SECRET).issue({"id": "1", "username": "a", "email": "a@b.co"}, now=T)
    base = ["sso", "verify", "--secret-env", "GC_NC_SSO", "--now", str(T + 500)]
    assert main([*base, token]) == 1
    assert main([*base, "--max-age", "600", token]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("secret", ["abc", "x" * 15, "é" * 7])  # "é" is 2 bytes: 14
def test_the_cli_refuses_a_short_secret_with_its_reason(secret) -> None:
    run = subprocess.run(
        gcbridge_cmd(
            *("sso", "issue", "--secret-env", "GC_NC_SSO", "--id", "1"),
            *("--username", "a", "--email", "a@b.co"),
        ),
        cwd=ROOT,
        env=user_env(GC_NC_SSO=secret),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert run.stdout == ""  # no token
    assert run.stderr.startswith("gcbridge: error [weak_secret]: ")
    assert "at least 16" in run.stderr and secret not in run.stderr


def test_the_sdk_refuses_a_short_secret_with_its_reason() -> None:
    with pytest.raises(WeakSecret) as info:
        SsoIssuer("abc")
    assert info.value.reason == "weak_secret"
    assert isinstance(info.value, SsoError) and isinstance(info.value, ValueError)
    assert "abc" not in str(info.value)
    SsoIssuer("x" * 16)  # 16 bytes is enough
    SsoIssuer(b"\x00" * 16)
    # the short example credentials of tests and vectors, explicitly
    token = SsoIssuer("sso-secret", allow_weak_secret=True).issue(
        {"id": "1", "username": "a", "email": "a@b.co"}, now=T
    )
    assert SsoVerifier("sso-secret").verify(token, now=T).id == "1"
