"""gcbridge sso issue | verify."""

import json

from gcbridge.cli import main
from gcbridge.sso import SsoVerifier

T = 1_700_000_000


def issue(capsys, *extra):
    code = main(
        [
            "sso",
            "issue",
            "--secret-env",
            "GC_TEST_SSO",
            "--id",
            "42",
            "--username",
            "ada",
            "--email",
            "ada@example.com",
            "--now",
            str(T),
            *extra,
        ]
    )
    out = capsys.readouterr()
    return code, out.out.strip(), out.err


def test_issue_prints_a_token_verifiable_with_the_env_secret(monkeypatch, capsys):
    monkeypatch.setenv("GC_TEST_SSO", "cli-secret-0123456789")
    code, token, _ = issue(capsys, "--language", "fr", "--picture", "https://example.com/a.png")
    assert code == 0
    user = SsoVerifier("cli-secret-0123456789").verify(token, now=T)
    assert (user.id, user.language, user.picture) == ("42", "fr", "https://example.com/a.png")


def test_unset_env_var_is_named(monkeypatch, capsys):
    monkeypatch.delenv("GC_TEST_SSO", raising=False)
    code, out, err = issue(capsys)
    assert code == 1 and out == ""
    assert "GC_TEST_SSO" in err and "secret_env_unset" in err


def test_bad_user_fields_are_reported(monkeypatch, capsys):
    monkeypatch.setenv("GC_TEST_SSO", "cli-secret-0123456789")
    code, out, err = issue(capsys, "--picture", "not-a-url")
    assert code == 1 and "picture" in err and "bad_user" in err


def test_verify_prints_user_json_or_reason(monkeypatch, capsys):
    monkeypatch.setenv("GC_TEST_SSO", "cli-secret-0123456789")
    _, token, _ = issue(capsys)
    assert main(["sso", "verify", "--secret-env", "GC_TEST_SSO", "--now", str(T + 10), token]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "id": "42",
        "username": "ada",
        "email": "ada@example.com",
    }
    assert main(["sso", "verify", "--secret-env", "GC_TEST_SSO", "--now", str(T + 331), token]) == 1
    assert capsys.readouterr().err.startswith("invalid: expired")
    monkeypatch.setenv("GC_TEST_SSO", "other")
    assert main(["sso", "verify", "--secret-env", "GC_TEST_SSO", "--now", str(T), token]) == 1
    assert capsys.readouterr().err.startswith("invalid: bad_signature")


def test_secret_never_accepted_on_the_command_line(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["sso", "issue", "--secret", "x", "--id", "1", "--username", "a", "--email", "a@b.co"])
