"""A findings table shared by the inspect, scale and lint layouts."""

from __future__ import annotations

from collections.abc import Sequence

from ..._format import shown_where
from ...model import Finding
from ._page import Raw, esc, table


def findings_table(findings: Sequence[Finding], limit: int = 500) -> str:
    if not findings:
        return '<p class="muted">No findings.</p>'
    rows = []
    for f in findings[:limit]:
        loc = f.location
        where = shown_where(loc.file, loc.line) if loc else "-"
        fix = f.fix.title if f.fix else ""
        if f.fix and f.fix.replacement:
            fix += f" → {f.fix.replacement}"
        rows.append((Raw(f'<span class="sev-{esc(f.severity)}">{esc(f.severity)}</span>'), f.code, where,
                     f.message, fix))
    more = f'<p class="muted">... and {len(findings) - limit} more in the JSON.</p>' if len(findings) > limit else ""
    return table(["severity", "code", "where", "message", "fix"], rows) + more
