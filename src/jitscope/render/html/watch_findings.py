"""HTML sections for watch's runtime findings: one section per code (JWxxx), groups by function worst
first, each line with its source snippet and fix. Records: ``analyze/runtime_findings.py``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..._format import fmt_seconds
from ._page import Raw, Section, esc, table

if TYPE_CHECKING:
    from ...analyze.runtime_findings import RuntimeFinding
    from ...results.watch import WatchResult

MAX_ROWS = 200


def _where(f: RuntimeFinding) -> str:
    return f"{os.path.basename(f.location.file)}:{f.location.line}" if f.location else "-"


def _snippet(f: RuntimeFinding) -> Raw:
    if not f.source:
        return Raw("")
    return Raw(f"<pre>{esc(f.location.line) + ': ' if f.location else ''}{esc(f.source)}</pre>")


def sections(result: WatchResult) -> list[Section]:
    """A summary section, then one section per code; nothing when the run has no findings."""
    from ...analyze.runtime_codes import CODES
    from ...analyze.runtime_findings import group_findings

    findings = getattr(result, "findings", None) or []
    if not findings:
        return []
    groups = group_findings(findings)
    titles = {g.code: f"{g.code} {CODES[g.code].name}" if g.code in CODES else g.code for g in groups}
    rows = [(Raw(f'<span class="sev-{esc(g.severity)}">{esc(g.severity)}</span>'),
             Raw(f'<a href="#{esc(Section(titles[g.code], "").anchor)}">{esc(g.code)}</a>'), g.function, g.count,
             fmt_seconds(g.seconds) if g.seconds > 0 else "-", g.first.fix.title if g.first.fix else "")
            for g in groups[:MAX_ROWS]]
    out = [Section("Runtime findings", "<p>What jit did to this run, grouped by function and code, worst first "
                   "(<code>jitscope rules CODE</code> explains each code). Seconds are the trace + compile time "
                   "of the compiles each was seen in (for JW5xx, the dispatch time lost off the fast path).</p>"
                   + table(["severity", "code", "function", "count", "seconds", "fix"], rows, numeric=(3, 4)))]
    by_code: dict[str, list] = {}
    for g in groups:
        by_code.setdefault(g.code, []).append(g)
    for code in sorted(by_code):
        info = CODES.get(code)
        title = titles[code]
        body = f"<p>{esc(info.summary)}</p>" if info else ""
        lines = []
        for g in by_code[code]:
            seen: set[tuple] = set()
            for f in g.findings:
                key = (_where(f), f.message)
                if key in seen:
                    continue
                seen.add(key)
                fix = f"{f.fix.title}. {f.fix.description}" if f.fix else ""
                evidence = getattr(f, "evidence", "") or ""
                if evidence and getattr(f, "confidence", None):
                    evidence = f"{evidence} ({f.confidence})"
                lines.append((g.function, _where(f), f.message, _snippet(f), evidence, fix))
        more = (f'<p class="muted">... and {len(lines) - MAX_ROWS} more in the JSON.</p>'
                if len(lines) > MAX_ROWS else "")
        body += table(["function", "where", "what", "source", "evidence", "fix"], lines[:MAX_ROWS]) + more
        out.append(Section(title, body))
    return out
