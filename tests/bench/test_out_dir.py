"""The bench writes to --out (default bench/out/, ignored by git); only
``make bench-publish`` rewrites the committed results; figures have 3 significant digits and
units; a missing extra is one line."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.as_user import BLOCKER, ROOT, user_env

BENCH = ROOT / "bench"


def bench(*args: str, hidden: str = "") -> subprocess.CompletedProcess[str]:
    if hidden:
        code = (
            BLOCKER
            + "\nimport runpy; sys.argv = sys.argv[1:]\n"
            + "runpy.run_path(sys.argv[0], run_name='__main__')\n"
        )
        argv = [sys.executable, "-c", code, hidden, "bench/run.py", *args]
    else:
        argv = [sys.executable, "bench/run.py", *args]
    return subprocess.run(
        argv, cwd=ROOT, env=user_env(), capture_output=True, text=True, timeout=600
    )


# a figure cell of results.md: "13.9k ops/s", "5.40 ms", "0.0112 ms", "0.436x"
FIGURE = re.compile(r"^(?:\d+(?:\.\d+)?[kMG]?|-)(?: \S.*)?$")


def significant_digits(cell: str) -> int:
    number = re.match(r"[\d.]+", cell)
    assert number, cell
    digits = number.group(0).replace(".", "").lstrip("0")
    return len(digits)


@pytest.mark.slow
def test_a_partial_run_on_defaults_leaves_the_committed_results_alone() -> None:
    committed = {name: (BENCH / name).read_bytes() for name in ("results.md", "results.json")}
    run = bench("--rows", "1", "--quick")
    assert run.returncode == 0, run.stdout + run.stderr
    assert {name: (BENCH / name).read_bytes() for name in committed} == committed
    out = BENCH / "out"
    assert f"wrote {out / 'results.md'}" in run.stdout
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "bench/out/results.md"], cwd=ROOT, check=False
    )
    assert ignored.returncode == 0, "bench/out/ must be ignored by git"

    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert [row["number"] for row in data["rows"]] == [1] and data["quick"] is True
    for measure in data["rows"][0]["measures"]:
        for key in ("ours", "baseline", "ratio"):
            value = measure[key]
            if value is not None:
                assert value == float(f"{value:.3g}"), (key, value)

    table = [
        line.split("|")[1:-1]
        for line in (out / "results.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| ") and not line.startswith("| measure")
    ]
    assert table
    for name, ours, baseline, ratio, *_ in table:
        ours, ratio = ours.strip(), ratio.strip()
        assert re.fullmatch(r"\d+(\.\d+)?[kMG]? ops/s", ours), ours  # a unit on every figure
        assert significant_digits(ours) == 3, ours
        assert re.fullmatch(r"\d+(\.\d+)?x", ratio) and significant_digits(ratio) == 3, ratio
        assert " ops/s (" in baseline, baseline
    # the console says the same, formatted
    assert re.search(r"ours \d+(\.\d+)?k? ops/s, baseline \d+(\.\d+)?k? ops/s", run.stdout)


def test_publish_refuses_a_partial_run() -> None:
    committed = (BENCH / "results.md").read_bytes()
    for args in (["--publish", "--rows", "1"], ["--publish", "--quick"]):
        run = bench(*args)
        assert run.returncode == 2
        assert "--publish rewrites the committed results: a full run only" in run.stderr
    assert (BENCH / "results.md").read_bytes() == committed
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(
        r"^bench-publish:.*\n(?:\t.*\n)*\t\$\(PY\) bench/run.py --publish$", makefile, re.M
    )


@pytest.mark.parametrize(("hidden", "extra"), [("jwt", "bench"), ("standardwebhooks", "bench")])
def test_a_missing_extra_is_one_line(hidden: str, extra: str) -> None:
    run = bench("--rows", "1,2", "--quick", hidden=hidden)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert f"need the [{extra}] extra (not installed: {hidden})" in run.stderr
    assert "-m pip install" in run.stderr


def test_figures_are_three_significant_digits_with_units() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from report import figure, ratio_text
    finally:
        sys.path.remove(str(BENCH))
    assert figure(13934.216003273274, "ops/s") == "13.9k ops/s"
    assert figure(176021.0, "verifies/s") == "176k verifies/s"
    assert figure(5.4, "ms") == "5.40 ms"
    assert figure(0.0112, "ms") == "0.0112 ms"
    assert figure(262.4, "ms") == "262 ms"
    assert figure(999.6, "ms") == "1.00k ms"
    assert figure(None, "ms") == "-"
    assert ratio_text(0.4364365446390986) == "0.436x"
    assert ratio_text(2.157) == "2.16x"
