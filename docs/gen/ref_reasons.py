"""The reason codes page, read from the source at build time.

Every gc-bridge error carries a string ``reason``. This walks the syntax trees of
``src/gcbridge`` and ``harness/gcbridge_harness`` (nothing is imported, so parts
whose extra is missing are read too) and collects: the exception classes under
``GcBridgeError`` with their default reason; every literal given as a reason where
an error is raised (``reason="..."``, ``ApiError(status, "...")``, an emulator
answer built as ``{"gcCode": ..., "error": "..."}``, the harness
command's ``_fail("...")``, site-auth's ``_refused("...")``); and the published
sets of reasons (``*_REASONS``). A new reason in the code appears here on the next
build.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Reason", "collect", "reasons_reference"]

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (ROOT / "src" / "gcbridge", ROOT / "harness" / "gcbridge_harness")
# helpers whose first argument is a reason code
REASON_FIRST = {"_refused", "_fail"}
PARTS = {
    "gcbridge.sso": "sso",
    "gcbridge.webhooks": "webhooks",
    "gcbridge.emulator": "emulator",
    "gcbridge.cli": "cli",
    "gcbridge.demo": "demo",
    "gcbridge_harness": "harness",
}
INTRO = """\
# Reason codes

Every error of gc-bridge has a machine-readable `reason`: the Python exceptions carry it
as `exc.reason`, the command line prints it as `gcbridge: error [reason]: ...`, the
emulator answers it as `"error"` in `{"gcCode", "error", "message"}`, and the webhook
receiver answers it as `{"error": reason}`. Branch on the reason, never on the message.

This page is read from the source each time the site is built: the exception classes
and every reason given where an error is raised, each with what it means and how to fix
it (from `gcbridge.reasons`, where both are written once).

"""


@dataclass
class Reason:
    """One reason code and where it comes from."""

    code: str
    sources: set[tuple[str, str]] = field(default_factory=set)
    """(module, what raises it: an exception class, ``HTTP <status>``, a helper)"""

    @property
    def modules(self) -> set[str]:
        """The modules that raise or declare it."""
        return {module for module, _ in self.sources}


@dataclass
class ErrorClass:
    """An exception class of the source."""

    name: str
    module: str
    bases: list[str]
    reason: str | None
    doc: str


def _module_name(path: Path) -> str:
    for package in PACKAGES:
        if path.is_relative_to(package):
            rel = path.relative_to(package.parent).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            return ".".join(parts)
    return path.stem


def _part(module: str) -> str:
    for prefix, part in PARTS.items():
        if module == prefix or module.startswith(prefix + "."):
            return part
    return "core"


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _literal(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _scan(path: Path, reasons: dict[str, Reason], classes: dict[str, ErrorClass]) -> None:
    module = _module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    def add(code: str | None, raised_as: str) -> None:
        if code and code.replace("_", "").isalnum() and code.islower():
            reasons.setdefault(code, Reason(code)).sources.add((module, raised_as))

    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            reason = None
            for stmt in node.body:
                if isinstance(stmt, ast.Assign | ast.AnnAssign):
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    if any(_name(t) == "reason" for t in targets):
                        reason = _literal(stmt.value)
            doc = (ast.get_docstring(node) or "").strip().split("\n")[0].replace("``", "`")
            classes[node.name] = ErrorClass(
                node.name, module, [_name(b) for b in node.bases], reason, doc
            )
        elif isinstance(node, ast.Call):
            callee = _name(node.func)
            for kw in node.keywords:
                if kw.arg in ("reason", "invalid_reason"):
                    add(_literal(kw.value), callee)
            if callee == "ApiError" and len(node.args) >= 2:
                status = node.args[0]
                shown = f" {status.value}" if isinstance(status, ast.Constant) else ""
                add(_literal(node.args[1]), f"HTTP{shown}")
            if callee in REASON_FIRST and node.args:
                add(_literal(node.args[0]), callee)
        elif isinstance(node, ast.Dict) and module.startswith("gcbridge.emulator"):
            # an error answer built by hand: {"gcCode": ..., "error": "<reason>", ...}
            keys = [_literal(k) if k is not None else None for k in node.keys]
            if "gcCode" in keys and "error" in keys:
                add(_literal(node.values[keys.index("error")]), "HTTP")
        elif isinstance(node, ast.Assign):
            names = [_name(t) for t in node.targets]
            if any(n.endswith("_REASONS") for n in names) and isinstance(node.value, ast.Call):
                for arg in node.value.args:
                    if isinstance(arg, ast.Set | ast.List | ast.Tuple):
                        for elt in arg.elts:
                            add(_literal(elt), names[0])


def collect() -> tuple[dict[str, Reason], dict[str, ErrorClass]]:
    """Every reason code and every exception class of the source."""
    reasons: dict[str, Reason] = {}
    classes: dict[str, ErrorClass] = {}
    for package in PACKAGES:
        for path in sorted(package.rglob("*.py")):
            _scan(path, reasons, classes)
    errors = {"GcBridgeError"}
    changed = True
    while changed:
        changed = False
        for cls in classes.values():
            if cls.name not in errors and any(b in errors for b in cls.bases):
                errors.add(cls.name)
                changed = True
    for cls in classes.values():
        if cls.name in errors and cls.reason:
            reasons.setdefault(cls.reason, Reason(cls.reason)).sources.add((cls.module, cls.name))
    return reasons, {n: c for n, c in classes.items() if n in errors}


def _tree(classes: dict[str, ErrorClass], parent: str, depth: int) -> list[str]:
    lines = []
    for cls in sorted(classes.values(), key=lambda c: (c.module, c.name)):
        if parent in cls.bases:
            reason = f" (default reason `{cls.reason}`)" if cls.reason else ""
            doc = f": {cls.doc}" if cls.doc else ""
            lines.append(f"{'    ' * depth}- `{cls.module}.{cls.name}`{reason}{doc}")
            lines.extend(_tree(classes, cls.name, depth + 1))
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def reasons_reference() -> str:
    """The Markdown of the reason codes page (meaning and fix from ``gcbridge.reasons``)."""
    from gcbridge.reasons import REASONS

    reasons, classes = collect()
    out = [INTRO, "## By part\n"]
    by_part: dict[str, list[Reason]] = {}
    for reason in reasons.values():
        for part in sorted({_part(m) for m in reason.modules}):
            by_part.setdefault(part, []).append(reason)
    order = ["sso", "webhooks", "emulator", "cli", "demo", "harness", "core"]
    for part in order:
        if part not in by_part:
            continue
        out.append(
            f"### {part}\n\n| reason | meaning | fix | raised as | where |\n|---|---|---|---|---|"
        )
        for reason in sorted(by_part[part], key=lambda r: r.code):
            here = {(m, r) for m, r in reason.sources if _part(m) == part}
            raised = ", ".join(f"`{r}`" for r in sorted({r for _, r in here}))
            mods = ", ".join(f"`{m}`" for m in sorted({m for m, _ in here}))
            meaning, fix = REASONS.get(reason.code, ("", ""))
            out.append(f"| `{reason.code}` | {_cell(meaning)} | {_cell(fix)} | {raised} | {mods} |")
        out.append("")
    out.append("## The exception classes\n")
    out.append("Every class below is a `gcbridge.errors.GcBridgeError`.\n")
    out.extend(_tree(classes, "GcBridgeError", 0))
    out.append("")
    return "\n".join(out) + "\n"
