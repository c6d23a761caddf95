"""The harness fails loudly and names its runs the same wherever the bridge is.

Run as an app team runs it: ``pytest --pyargs gcbridge_harness.scenarios ...`` from a
directory of their own; in a subprocess where a browser starts, in this process
where none does (a usage error, a collection): the same plugins load either way.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from gcbridge_harness.engines import ENGINES, engine_status

from gcbridge.bridge import script

pytest_plugins = ["pytester"]


HARNESS = ("--pyargs", "gcbridge_harness.scenarios", "-p", "no:cacheprovider")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """A run that starts a browser: in a process of its own."""
    return pytester.runpytest_subprocess(*HARNESS, *args, timeout=240)


def _run_here(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """A run that starts no browser (it stops at a usage error, or only collects)."""
    return pytester.runpytest_inprocess(*HARNESS, *args)


def _one_line_error(result: pytest.RunResult) -> str:
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1, result.errlines
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    return errors[0]


@pytest.mark.parametrize("form", ["space", "equals"])
def test_missing_bridge_file_is_one_usage_error(pytester: pytest.Pytester, form: str) -> None:
    args = ["--gc-bridge", "nosuch/bridge.js"] if form == "space" else ["--gc-bridge=nosuch.js"]
    result = _run_here(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert ": no such file" in _one_line_error(result)


def test_bridge_directory_is_one_usage_error(pytester: pytest.Pytester) -> None:
    pytester.mkdir("bridge-dir")
    result = _run_here(pytester, "--gc-bridge=bridge-dir")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "a directory, not bridge.js" in _one_line_error(result)


@pytest.mark.parametrize("how", ["env", "option"])
def test_browser_asked_for_and_missing_fails_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "env":
        monkeypatch.setenv("GC_BROWSER", "nosuch")
        result = _run_here(pytester)
    else:
        result = _run_here(pytester, "--gc-browser", "/nonexistent/chrome")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    line = _one_line_error(result)
    assert "chromium" in line and "is not an executable file" in line
    assert "install:" in line
    assert "skipped" not in result.stdout.str()


@pytest.mark.browser
def test_zero_executed_scenarios_is_never_success(pytester: pytest.Pytester) -> None:
    # Something in the app team's set-up skips every scenario (here: a plugin of theirs).
    pytester.makepyfile(
        skip_everything="""
        import pytest

        @pytest.hookimpl(tryfirst=True)
        def pytest_runtest_setup(item):
            pytest.skip("no display in this CI job")
        """
    )
    result = _run(pytester, "-p", "skip_everything", "-k", "login_on_ready")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # login_on_ready at four injection points in each engine found here.
    runs = 4 * sum(engine_status(name).found for name in ENGINES)
    result.stdout.fnmatch_lines([f"*none of the {runs} scenarios ran (all skipped)*"])


def test_ids_do_not_depend_on_where_the_bridge_lives(pytester: pytest.Pytester) -> None:
    near = pytester.mkdir("app") / "bridge.js"
    far = pytester.mkdir("deep") / "ios" / "Resources" / "bridge.js"
    far.parent.mkdir(parents=True)
    for path in (near, far):
        path.write_text(script().text, encoding="utf-8")

    listings = []
    for args in (
        [],
        ["--gc-bridge", str(near)],
        ["--gc-bridge", "deep/ios/Resources/bridge.js"],
        [f"--gc-bridge={far}"],
    ):
        result = _run_here(pytester, "--collect-only", "-q", *args)
        assert result.ret == 0, result.stdout.str()
        listings.append([line for line in result.outlines if "::" in line])

    assert all(listing == listings[0] for listing in listings)
    assert len(listings[0]) >= 50
    for nodeid in listings[0]:
        assert nodeid.startswith("gcbridge_harness/scenarios/test_"), nodeid


def test_k_with_an_engine_name_selects_only_that_engines_runs(pytester: pytest.Pytester) -> None:
    # -k matches every keyword of a run: its test's name, its module, each parameter. An
    # engine's name anywhere but in the engine parameter selects another engine's runs.
    items, _ = pytester.inline_genitems(*HARNESS)
    assert len(items) >= 50
    for item in items:
        params = getattr(item, "callspec", None)
        others = [
            str(value)
            for key, value in (params.params if params else {}).items()
            if key != "engine"
        ]
        names = [getattr(item, "originalname", item.name), item.module.__name__, *others]
        for engine in ENGINES:
            assert not [n for n in names if engine in n.lower()], (engine, item.nodeid)
    present = {item.callspec.params["engine"] for item in items}  # the engines found here
    for engine in present:
        collected, recorder = pytester.inline_genitems(*HARNESS, "-k", engine)
        dropped = {
            item.nodeid for call in recorder.getcalls("pytest_deselected") for item in call.items
        }
        selected = [item for item in collected if item.nodeid not in dropped]
        assert selected and len(selected) < len(collected)
        assert {item.callspec.params["engine"] for item in selected} == {engine}


@pytest.mark.browser
def test_browser_that_cannot_launch_stops_the_run_with_one_line(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "--gc-browser=/bin/false", "-k", "login_on_ready")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*Interrupted: chromium cannot launch (*); install: *"])
    assert "1 error" in result.stdout.str()  # the first scenario only, not the whole matrix


def test_cli_usage_errors_exit_2_like_every_gcbridge_command(tmp_path, capsys) -> None:
    from gcbridge.cli import main

    with pytest.raises(SystemExit) as missing_option:
        main(["harness", "run"])
    assert missing_option.value.code == 2
    assert "--bridge" in capsys.readouterr().err
    with pytest.raises(SystemExit) as bad_engine:
        main(["harness", "run", "--bridge", "b.js", "--engine", "gecko"])
    assert bad_engine.value.code == 2

    assert main(["harness", "run", "--bridge", str(tmp_path / "nosuch.js")]) == 2
    assert capsys.readouterr().err.strip().endswith("nosuch.js: no such file")
    assert main(["harness", "run", "--bridge", str(tmp_path)]) == 2
    assert "a directory, not bridge.js" in capsys.readouterr().err


def test_cli_help_names_every_option(capsys) -> None:
    from gcbridge.cli import main

    with pytest.raises(SystemExit) as done:
        main(["harness", "run", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for option in (
        "--bridge",
        "--engine",
        "--report",
        "-k",
        "-n",
        "--browser",
        "--junitxml",
        "--wait",
    ):
        assert option in out


def test_cli_wait_reaches_the_scenarios(tmp_path) -> None:
    import argparse

    from gcbridge.cli.harness_cmd import _pytest_args

    args = argparse.Namespace(
        engine=None,
        report=None,
        keyword=None,
        workers=None,
        browser=None,
        junitxml=None,
        wait=2.5,
    )
    pytest_args = _pytest_args(args, tmp_path / "bridge.js", tmp_path / "pytest.ini")
    assert isinstance(pytest_args, list) and "--gc-wait=2.5" in pytest_args


@pytest.mark.parametrize("value", ["0", "-3", "soon", "601"])
def test_gc_wait_out_of_range_is_one_usage_error(pytester: pytest.Pytester, value: str) -> None:
    result = _run_here(pytester, f"--gc-wait={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    # pytest's own usage message, naming the option and the range
    assert f"argument --gc-wait: '{value}': seconds between 0 and 600" in result.stderr.str()


def test_gc_wait_bounds_how_long_a_scenario_waits(pytester: pytest.Pytester) -> None:
    # A bridge that forwards nothing: the scenario's wait for the signed-in widget runs
    # out after the time asked for (an app team's slow device: --gc-wait 30), as its
    # failure says.
    (pytester.path / "mute.js").write_text("window.gcBridge = {version: '0.0.0'};\n")
    result = _run(
        pytester,
        "--gc-bridge=mute.js",
        "--gc-wait=1.5",
        "--gc-engine=chromium",
        "-k",
        "login_on_ready and document-end",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    assert "with timeout 1500ms" in result.stdout.str()


def _messages(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """The text of every skip, failure and raised error (what a user reads in a run)."""
    said = {"skip", "fail", "xfail", "skipif", "exit", "UsageError"}
    for node in ast.walk(tree):
        call = node.exc if isinstance(node, ast.Raise) else node
        if not isinstance(call, ast.Call):
            continue
        name = call.func.attr if isinstance(call.func, ast.Attribute) else None
        if not (isinstance(node, ast.Raise) or name in said):
            continue
        for part in ast.walk(call):
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                yield part.lineno, part.value


def test_messages_cite_no_file_a_wheel_user_lacks() -> None:
    # The repository's READMEs are not in the wheel: a reason points to the documentation.
    import gcbridge_harness

    import gcbridge

    cited = [
        f"{path}:{line}: {text!r}"
        for package in (gcbridge_harness, gcbridge)
        for path in Path(package.__file__).parent.rglob("*.py")
        for line, text in _messages(ast.parse(path.read_text("utf-8")))
        if "README.md" in text
    ]
    assert cited == []
