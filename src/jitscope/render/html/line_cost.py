"""HTML section of an inspect result: the user's source with each line's compile cost beside it.

A scalene-style annotated listing (line number, estimated share with a bar, estimated seconds,
equations, loop multiplicity, HLO ops before and after optimisation, the source text) around the
costliest lines. Plain HTML and CSS: the report's CSP allows no script. The source text comes
from the result (``LineCostTotals.excerpts``), so a saved result renders the same listing.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from ..._format import fmt_seconds
from ..line_costs import by_source_line, estimate_note, short_file, top_lines
from ._page import Section, esc, lesson

if TYPE_CHECKING:
    from ...results.inspect import InspectResult

# Scoped to the listing; kept here (not in the page's stylesheet) so other pages do not change.
STYLE = (
    "<style>.listing{border-collapse:collapse;font-size:12px;margin:6px 0 14px}"
    ".listing td,.listing th{border:0;border-bottom:1px solid var(--soft);padding:1px 8px;white-space:nowrap}"
    ".listing th{background:var(--soft);font-weight:600}.listing td.num{text-align:right}"
    ".listing td.ln{color:var(--muted);text-align:right;border-right:1px solid var(--line)}"
    ".listing td.src{white-space:pre;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}"
    ".listing tr.hot td.src{font-weight:600}.listing tr.gap td{color:var(--muted);text-align:center}"
    ".listing .bar{display:inline-block;width:80px;height:10px;background:var(--soft);border:1px solid var(--line);"
    "vertical-align:middle;margin-right:6px}.listing .bar span{display:block;height:100%;background:var(--accent)}"
    ".listing .mult{color:var(--bad);font-weight:600}</style>"
)


def _bar(share: float) -> str:
    width = max(0.0, min(1.0, share)) * 100
    return f'<span class="bar"><span style="width:{width:.1f}%"></span></span>{share:.1%}'


def line_cost_section(result: InspectResult) -> Section | None:
    """The "Compile cost per source line" section, or None when the result has no line costs."""
    totals = result.line_cost_totals
    if not result.line_costs:
        return None
    by_line = by_source_line(result.line_costs)
    hot = {(r.file, r.line) for r in top_lines(result.line_costs)}
    note = estimate_note(totals)
    body = STYLE + lesson(note[:1].upper() + note[1:])
    files: dict[str, list] = defaultdict(list)
    for ex in totals.excerpts if totals else []:
        files[ex.file].append(ex)
    head = ("<thead><tr><th>line</th><th>est. share of compile</th><th>est. s</th><th>eqns</th><th>×</th>"
            "<th>HLO ops</th><th>opt. ops</th><th>source</th></tr></thead>")
    for file, excerpts in files.items():
        body += f"<h3>{esc(short_file(file))} <span class=\"muted\">{esc(file)}</span></h3>"
        rows = []
        for k, ex in enumerate(excerpts):
            if k or ex.start > 1:
                rows.append('<tr class="gap"><td>⋮</td><td colspan="7"></td></tr>')
            for i, text in enumerate(ex.lines):
                n = ex.start + i
                r = by_line.get((file, n))
                cls = ' class="hot"' if (file, n) in hot else ""
                if r is None:
                    nums = '<td></td><td class="num"></td><td class="num"></td><td class="num"></td>' \
                           '<td class="num"></td><td class="num"></td>'
                else:
                    mult = f'<span class="mult">x{r.multiplicity:,}</span>' if r.multiplicity > 1 else ""
                    secs = fmt_seconds(r.compile_seconds) if r.compile_seconds else ""
                    nums = (f"<td>{_bar(r.compile_share)}</td><td class=\"num\">{esc(secs)}</td>"
                            f"<td class=\"num\">{r.equations:,}</td><td class=\"num\">{mult}</td>"
                            f"<td class=\"num\">{r.hlo_ops:,}</td><td class=\"num\">{r.optimized_ops:,}</td>")
                rows.append(f'<tr{cls}><td class="ln">{n}</td>{nums}<td class="src">{esc(text)}</td></tr>')
        body += f'<table class="listing">{head}<tbody>{"".join(rows)}</tbody></table>'
    rest = [r for r in top_lines(result.line_costs) if not any(
        ex.file == r.file and ex.start <= r.line < ex.start + len(ex.lines) for ex in (totals.excerpts if totals else []))]
    if rest:  # source not readable when the result was made (a notebook cell, a deleted file)
        body += "<h3>Lines without source text</h3><table class=\"listing\">" + head + "<tbody>" + "".join(
            f'<tr><td class="ln">{esc(short_file(r.file))}:{r.line}</td><td>{_bar(r.compile_share)}</td>'
            f'<td class="num"></td><td class="num">{r.equations:,}</td><td class="num">x{r.multiplicity:,}</td>'
            f'<td class="num">{r.hlo_ops:,}</td><td class="num">{r.optimized_ops:,}</td><td class="src">'
            f'{esc(r.source)}</td></tr>' for r in rest) + "</tbody></table>"
    return Section("Compile cost per source line", body)
