"""A findings table shared by the inspect, scale and lint layouts."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ...model import Finding
from ._page import Raw, esc, table


def _short_paths(files: list[str]) -> dict[str, str]:
    """Each file relative to the files' common folder: unambiguous (``pkg/a/__init__.py``), yet short."""
    if not files:
        return {}
    try:
        root = os.path.commonpath([os.path.dirname(f) or "." for f in files])
    except ValueError:  # mixed absolute and relative paths
        return {f: f for f in files}
    return {f: os.path.relpath(f, root) if root else f for f in files}


def findings_table(findings: Sequence[Finding], limit: int = 500) -> str:
    if not findings:
        return '<p class="muted">No findings.</p>'
    rows = []
    short = _short_paths(sorted({f.location.file for f in findings[:limit] if f.location}))
    for f in findings[:limit]:
        loc = f.location
        where = f"{short[loc.file]}:{loc.line}" if loc else "-"
        fix = f.fix.title if f.fix else ""
        if f.fix and f.fix.replacement:
            fix += f" → {f.fix.replacement}"
        rows.append((Raw(f'<span class="sev-{esc(f.severity)}">{esc(f.severity)}</span>'), f.code, where,
                     f.message, fix))
    more = f'<p class="muted">... and {len(findings) - limit} more in the JSON.</p>' if len(findings) > limit else ""
    return table(["severity", "code", "where", "message", "fix"], rows) + more
