"""Terminal report of a ``MergeResult``: the divergence first, then each process's compile sequence."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..divergence_text import agreement_line, compile_text, divergence_line, processes
from . import fmt_seconds

if TYPE_CHECKING:
    from rich.console import Console

    from ...results.merge import MergeResult

MAX_ROWS = 12  # compiles shown per process around the divergence; --json has all
MAX_SKIPPED_SHOWN = 10  # skipped files named one per line; the rest counted


def render(result: MergeResult, console: Console) -> None:
    """Print the verdict (divergences or agreement), the processes, and their sequences side by side."""
    from rich.markup import escape
    from rich.table import Table

    ps = [r.process_index for r in result.processes]
    console.print(f"[bold]jitscope merge[/bold]: {len(ps)} process{'es' if len(ps) != 1 else ''} "
                  f"({', '.join(map(str, ps))}) from {escape(result.run_dir)}")
    sequences = {i: result.sequence(i) for i in ps}
    if result.divergences:
        for d in result.divergences:
            style = "bold red" if d.kind == "program" else "bold yellow"
            console.print(f"[{style}]{escape(divergence_line(d))}[/{style}]")
    elif len(ps) > 1:
        console.print(f"[green]no divergence:[/green] {escape(agreement_line(sequences))}")
    else:
        console.print(f"only {processes(ps)}: nothing to compare (give the files of every process)")
    t = Table(title="processes", title_justify="left")
    for col in ("process", "pid", "compiles", "compile seconds", "file"):
        t.add_column(col, overflow="fold")
    for r in result.processes:
        t.add_row(str(r.process_index), str(r.pid or "-"), str(r.compiles), fmt_seconds(r.compile_seconds),
                  escape(r.source))
    console.print(t)
    first = result.divergences[0].position if result.divergences else 0
    start = max(0, first - MAX_ROWS // 2)
    longest = max((len(s) for s in sequences.values()), default=0)
    stop = min(longest, start + MAX_ROWS)
    if longest:
        s = Table(title=f"compiles #{start + 1}-#{stop} of {longest}, by process", title_justify="left")
        s.add_column("#", justify="right")
        for i in ps:
            s.add_column(f"process {i}", overflow="fold")
        marks = {d.position: d.kind for d in result.divergences}
        for pos in range(start, stop):
            cells = [compile_text(sequences[i][pos]) if pos < len(sequences[i]) else "-" for i in ps]
            mark = f" ({marks[pos]} divergence)" if pos in marks else ""
            s.add_row(f"{pos + 1}{mark}", *map(escape, cells))
        console.print(s)
    for line in result.skipped[:MAX_SKIPPED_SHOWN]:
        console.print(f"[dim]skipped {escape(line)}[/dim]")
    if len(result.skipped) > MAX_SKIPPED_SHOWN:  # a directory of unrelated files: a count, not a page each
        more = len(result.skipped) - MAX_SKIPPED_SHOWN
        console.print(f"[dim]skipped {more:,} more file{'s' if more != 1 else ''} (--json lists every one)[/dim]")
