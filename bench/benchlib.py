"""Shared helpers of the benchmark rows: timing, medians, percentiles, machine info, results.

Every row module exposes ``run(quick: bool) -> Row``. A :class:`Row` holds
measurements; each measurement compares our figure with its baseline figure
(same unit, higher-is-better or lower-is-better) and optionally a goal on the
ratio or on the absolute value. Benchmarks report; they never fail on timing.
"""

from __future__ import annotations

import gc
import importlib.metadata
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "BENCH_DIR",
    "REPO",
    "Measure",
    "Row",
    "Skipped",
    "machine_info",
    "median_rate",
    "percentile",
    "rss_kib",
    "time_rounds",
]

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent


class Skipped(Exception):
    """A row (or part of one) cannot run here; the message says why and how to enable it."""


@dataclass
class Measure:
    """One line of the results table: ours against a baseline, with an optional goal."""

    name: str
    unit: str
    ours: float | None
    baseline: float | None = None
    baseline_name: str = ""
    higher_is_better: bool = True
    goal: str = ""  # human text, e.g. ">= 0.8x"
    goal_ratio: float | None = None  # ratio (ours/baseline as "better" factor) to reach
    goal_value: float | None = None  # absolute bound on ours (max if lower is better)
    rounds: int = 0
    note: str = ""

    @property
    def ratio(self) -> float | None:
        """How many times better ours is than the baseline (> 1: ours is better)."""
        if self.ours is None or self.baseline is None or not self.ours or not self.baseline:
            return None
        return self.ours / self.baseline if self.higher_is_better else self.baseline / self.ours

    @property
    def met(self) -> bool | None:
        """Whether the goal holds (``None`` without a goal or a figure)."""
        if self.goal_ratio is not None:
            return None if self.ratio is None else self.ratio >= self.goal_ratio
        if self.goal_value is not None:
            if self.ours is None:
                return None
            return (
                self.ours >= self.goal_value
                if self.higher_is_better
                else self.ours <= self.goal_value
            )
        return None

    def to_json(self) -> dict[str, Any]:
        """The measure with its derived ratio and verdict."""
        data = asdict(self)
        data["ratio"] = self.ratio
        data["met"] = self.met
        # 3 significant digits: what a run on a shared machine supports (the verdict
        # above was taken on the full figures).
        for key in ("ours", "baseline", "ratio"):
            if isinstance(data[key], float):
                data[key] = float(f"{data[key]:.3g}")
        return data


@dataclass
class Row:
    """One row of bench/results.md: its measures against their baselines and goals, and notes."""

    number: int
    title: str
    measures: list[Measure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    skipped: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The row as plain data."""
        return {
            "number": self.number,
            "title": self.title,
            "measures": [m.to_json() for m in self.measures],
            "notes": self.notes,
            "extra": self.extra,
            "seconds": round(self.seconds, 2),
            "skipped": self.skipped,
        }


def time_rounds(fn: Callable[[], Any], *, rounds: int, warmup: int = 1) -> list[float]:
    """Wall seconds of ``rounds`` calls of ``fn`` after ``warmup`` calls (GC off while timing)."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(rounds):
        gc.collect()
        gc.disable()
        try:
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
        finally:
            gc.enable()
    return out


def median_rate(fns: dict[str, Callable[[], Any]], ops: int, *, rounds: int) -> dict[str, float]:
    """Operations per second (median over rounds) of each function; rounds interleave them.

    Interleaving (a, b, c, a, b, c, ...) spreads frequency scaling and noisy
    neighbours over all contenders instead of penalising whichever runs last.
    """
    times: dict[str, list[float]] = {name: [] for name in fns}
    for fn in fns.values():
        fn()  # warm-up
    for _ in range(rounds):
        for name, fn in fns.items():
            times[name].extend(time_rounds(fn, rounds=1, warmup=0))
    return {name: ops / statistics.median(ts) for name, ts in times.items()}


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; NaN for no values."""
    if not values:
        return float("nan")
    data = sorted(values)
    k = (len(data) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (k - lo)


def rss_kib(pid: int | None = None) -> int:
    """Resident set size of a process in KiB (Linux /proc)."""
    path = f"/proc/{pid or os.getpid()}/status"
    with open(path, encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def _chromium_version() -> str:
    try:
        from gcbridge.browser import find_chromium

        path = find_chromium(None)
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20)
        return out.stdout.strip() or "-"
    except Exception:  # noqa: BLE001 (information only)
        return "-"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "-"


def machine_info() -> dict[str, Any]:
    """Cores, CPU, OS, Python and the versions of every package a row measures."""
    dists = [
        "gc-bridge",
        "fastapi",
        "starlette",
        "uvicorn",
        "httpx",
        "pydantic",
        "itsdangerous",
        "pyjwt",
        "standardwebhooks",
        "playwright",
        "pytest",
    ]
    import sqlite3

    return {
        "cores": os.cpu_count(),
        # Other work on the machine skews every figure: recorded so a reader can judge.
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        "cpu": _cpu_model(),
        "os": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "sqlite": sqlite3.sqlite_version,
        "chromium": _chromium_version(),
        "packages": {d: _version(d) for d in dists},
        "argv": " ".join(sys.argv),
    }
