"""Console rendering of a ``ScaleResult`` (works on a loaded result)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape as esc

from ..text import interval_text
from . import fmt_seconds

if TYPE_CHECKING:
    from rich.console import Console

    from ...results.scale import ScaleResult

_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def render(result: ScaleResult, console: Console) -> None:
    """Per-size table, growth exponents, findings and plot files."""
    from rich.table import Table

    console.print(f"[bold]jitscope scale[/bold] {esc(result.target)} (sizes {', '.join(map(str, result.sizes))}; "
                  f"cold compile x{result.repeats} per size{' (chosen by the run)' if result.repeats_auto else ''}"
                  ", min shown)")
    t = Table(show_edge=False)
    for col in ("n", "trace", "lower", "compile", "run", "jaxpr eqns", "HLO ops", "bloat repeats"):
        t.add_column(col, justify="right")
    for p in result.points:
        if p.error:
            t.add_row(str(p.n), f"[red]{esc(p.error)}[/red]", "", "", "", "", "", "")
            continue
        run = p.timings.get("run")
        t.add_row(str(p.n), fmt_seconds(p.seconds("trace")), fmt_seconds(p.seconds("lower")),
                  fmt_seconds(p.seconds("compile")), fmt_seconds(run.median if run else None),
                  str(p.equations), str(p.hlo_ops), str(p.bloat_repeats))
    console.print(t)
    f = Table(title="growth: value ~ n^k (log-log least squares)", title_justify="left", show_edge=False)
    for col in ("metric", "k", "95% interval", "growth", "r2"):
        f.add_column(col, justify="right" if col != "metric" else "left")
    for metric, fit in result.fits.items():
        if fit.exponent is None:
            continue
        style = "bold red" if fit.growth == "superlinear" and fit.settled is not False else ""
        growth = esc(fit.growth_range)
        growth = f"[{style}]{growth}[/{style}]" if style else growth
        f.add_row(metric, f"{fit.exponent:.2f}", interval_text(fit), growth,
                  f"{fit.r2:.2f}" if fit.r2 is not None else "-")
    console.print(f)
    for finding in result.findings:
        style = _SEVERITY_STYLE.get(finding.severity, "")
        console.print(f"[{style}]{finding.severity}[/{style}] {finding.code}: {esc(finding.message)}", soft_wrap=True)
        if finding.fix:
            extra = f" -> {finding.fix.replacement}" if finding.fix.replacement else ""
            console.print(esc(f"    fix: {finding.fix.title}{extra}"), soft_wrap=True)
    if result.plot_files:
        console.print(esc(f"plot: {', '.join(result.plot_files)}"))
