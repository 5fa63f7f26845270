"""Console section for a ``Pessimisation`` verdict (inspect; compare names it per losing variant)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape as esc

from ..pessimisation_text import gain_text, headline, line_text, where_text

if TYPE_CHECKING:
    from rich.console import Console

    from ...analyze.pessimisation import Pessimisation


def render(p: Pessimisation, console: Console, what: str = "the compiled program", indent: str = "",
           details_only: bool = False, brief: bool = False) -> None:
    """The factor, the duplicating fusions, the source lines, the fixes and their measured gains
    (``details_only``: without the headline, which the caller printed; ``brief``: three fusions and
    the fixes' titles only)."""
    style = "bold yellow" if p.fires else "bold"
    if not details_only:
        console.print(f"{indent}[{style}]pessimised fusion[/{style}]: {esc(headline(p, what))}", soft_wrap=True)
    if not p.fires:
        return
    for f in p.fusions[:3 if brief else 5]:
        ops = ", ".join(f"{op} {n}" for op, n in list(f.by_op.items())[:5])
        console.print(esc(f"{indent}  {f.name} ({f.kind}{', for ' + where_text(f.location) if f.location else ''}): "
                          f"{f.ops} ops, {f.duplicated_ops} also computed elsewhere "
                          f"({f.copies:.1f} copies each on average): {ops}"), soft_wrap=True)
    shown = min(len(p.fusions), 3 if brief else 5)
    if shown < p.duplicating_fusions:
        console.print(f"{indent}  ... {p.duplicating_fusions - shown} more fusions with duplicated work")
    if p.lines:
        console.print(f"{indent}  duplicated source lines:")
        for d in p.lines[:5]:
            console.print(esc(f"{indent}    {line_text(d)}"), soft_wrap=True)
    for i, fix in enumerate(p.fixes, 1):
        where = f" ({fix.location.file.rsplit('/', 1)[-1]}:{fix.location.line})" if fix.location else ""
        console.print(esc(f"{indent}  fix {i}: {fix.title}{where}"), soft_wrap=True)
        for line in [] if brief else fix.description.splitlines():
            console.print(esc(f"{indent}      {line}"), soft_wrap=True)
    for g in p.measured:
        console.print(esc(f"{indent}  measured: {gain_text(g, p.threshold)}"), soft_wrap=True)
