"""HTML section for a sharded program: per-device shapes and collectives (inspect)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..sharding_text import COLLECTIVE_HEADERS, FORMULA_NOTE, VALUE_HEADERS, collective_row, headline, value_row
from ._page import Section, esc, lesson, table

if TYPE_CHECKING:
    from ...results.inspect import InspectResult


def section(result: InspectResult) -> Section:
    """"Devices": the layout of inputs and outputs, then every collective with its source line."""
    layout, coll = result.shard_layout, result.collectives
    devices = layout.devices if layout else (coll.partitions * coll.replicas if coll else 1)
    body = f"<p>The program is split over {devices} devices.</p>"
    if layout and (layout.inputs or layout.outputs):
        rows = [(f"{kind} {v.path}", *value_row(v)[1:]) for kind, values in (("in", layout.inputs),
                                                                              ("out", layout.outputs))
                for v in values]
        body += table(VALUE_HEADERS, rows)
    if coll is not None:
        resharding = coll.by_origin.get("resharding", 0)
        body += lesson(headline(coll), "warn" if resharding else "ok")
        if coll.collectives:
            body += "<h3>Collectives</h3>" + table(COLLECTIVE_HEADERS, [collective_row(c) for c in coll.collectives],
                                                  numeric=(4, 5))
            body += f"<p>{esc(FORMULA_NOTE)}</p>"
        if coll.constraints:
            body += "<p>with_sharding_constraint at " + esc(", ".join(
                f"line {loc.line}" for loc in coll.constraints)) + ".</p>"
    return Section("Devices", body)
