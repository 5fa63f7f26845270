"""HTML layout for ``compare`` results: the variants table, bar charts, numerics, recommendation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._format import fmt_seconds
from ..arguments import arguments
from ..text import break_even_cell, numerics_lines, recommendation_text, speedup_cell
from ._page import Section, esc, lesson, pre, table
from .svg import bar_chart

if TYPE_CHECKING:
    from ...results.compare import CompareResult


def compare_body(result: CompareResult) -> str:
    """Table + charts + numerics + recommendation for one comparison (reused by the demo layout)."""
    rows = []
    for v in result.variants:
        phases = " / ".join(fmt_seconds(v.phases.get(k)) for k in ("trace", "lower", "compile")) if v.phases else "-"
        spread = (f"{fmt_seconds(v.steady.min)} – {fmt_seconds(v.steady.max)}"
                  if v.steady and v.steady.median is not None else "-")
        compiles = "-" if v.compiles_first_call is None else (
            f"{v.compiles_first_call} / {'-' if v.compiles_per_call is None else f'{v.compiles_per_call:.3g}'}")
        rows.append((v.name, fmt_seconds(v.first_call.median if v.first_call else None), phases,
                     fmt_seconds(v.steady.median if v.steady else None) if v.error is None else f"failed: {v.error}",
                     spread, speedup_cell(v), compiles,
                     break_even_cell(v.name, result.reference, result.break_even)))
    ref = result.reference or "reference"
    html = table(["variant", "first call", "trace / lower / compile", "steady median", "min – max", f"vs {ref}",
                  "compiles (first / per call)", f"break-even vs {ref}"], rows, numeric=(1, 2, 3, 4, 5, 6))
    ok = [v for v in result.variants if v.steady and v.steady.median]
    if ok:
        names = [v.name for v in ok]
        medians = [v.steady.median for v in ok]  # type: ignore[union-attr]
        spread = max(medians) / min(medians) if min(medians) > 0 else 1
        html += bar_chart(names, medians, title="Steady-state time per call (lower is better)", log=spread > 30)
        firsts = [v.first_call.median if v.first_call else None for v in ok]
        html += bar_chart(names, firsts, title="First call from a cold cache, including compilation",
                          log=spread > 30)
    for line in numerics_lines(result):
        html += lesson(f"Numerics: {line}", "warn")
    for err in result.errors:
        html += lesson(f"Error: {err}", "warn")
    for v in result.variants:
        for note in v.notes:
            html += f'<p class="muted">note: {esc(v.name)}: {esc(note)}</p>'
    if result.recommendation is not None:
        html += lesson(f"Recommendation: {recommendation_text(result.recommendation)}")
    if result.pessimisation:
        from ..pessimisation_text import compare_lines
        from .pessimisation import body as pessimisation_body

        shown = False
        for line, p in compare_lines(result):
            if p is None:
                html += f'<p class="muted">note: {esc(line)}</p>'
                continue
            html += "<h3>Pessimised fusion</h3>" + lesson(line + ".", "warn")
            if not shown:  # the losing variants share their source lines: the details once
                html += pessimisation_body(p, headline=False)
                shown = True
    if result.inspect_command is not None:
        from ..text import inspect_command_title

        html += f"<h3>{esc(inspect_command_title(result.inspect_command))}</h3>" + pre(result.inspect_command.shell())
    return html


def sections(result: CompareResult) -> list[Section]:
    sig = ""
    if result.signature and result.signature.leaves:
        sig = " on " + arguments(result.signature)
    return [Section((result.title or "Compare") + sig, compare_body(result))]
