"""``make test`` runs ``-n auto --dist loadgroup``: every ``xdist_group`` on one worker.

The tests on default ports (``defaults``) and the wheel installs (``wheel``) rely
on it. pytest 9.2 with pytest-xdist 3.8 split every group silently (pytest keeps a
node's id where xdist cannot tag it with its group); this is the check that a
version bump does not do that again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _only_xdist(monkeypatch: pytest.MonkeyPatch) -> None:
    # The runs below load xdist alone: the installed plugins (Playwright, the harness)
    # would triple their start-up.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "xdist", *args)


def _workers(result: pytest.RunResult, name: str) -> set[str]:
    """The workers (``gw0``...) that ran the tests whose id holds ``name`` (``-v`` output)."""
    return {
        line.split("]")[0].strip("[")
        for line in result.outlines
        if "PASSED" in line and name in line
    }


def test_each_group_runs_on_one_worker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_grouped="""
        import pytest

        @pytest.mark.xdist_group("fixed-port")
        @pytest.mark.parametrize("i", range(6))
        def test_grouped(i):
            pass

        @pytest.mark.parametrize("i", range(6))
        def test_free(i):
            pass
        """
    )
    result = _run(pytester, "-n", "3", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=12)
    assert len(_workers(result, "test_grouped[")) == 1, result.stdout.str()


def test_the_suites_own_groups_reach_xdist(pytester: pytest.Pytester) -> None:
    # tests/conftest.py adds the groups at collection (default ports, fixtures built
    # once): its hook must run before xdist's worker tags the ids, or they are split.
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text(encoding="utf-8"))
    pytester.makeini("[pytest]\nmarkers =\n    defaults: default ports\n    wheel: wheel\n")
    pytester.makepyfile(
        test_ports="""
        import pytest

        @pytest.fixture(scope="module")
        def site():
            return "built"

        @pytest.mark.defaults
        @pytest.mark.parametrize("i", range(4))
        def test_on_port_8000(i):
            pass

        @pytest.mark.parametrize("i", range(4))
        def test_of_the_site(i, site):
            pass

        @pytest.mark.parametrize("i", range(4))
        def test_free(i):
            pass
        """
    )
    result = _run(pytester, "-n", "3", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=12)
    for name in ("test_on_port_8000[", "test_of_the_site["):
        assert len(_workers(result, name)) == 1, result.stdout.str()


def test_a_browser_test_in_a_group_is_refused(pytester: pytest.Pytester) -> None:
    # pytest-playwright leaves an event loop running from the first browser test on, so
    # browser tests run last; loadgroup sends groups first, so none may hold one.
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text(encoding="utf-8"))
    pytester.makeini(
        "[pytest]\nmarkers =\n    defaults: default ports\n    wheel: wheel\n    browser: browser\n"
    )
    pytester.makepyfile(
        test_mixed="""
        import pytest

        @pytest.mark.defaults
        def test_defaults_plain():
            pass

        @pytest.mark.defaults
        @pytest.mark.browser
        def test_defaults_in_a_browser():
            pass
        """
    )
    result = _run(pytester, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "test_defaults_in_a_browser: a test with a browser in this process is in xdist group"
        in (result.stderr.str())
    ), result.stderr.str()
