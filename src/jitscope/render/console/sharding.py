"""Console section for a sharded program: per-device shapes and collectives (inspect)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape as esc

from ..sharding_text import COLLECTIVE_HEADERS, VALUE_HEADERS, collective_row, headline, value_row

if TYPE_CHECKING:
    from rich.console import Console

    from ...results.inspect import InspectResult


def render(result: InspectResult, console: Console) -> None:
    """The layout table (inputs, outputs) and the collectives table, with a one-line headline."""
    from rich.table import Table

    layout, coll = result.shard_layout, result.collectives
    devices = layout.devices if layout else (coll.partitions * coll.replicas if coll else 1)
    console.print(f"[bold]devices[/bold]: the program is split over {devices} devices")
    if layout and (layout.inputs or layout.outputs):
        t = Table(show_edge=False)
        for h in VALUE_HEADERS:
            t.add_column(h)
        for kind, values in (("in", layout.inputs), ("out", layout.outputs)):
            for v in values:
                path, shape, sharding, shard = value_row(v)
                t.add_row(esc(f"{kind} {path}"), esc(shape), esc(sharding), esc(shard))
        console.print(t)
    if coll is None:
        return
    console.print(esc(headline(coll)), soft_wrap=True)
    if coll.collectives:
        t = Table(show_edge=False)
        for i, h in enumerate(COLLECTIVE_HEADERS):
            t.add_column(h, justify="right" if i in (4, 5) else "left")
        for c in coll.collectives[:20]:
            t.add_row(*[esc(str(x)) for x in collective_row(c)])
        console.print(t)
        if len(coll.collectives) > 20:
            console.print(f"  ... {len(coll.collectives) - 20} more collectives")
