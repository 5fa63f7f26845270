"""Console renderer for ``CompareResult``: one table of variants, then numerics and the recommendation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..arguments import arguments
from ..text import break_even_cell, numerics_lines, recommendation_text, speedup_cell
from . import fmt_seconds

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from ...results.compare import CompareResult, VariantResult


def _phases(v: VariantResult) -> str:
    if not v.phases:
        return "-"
    return " / ".join(fmt_seconds(v.phases.get(k)) for k in ("trace", "lower", "compile"))


def _range(v: VariantResult) -> str:
    if v.steady is None or v.steady.median is None:
        return "-"
    return f"{fmt_seconds(v.steady.min)}-{fmt_seconds(v.steady.max)}"


def variants_table(result: CompareResult, title: str | None = None) -> Table:
    """The rich Table of variants (used by the compare and demo renderers)."""
    from rich.markup import escape
    from rich.table import Table

    ref = result.reference or "reference"
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("variant", style="bold", no_wrap=True)
    table.add_column("first call", justify="right", no_wrap=True)
    table.add_column("trace / lower / compile", justify="right")
    table.add_column("steady median", justify="right", no_wrap=True)
    table.add_column("min-max", justify="right")
    table.add_column(f"vs {ref}", justify="right", no_wrap=True)
    table.add_column("compiles", justify="right", no_wrap=True)
    table.add_column(f"break-even vs {ref}", justify="right")
    table.caption = "compiles: at the first call / per steady call"
    table.caption_justify = "left"
    for v in result.variants:
        if v.error is not None and v.first_call is None:
            table.add_row(escape(v.name), f"[red]failed: {escape(v.error)}[/red]", "", "", "", "", "", "")
            continue
        compiles = "-"
        if v.compiles_first_call is not None:
            per = "-" if v.compiles_per_call is None else f"{v.compiles_per_call:.3g}"
            compiles = f"{v.compiles_first_call} / {per}"
        if v.error is None:
            steady = fmt_seconds(v.steady.median if v.steady else None)
        else:
            steady = f"[red]failed: {escape(v.error)}[/red]"
        table.add_row(escape(v.name), fmt_seconds(v.first_call.median if v.first_call else None), _phases(v),
                      steady, _range(v), speedup_cell(v), compiles,
                      break_even_cell(v.name, result.reference, result.break_even))
    return table


def render(result: CompareResult, console: Console) -> None:
    """Print the variants table, notes, numerical differences, errors and the recommendation."""
    from rich.markup import escape

    sig = ""
    if result.signature and result.signature.leaves:
        sig = " on " + arguments(result.signature)
    title = (result.title or "jitscope compare") + sig
    console.print(variants_table(result, escape(title)))
    for v in result.variants:
        for note in v.notes:
            console.print(f"note: {escape(v.name)}: {escape(note)}")
    lines = numerics_lines(result)
    for line in lines:
        console.print(f"[yellow]numerics:[/yellow] {escape(line)}")
    if result.numerics and not lines:
        console.print(f"numerics: all compared outputs equal {escape(result.reference or '')} within tolerance")
    for err in result.errors:
        console.print(f"[red]error:[/red] {escape(err)}")
    if result.recommendation is not None:
        console.print(f"[bold]recommendation:[/bold] {escape(recommendation_text(result.recommendation))}")
    if result.pessimisation:
        from ..pessimisation_text import compare_lines
        from .pessimisation import render as render_pessimisation

        shown = False
        for line, p in compare_lines(result):
            if p is None:
                console.print(f"note: {escape(line)}", soft_wrap=True)
            else:
                console.print(f"[bold yellow]pessimised fusion[/bold yellow]: {escape(line)}", soft_wrap=True)
                if not shown:  # the variants share their source lines; the details once are enough
                    render_pessimisation(p, console, indent="  ", details_only=True, brief=True)
                    shown = True
        if shown:
            console.print("  (jitscope inspect on the slower variant's target shows every fusion, line and fix)")
    if result.inspect_command is not None:
        from ..text import inspect_command_line

        console.print(inspect_command_line(result.inspect_command), markup=False, soft_wrap=True)
