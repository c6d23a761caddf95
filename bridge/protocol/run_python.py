"""Run app-protocol.json against the Python coordinator (the reference) and report each case.

    python bridge/protocol/run_python.py [--coordinator path/to/coordinator.py] [--table path]

Prints one line per failed case and a last line ``python: N/M cases passed``; exit status 1
when any case fails. Standard library only: the coordinator is loaded from its file, so a
copy (the mutation tests' one) runs the same way as the harness's own.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "bridge" / "protocol" / "app-protocol.json"
COORDINATOR = ROOT / "harness" / "gcbridge_harness" / "coordinator.py"


def load_table(path: Path = TABLE) -> dict[str, Any]:
    table: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return table


def load_coordinator_class(path: Path = COORDINATOR) -> Any:
    spec = importlib.util.spec_from_file_location(f"gc_coordinator_{abs(hash(path))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SsoCoordinator


def message_data(step_in: dict[str, Any]) -> str:
    """The forwarded string of a ``message`` input: ``data`` plus ``pad`` JSON spaces."""
    return str(step_in["data"]) + " " * int(step_in.get("pad", 0))


def apply(coordinator: Any, step_in: dict[str, Any]) -> list[dict[str, Any]]:
    kind = step_in["in"]
    if kind == "message":
        effects = coordinator.message(
            message_data(step_in), from_widget=step_in.get("from_widget", True)
        )
    elif kind == "page-finished":
        effects = coordinator.page_finished()
    elif kind == "app-login":
        effects = coordinator.app_login(step_in["user"])
    elif kind == "app-logout":
        effects = coordinator.app_logout()
    elif kind == "fetch-result":
        effects = coordinator.fetch_result(
            step_in["fetch"], step_in.get("ssoData"), step_in.get("error")
        )
    elif kind == "conflict-result":
        effects = coordinator.conflict_result(
            step_in["conflict"], step_in.get("ssoData"), step_in.get("error")
        )
    elif kind == "relaunch":
        effects = coordinator.relaunch()
    elif kind == "page-started":
        effects = coordinator.page_started()
    elif kind == "restored":
        effects = coordinator.restored()
    elif kind == "content-terminated":
        effects = coordinator.content_terminated()
    elif kind == "resume":
        effects = coordinator.resume(step_in["seconds"])
    else:
        raise ValueError(f"unknown input {kind!r}")
    # notify also hands the glue the parsed event; the table compares the rest.
    return [{k: v for k, v in effect.items() if k != "event"} for effect in effects]


def run_case(cls: Any, table: dict[str, Any], case: dict[str, Any]) -> str | None:
    """None when every step gives exactly the table's effects, else what went wrong."""
    setup = {**table["defaults"], **case["setup"]}
    views: dict[str, Any] = {}  # one coordinator per WebView ("view", default "a")
    for index, step in enumerate(case["steps"], start=1):
        view = step.get("view", "a")
        if view not in views:
            views[view] = cls(
                user=setup["user"],
                sso=setup["sso"],
                triggers=frozenset(setup["triggers"]),
                keep_widget_session=setup["keep_widget_session"],
            )
        try:
            got = apply(views[view], step["in"])
        except Exception as exc:  # noqa: BLE001 - a crash is a failed case, reported
            return f"step {index}: raised {type(exc).__name__}: {exc}"
        if got != step["out"]:
            on = f" (view {view})" if "view" in step else ""
            where = f"step {index}{on} {json.dumps(step['in'])[:120]}"
            return f"{where}\n  expected {step['out']}\n  got      {got}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coordinator", type=Path, default=COORDINATOR)
    parser.add_argument("--table", type=Path, default=TABLE)
    args = parser.parse_args(argv)
    table = load_table(args.table)
    cls = load_coordinator_class(args.coordinator)
    passed = 0
    for case in table["cases"]:
        problem = run_case(cls, table, case)
        if problem is None:
            passed += 1
        else:
            print(f"FAIL {case['name']}: {problem}")
    print(f"python: {passed}/{len(table['cases'])} cases passed")
    return 0 if passed == len(table["cases"]) else 1


if __name__ == "__main__":
    sys.exit(main())
