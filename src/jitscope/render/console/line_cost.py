"""Console section of an inspect result: the costliest source lines, scalene-style."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape as esc

from ..line_costs import estimate_note, short_file, top_lines
from . import fmt_seconds

if TYPE_CHECKING:
    from rich.console import Console

    from ...results.inspect import InspectResult

BAR = 10


def _bar(share: float) -> str:
    full = max(0.0, min(1.0, share)) * BAR  # a share from a file may be anything the schema allows
    return "█" * int(full) + ("▌" if full - int(full) >= 0.5 else "")


def render_line_costs(result: InspectResult, console: Console, top: int = 10) -> None:
    """Print the ``top`` source lines by estimated compile share with their numbers and source text."""
    from rich.table import Table

    lines = top_lines(result.line_costs, top)
    if not lines:
        return
    console.print("[bold]compile cost per source line[/bold] " + esc(f"({estimate_note(result.line_cost_totals)})"),
                  soft_wrap=True)
    t = Table(show_edge=False, box=None, pad_edge=False, padding=(0, 1))
    for name, right in (("share", True), ("", False), ("est. s", True), ("eqns", True), ("×", True),
                        ("HLO ops", True), ("opt. ops", True), ("line", False), ("source", False)):
        t.add_column(name, justify="right" if right else "left", no_wrap=name != "source")
    for r in lines:
        mult = f"x{r.multiplicity}" if r.multiplicity > 1 else ""
        t.add_row(f"{r.compile_share:.0%}" if r.compile_share >= 0.005 else "<1%", f"[blue]{_bar(r.compile_share)}[/blue]",
                  fmt_seconds(r.compile_seconds) if r.compile_seconds else "-", f"{r.equations:,}", mult,
                  f"{r.hlo_ops:,}", f"{r.optimized_ops:,}", esc(f"{short_file(r.file)}:{r.line}"), esc(r.source))
    console.print(t)
