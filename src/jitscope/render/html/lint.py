"""HTML layout for ``lint`` results: totals per rule, the findings table, the fix diff."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ._findings import findings_table
from ._page import Section, lesson, pre
from .svg import bar_chart

if TYPE_CHECKING:
    from ...results.lint import LintResult


def sections(result: LintResult) -> list[Section]:
    n = len(result.findings)
    head = lesson(f"{n} finding{'s' if n != 1 else ''} in {result.files_checked} files "
                  f"({result.lines_checked:,} lines); {result.fixes_applied} fixes applied.", "warn" if n else "ok")
    by_code = Counter(f"{f.code} {f.name}".strip() for f in result.findings)
    chart = bar_chart(list(by_code), [float(v) for v in by_code.values()], unit="", title="Findings per rule") \
        if by_code else ""
    out = [Section("Lint", head + chart), Section("Findings", findings_table(result.findings))]
    if result.diff:
        out.append(Section("Fixes (diff)", pre(result.diff)))
    return out
