"""``jitscope lint --statistics``: how many findings of each rule, like ``ruff --statistics``.

Text: one line per code, most frequent first: the count, the code, ``[*]`` when some of its
findings have a safe fix (``[-]`` when only unsafe ones, blank otherwise) and the rule's name.
JSON: a list of ``{"code", "name", "count", "fixable", "unsafe_fixable"}`` objects in the same order.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..results.lint import LintResult


def statistics(result: LintResult) -> list[dict[str, object]]:
    """Per-code counts, most frequent first (ties by code)."""
    rows: dict[str, dict[str, object]] = {}
    for f in result.findings:
        row = rows.setdefault(f.code, {"code": f.code, "name": f.name, "count": 0, "fixable": 0,
                                       "unsafe_fixable": 0})
        row["count"] += 1  # type: ignore[operator]
        if f.fix is not None and f.fix.replacement is not None:
            key = "fixable" if f.fix.safety == "safe" else "unsafe_fixable" if f.fix.safety == "unsafe" else None
            if key:
                row[key] += 1  # type: ignore[operator]
    return sorted(rows.values(), key=lambda r: (-r["count"], r["code"]))  # type: ignore[operator]


def render(result: LintResult, fmt: str = "text") -> str:
    """The statistics as aligned text lines, or as JSON with ``fmt="json"``."""
    rows = statistics(result)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(r["count"])) for r in rows)
    out = []
    for r in rows:
        mark = "[*]" if r["fixable"] else "[-]" if r["unsafe_fixable"] else "   "
        out.append(f"{r['count']:>{width}}\t{r['code']}\t{mark} {r['name']}")
    return "\n".join(out) + "\n"
