"""SARIF 2.1.0 output of a ``LintResult``, for GitHub code scanning and other SARIF viewers.

One run, tool ``jitscope`` with every rule in ``tool.driver.rules`` (id, name, short and
full description, the rule's whole documentation as help markdown, default level), one
result per finding with its physical location (1-based lines and columns, end column
exclusive, as SARIF wants) and, when a finding has an edit, a SARIF ``fix``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .._version import __version__
from ..model import Finding
from ..results.lint import LintResult

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _rule_entry(rule: Any) -> dict[str, Any]:
    sections = rule.sections()
    full = sections.get("Why is this bad?", rule.summary())
    return {
        "id": rule.code,
        "name": "".join(w.capitalize() for w in rule.name.split("-")),
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": " ".join(full.split())},
        "help": {"text": sections.get("What it does", rule.summary()), "markdown": rule_markdown(rule)},
        "defaultConfiguration": {"level": _LEVEL.get(rule.severity, "warning")},
        "properties": {"tags": ["jax", "jit", rule.name], "fix": rule.fix or "none"},
    }


def rule_markdown(rule: Any) -> str:
    """Markdown of one rule's docs (the same text as its section of docs/rules.md)."""
    from ..lint.registry import SECTIONS

    sections = rule.sections()
    out = [f"{rule.summary()}"]
    for title in SECTIONS:
        if title in sections:
            out.append(f"### {title}\n\n{sections[title]}")
    return "\n\n".join(out)


def _abspath(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.abspath(path))  # absolute, symlinks kept as written (no resolve())


def _artifact(path: str, root: Path) -> dict[str, str]:
    """``artifactLocation`` of ``path``: relative to ``%SRCROOT%`` when under ``root``, else an absolute URI."""
    p = _abspath(path)
    try:
        return {"uri": p.relative_to(root).as_posix(), "uriBaseId": "%SRCROOT%"}
    except ValueError:
        return {"uri": p.as_uri()}


def default_root(result: LintResult) -> Path:
    """The directory URIs are relative to: the common directory of the result's paths when they are
    absolute (a saved result rendered elsewhere), else the current directory."""
    paths = [p for p in result.paths if p] or [f.location.file for f in result.findings if f.location]
    if paths and all(os.path.isabs(p) for p in paths):
        common = os.path.commonpath(paths)
        if len(paths) == 1 and (common.endswith(".py") or common.endswith(".pyi") or os.path.isfile(common)):
            common = os.path.dirname(common)
        return Path(common)
    return _abspath(os.getcwd())


def _region(f: Finding) -> dict[str, int]:
    loc = f.location
    assert loc is not None
    region = {"startLine": loc.line, "startColumn": loc.column or 1}
    if loc.end_line:
        region["endLine"] = loc.end_line
    if loc.end_column:
        region["endColumn"] = loc.end_column
    return region


def to_sarif(result: LintResult, root: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The SARIF log as a dict; artifact URIs are relative to ``root`` (default: ``default_root(result)``).

    Files outside ``root`` get an absolute ``file://`` URI without ``uriBaseId``."""
    from ..lint.registry import all_rules

    base = _abspath(root) if root is not None else default_root(result)
    rules = list(all_rules().values())
    index = {r.code: i for i, r in enumerate(rules)}
    results = []
    for f in result.findings:
        entry: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": index.get(f.code, -1),
            "level": _LEVEL.get(f.severity, "warning"),
            "message": {"text": f.message},
        }
        if f.confidence:
            entry["properties"] = {"confidence": f.confidence, "severity": f.severity}
        if f.location is not None:
            entry["locations"] = [{"physicalLocation": {
                "artifactLocation": _artifact(f.location.file, base),
                "region": _region(f)}}]
            fx = f.fix
            if fx is not None and fx.replacement is not None and fx.location is not None:
                fix_region = {"startLine": fx.location.line, "startColumn": fx.location.column or 1,
                              "endLine": fx.location.end_line or fx.location.line,
                              "endColumn": fx.location.end_column or 1}
                entry["fixes"] = [{
                    "description": {"text": f"{fx.title} ({fx.safety} fix)"},
                    "artifactChanges": [{
                        "artifactLocation": _artifact(f.location.file, base),
                        "replacements": [{"deletedRegion": fix_region, "insertedContent": {"text": fx.replacement}}],
                    }],
                }]
        related = [r for r in (f.details or {}).get("related") or () if isinstance(r, dict) and r.get("line")]
        if related:  # the finding is where the fix goes; these are the other lines of its cause (a call)
            entry["relatedLocations"] = [{
                "id": i, "message": {"text": str(r.get("message", ""))},
                "physicalLocation": {"artifactLocation": _artifact(str(r.get("file") or ""), base),
                                     "region": {"startLine": int(r["line"])}}} for i, r in enumerate(related)]
        if entry["ruleIndex"] < 0:
            del entry["ruleIndex"]
        results.append(entry)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "jitscope",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule_entry(r) for r in rules],
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": base.as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render(result: LintResult, root: str | os.PathLike[str] | None = None) -> str:
    """SARIF 2.1.0 JSON text of ``result`` (compact: no indentation, which would triple large logs)."""
    return json.dumps(to_sarif(result, root), separators=(",", ":"))
