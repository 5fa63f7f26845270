"""HTML sections for watch's runtime findings: one section per code (JWxxx), one row per function
(worst first) with its first finding, that finding's source snippet and the fix once; the group's
other findings folded under the first. Records: ``analyze/runtime_findings.py``."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from ..._format import fmt_seconds
from ._page import Raw, Section, details, esc, table

_LITERAL = re.compile(r"``(.+?)``")


def _literals(escaped: str) -> str:
    """A code's summary marks literals as ``x`` (reST, as in `jitscope rules`): code in the page."""
    return _LITERAL.sub(r"<code>\1</code>", escaped)

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
                   "of the compiles each was seen in (for JW5xx, the dispatch time lost off the fast path; for JW506, the time in host callbacks; for JW508, the time in host-to-device copies).</p>"
                   + table(["severity", "code", "function", "count", "seconds", "fix"], rows, numeric=(3, 4)))]
    by_code: dict[str, list] = {}
    for g in groups:
        by_code.setdefault(g.code, []).append(g)
    for code in sorted(by_code):
        info = CODES.get(code)
        body = f"<p>{_literals(esc(info.summary))}</p>" if info else ""
        rows = [_group_row(g) for g in by_code[code][:MAX_ROWS]]
        more = (f'<p class="muted">... and {len(by_code[code]) - MAX_ROWS} more in the JSON.</p>'
                if len(by_code[code]) > MAX_ROWS else "")
        body += table(["function", "where", "count", "seconds", "first of them", "fix"], rows, numeric=(2, 3)) + more
        out.append(Section(titles[code], body))
    return out


def _group_row(g) -> tuple:  # type: ignore[no-untyped-def]
    """One (function, code) group: where, how many, the first finding with its source, the fix once; the
    group's other findings folded under the first."""
    unique: dict[tuple, RuntimeFinding] = {}
    for f in g.findings:
        unique.setdefault((_where(f), f.message), f)
    first, *others = unique.values()
    sites = list(dict.fromkeys(_where(f) for f in g.findings))
    where = ", ".join(sites[:3]) + (f" and {len(sites) - 3} more" if len(sites) > 3 else "")
    what = esc(first.message) + _snippet(first).html
    evidence = getattr(first, "evidence", "") or ""
    if evidence:
        confidence = getattr(first, "confidence", None)
        what += f'<div class="muted">evidence: {esc(evidence)}{f" ({esc(confidence)})" if confidence else ""}</div>'
    if others:
        what += details(f"{len(others)} more like it", "<ul>" + "".join(
            f"<li>{esc(_where(f))}: {esc(f.message)}</li>" for f in others[:MAX_ROWS]) + "</ul>")
    fix = Raw(f"<b>{esc(first.fix.title)}</b>. {esc(first.fix.description)}" if first.fix else "")
    return (g.function, where, g.count, fmt_seconds(g.seconds) if g.seconds > 0 else "-", Raw(what), fix)
