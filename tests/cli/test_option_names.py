"""Every option a --help, an error message or the README names exists.

Three walks: (1) every parser's --help; (2) the error of every error path of the
commands, run as a user would; (3) every ``gcbridge ...`` line of the README.
An option counts as existing when the command at fault, or a command the
message itself names (``start one with: gcbridge emulator --port ...``), has it.
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

from gcbridge.cli import build_parser, main
from tests.as_user import ROOT, readme

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
NAMED_COMMAND = re.compile(r"gcbridge ([a-z][a-z-]*(?: [a-z][a-z-]*){0,2})")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _walk(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    found = {path: parser}
    for name, sub in _subparsers(parser).items():
        found.update(_walk(sub, (*path, name)))
    return found


PARSERS = _walk(build_parser())


def options_of(path: tuple[str, ...]) -> set[str]:
    """Options of the command at ``path`` (and of its sub-commands, which its help lists)."""
    names: set[str] = set()
    for other, parser in PARSERS.items():
        if other[: len(path)] == path and len(other) <= len(path) + 1:
            for action in parser._actions:
                names.update(o for o in action.option_strings if o.startswith("--"))
    return names


def named_commands(text: str) -> set[tuple[str, ...]]:
    """The commands a message names, e.g. ``gcbridge emulator ready`` -> ("emulator", "ready")."""
    out = set()
    for match in NAMED_COMMAND.finditer(text):
        words = tuple(match.group(1).split())
        while words and words not in PARSERS:
            words = words[:-1]
        if words:
            out.add(words)
    return out


ROOT_OPTIONS = {o for a in PARSERS[()]._actions for o in a.option_strings if o.startswith("--")}


def assert_options_exist(text: str, path: tuple[str, ...], where: str) -> None:
    allowed = options_of(path) | ROOT_OPTIONS
    for named in named_commands(text):
        allowed |= options_of(named)
    unknown = sorted(set(OPTION.findall(text)) - allowed)
    assert not unknown, f"{where} names options that do not exist: {unknown}\n{text}"


@pytest.mark.parametrize("path", sorted(PARSERS), ids=lambda p: " ".join(p) or "gcbridge")
def test_every_help_names_only_existing_options(path: tuple[str, ...]) -> None:
    text = PARSERS[path].format_help()
    assert_options_exist(text, path, f"gcbridge {' '.join(path)} --help")


def _body(tmp: Path) -> str:
    body = tmp / "body.json"
    body.write_text('{"a": 1}')
    return str(body)


def error_cases(tmp: Path) -> list[tuple[tuple[str, ...], list[str]]]:
    body = _body(tmp)
    sites_dir = tmp / "sites.d"
    sites_dir.mkdir()
    bad_toml = tmp / "bad.toml"
    bad_toml.write_text("[[site]]\nshortname = \n")
    data = str(tmp / "data")
    return [
        (("webhooks", "sign"), ["--timestamp", "1700000000000", body]),
        (("webhooks", "verify"), ["--timestamp", "1700000000000", "--signature", "ab", body]),
        (("webhooks", "listen"), ["--port", "0"]),
        (("webhooks", "sign"), ["--secret-env", "GC_NC_UNSET", "--timestamp", "1", body]),
        (("webhooks", "sign"), ["--secret-env", "GC_NC_WH", "--timestamp", "1", "/nonexistent"]),
        (
            ("webhooks", "verify"),
            [
                "--secret-env",
                "GC_NC_WH",
                "--timestamp",
                "1700000000",
                "--signature",
                "0" * 64,
                body,
            ],
        ),
        (
            ("sso", "issue"),
            ["--secret-env", "GC_NC_UNSET", "--id", "1", "--username", "a", "--email", "a@b.co"],
        ),
        (
            ("sso", "issue"),
            ["--secret-env", "GC_NC_SHORT", "--id", "1", "--username", "a", "--email", "a@b.co"],
        ),
        (
            ("sso", "issue"),
            [
                "--secret-env",
                "GC_NC_SSO",
                "--id",
                "1",
                "--username",
                "a",
                "--email",
                "a@b.co",
                "--picture",
                "x",
            ],
        ),
        (("sso", "verify"), ["--secret-env", "GC_NC_SSO", "abc def 1700000000123"]),
        (("sso", "verify"), ["--secret-env", "GC_NC_SSO", "not a token"]),
        (("emulator",), ["--data-dir", data, "--port", "70000"]),
        (("emulator",), ["--data-dir", data, "--retry-schedule", "60,0"]),
        (("emulator",), ["--data-dir", data, "--attempt-timeout", "0"]),
        (("emulator",), ["--data-dir", data, "--front-url", "widget.example"]),
        (("emulator",), ["--data-dir", data, "--sites", str(sites_dir)]),
        (("emulator",), ["--data-dir", data, "--sites", str(bad_toml)]),
        (("emulator",), ["--data-dir", data, "--sites", str(tmp / "missing.toml")]),
        (("emulator", "ready"), ["--url", "widget.example"]),
        (("emulator", "ready"), ["--url", "http://127.0.0.1:9", "--timeout", "0.3"]),
        (("emulator", "ready"), ["--timeout", "0"]),
    ]


def test_every_error_names_only_existing_options(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.delenv("GC_NC_UNSET", raising=False)
    monkeypatch.setenv("GC_NC_WH", "whsec_newcomer")
    monkeypatch.setenv("GC_NC_SSO", "a-secret-of-24-bytes-xyz")
    monkeypatch.setenv("GC_NC_SHORT", "abc")
    for path, args in error_cases(tmp_path):
        code = main([*path, *args])
        out, err = capsys.readouterr()
        assert code != 0, (path, args, out)
        assert err.strip(), (path, args)
        assert "Traceback" not in err
        assert_options_exist(err, path, f"gcbridge {' '.join(path)} {' '.join(args)}")


def test_the_secret_hint_of_sign_and_verify_names_no_secret_option(
    tmp_path, monkeypatch, capsys
) -> None:
    # the case: sign/verify suggested --secret, which neither accepts
    body = _body(tmp_path)
    assert main(["webhooks", "sign", "--timestamp", "1", body]) == 1
    err = capsys.readouterr().err
    assert "--secret-env VAR" in err and "--secret " not in err and "--secret S" not in err
    assert main(["webhooks", "listen", "--port", "0"]) == 1
    assert "--secret S" in capsys.readouterr().err  # listen has it (development only)


def test_argparse_usage_errors_name_existing_options(capsys) -> None:
    for path in [p for p in PARSERS if p]:
        with pytest.raises(SystemExit) as info:
            main([*path, "--no-such-option"])
        # every command, `harness run` included, answers usage errors with 2
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert_options_exist(err.replace("--no-such-option", ""), path, " ".join(path))


def test_option_literals_of_the_cli_sources_exist() -> None:
    """Every '--option' in a string of a command's source belongs to that command."""
    sources = {
        ("webhooks",): ["src/gcbridge/cli/webhooks_cmd.py"],
        ("sso",): ["src/gcbridge/cli/sso_cmd.py"],
        ("emulator",): [
            "src/gcbridge/cli/emulator_cmd.py",
            "src/gcbridge/cli/emulator_ready.py",
            "src/gcbridge/emulator/settings.py",
            "src/gcbridge/emulator/sites.py",
        ],
        ("demo",): ["src/gcbridge/cli/demo_cmd.py", "src/gcbridge/demo/runner.py"],
        ("bridge",): ["src/gcbridge/cli/bridge_cmd.py"],
    }
    for path, files in sources.items():
        allowed = set()
        for other in PARSERS:
            if other[:1] == path:
                allowed |= options_of(other)
        for name in files:
            tree = ast.parse((ROOT / name).read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    text = node.value
                    if text.startswith("--") and " " not in text and "=" not in text:
                        continue  # an option's own declaration
                    unknown = set(OPTION.findall(text)) - allowed
                    unknown -= {"--no-sandbox"}  # a Chromium flag, not ours
                    for named in named_commands(text):
                        unknown -= options_of(named)
                    assert not unknown, f"{name}: {text!r} names {sorted(unknown)}"


def test_every_gcbridge_line_of_the_readme_uses_existing_options() -> None:
    checked = 0
    for line in readme().splitlines():
        # up to three words, hyphenated ones too: gcbridge webhooks delivery-log init
        for match in re.finditer(
            r"gcbridge ([a-z][a-z-]*(?: [a-z][a-z-]*){0,2})([^`|&;#\n]*)", line
        ):
            named = named_commands("gcbridge " + match.group(1))
            if not named:
                continue
            path = max(named, key=len)
            unknown = set(OPTION.findall(match.group(2))) - options_of(path)
            assert not unknown, f"README: {line!r} names {sorted(unknown)}"
            checked += 1
    assert checked >= 10
