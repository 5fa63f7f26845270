"""Terminal report of a ``DiffResult``: what changed between two watch runs, worst first."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..text import DIFF_STATUS, diff_function_name, diff_verdict
from . import diff_programs, fmt_seconds

if TYPE_CHECKING:
    from rich.console import Console

    from ...results.diff import DiffResult

_STATUS = DIFF_STATUS


def render(result: DiffResult, console: Console) -> None:
    """Print the diff: totals, then one row per function that changed, then the --fail-on outcome."""
    from rich.markup import escape
    from rich.table import Table

    console.print(f"[bold]jitscope diff[/bold]: {escape(result.run_b)} (B) against {escape(result.run_a)} (A)")
    console.print(escape(diff_verdict(result)))
    for note in result.notes:
        console.print(f"[dim]note: {escape(note)}[/dim]")
    changed = result.changed
    if not changed:
        console.print(f"no function changed: {len(result.functions)} functions compiled the same number of times, "
                      "for the same causes, in times within noise")
    else:
        t = Table(title=f"{len(changed)} of {len(result.functions)} functions changed", title_justify="left")
        for col in ("function", "defined", "change", "compiles A -> B", "seconds A -> B", "new causes"):
            t.add_column(col, overflow="fold")
        for d in changed:
            where = f"{os.path.basename(d.definition.file)}:{d.definition.line}" if d.definition else "-"
            causes = d.first_new or (", ".join(d.new_causes))
            if d.vanished_causes:
                causes += ("; " if causes else "") + "gone: " + ", ".join(d.vanished_causes)
            t.add_row(escape(diff_function_name(d)), escape(where), _STATUS[d.status], f"{d.compiles_a} -> {d.compiles_b}",
                      f"{fmt_seconds(d.seconds_a)} -> {fmt_seconds(d.seconds_b)}", escape(causes))
        console.print(t)
    diff_programs.render(result, console)
    if result.cache_misses:
        console.print(f"persistent-cache misses in B that hit or were written in A: {len(result.cache_misses)}")
        for m in result.cache_misses:
            console.print(f"  {escape(m.function)} (compile #{m.index_b}, {fmt_seconds(m.seconds_b)}; "
                          f"{m.outcome_a} in A): {escape(m.summary or m.describe())}")
    if result.fail_on:
        if result.violations:
            console.print(f"[bold red]--fail-on {','.join(result.fail_on)}: {len(result.violations)} "
                          f"breach{'es' if len(result.violations) != 1 else ''}[/bold red]")
            for v in result.violations:
                console.print(f"  {escape(v)}")
        else:
            console.print(f"--fail-on {','.join(result.fail_on)}: passed")
