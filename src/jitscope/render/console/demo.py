"""Console renderer for ``DemoResult``: per case study, its table and the lesson computed from it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..text import fmt_value, numerics_lines
from .compare import variants_table

if TYPE_CHECKING:
    from rich.console import Console

    from ...results.demo import CaseStudy, Column, DemoResult


def case_table(columns: list[Column], rows: list[dict[str, Any]], title: str | None = None) -> Any:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for col in columns:
        table.add_column(escape(col.title), justify="left" if col.unit == "" else "right")
    for row in rows:
        table.add_row(*(escape(fmt_value(row.get(c.key), c.unit)) for c in columns))
    return table


def render_case(case: CaseStudy, console: Console, index: int | None = None) -> None:
    """Print one case study: heading, tables, numerics, the lesson (or the error)."""
    from rich.markup import escape

    num = f"{index}. " if index is not None else ""
    console.print()
    console.print(f"[bold]{num}{escape(case.title)}[/bold]  [dim](from {escape(case.seed)}: "
                  f"{escape(case.published)})[/dim]")
    if case.error is not None:
        console.print(f"[red]failed:[/red] {escape(case.error)}")
        return
    if case.compare is not None:
        console.print(variants_table(case.compare, escape(case.compare.title)))
        for line in numerics_lines(case.compare):
            console.print(f"[yellow]numerics:[/yellow] {escape(line)}")
    if case.columns and case.rows:
        console.print(case_table(case.columns, case.rows))
    console.print(f"[bold green]LESSON:[/bold green] {escape(case.lesson)}")


def render(result: DemoResult, console: Console) -> None:
    """Print every case study, then a one-line summary."""
    for i, case in enumerate(result.cases, 1):
        render_case(case, console, i)
    failed = [c.name for c in result.cases if c.error is not None]
    console.print()
    summary = (f"{len(result.cases)} case stud{'y' if len(result.cases) == 1 else 'ies'} in "
               f"{result.seconds:.1f} s{' (quick)' if result.quick else ''} on {result.env.backend or '?'} "
               f"({result.env.cpu_count} CPUs, jax {result.env.jax})")
    if failed:
        summary += f"; failed: {', '.join(failed)}"
    console.print(summary)
