"""HTML layout for ``demo`` results: one section per case study, its tables, charts and lesson."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..text import fmt_value
from ._page import Section, esc, lesson, table
from .compare import compare_body
from .svg import loglog_chart

if TYPE_CHECKING:
    from ...results.demo import CaseStudy, DemoResult


def _growth_chart(case: CaseStudy) -> str:
    """Log-log plots of every numeric column against ``n``, grouped by unit, when rows vary in n."""
    keys = {c.key for c in case.columns}
    if "n" not in keys or len({r.get("n") for r in case.rows}) < 2:
        return ""
    out = ""
    for unit, ylabel in (("s", "seconds"), ("int", "count")):
        cols = [c for c in case.columns if c.unit == unit and c.key != "n"]
        if cols:
            series = {c.title: [(r["n"], r.get(c.key)) for r in case.rows if r.get(c.key) is not None]
                      for c in cols}
            out += loglog_chart(series, xlabel="N", ylabel=ylabel, title=f"{ylabel.capitalize()} over N (log-log)")
    return out


def case_body(case: CaseStudy) -> str:
    html = f'<p class="muted">From {esc(case.seed)}: {esc(case.published)}</p>'
    if case.error is not None:
        return html + lesson(f"This case study failed: {case.error}", "warn")
    if case.compare is not None:
        html += f"<h3>{esc(case.compare.title)}</h3>" + compare_body(case.compare)
    if case.columns and case.rows:
        html += table([c.title for c in case.columns],
                      [[fmt_value(r.get(c.key), c.unit) for c in case.columns] for r in case.rows],
                      numeric=[i for i, c in enumerate(case.columns) if c.unit])
        html += _growth_chart(case)
    return html + lesson(f"Lesson (from this run's numbers): {case.lesson}")


def sections(result: DemoResult) -> list[Section]:
    failed = [c.name for c in result.cases if c.error]
    intro = (f"{len(result.cases)} case studies from five articles on jax.jit, measured live in {result.seconds:.1f} s"
             f"{' with --quick sizes' if result.quick else ''}. Each lesson below is computed from the "
             "numbers of this run; where today's JAX disagrees with a 2019-2022 article, the lesson says so.")
    out = [Section("Overview", lesson(intro) + (lesson(f"Failed: {', '.join(failed)}", "warn") if failed else "")
                   + ("<p>Interrupted: later case studies did not run.</p>" if result.interrupted else ""))]
    out += [Section(f"{i}. {c.title}", case_body(c)) for i, c in enumerate(result.cases, 1)]
    return out
