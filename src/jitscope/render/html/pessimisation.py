"""HTML section for a ``Pessimisation`` verdict (inspect; compare shows it per losing variant)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..pessimisation_text import gain_text, where_text
from ..pessimisation_text import headline as headline_text
from ._page import Section, esc, lesson, pre, table

if TYPE_CHECKING:
    from ...analyze.pessimisation import Pessimisation


def body(p: Pessimisation, what: str = "The compiled program", headline: bool = True) -> str:
    """The headline (unless the caller wrote it), duplicating fusions, duplicated lines, fixes and
    measured gains as HTML."""
    out = lesson(headline_text(p, what) + ".", "warn" if p.fires else "ok") if headline else ""
    if not p.fires:
        return out
    if p.fusions:
        out += f"<h3>Fusions that duplicate work ({p.duplicating_fusions} of {p.fusion_count})</h3>" + table(
            ["fusion", "kind", "for line", "ops", "duplicated ops", "copies (mean)", "duplicated by op"],
            [(f.name, f.kind, where_text(f.location) if f.location else "-", f.ops, f.duplicated_ops,
              f"{f.copies:.1f}", ", ".join(f"{k} ×{v}" for k, v in list(f.by_op.items())[:6])) for f in p.fusions],
            numeric=(3, 4, 5))
    if p.lines:
        out += "<h3>Source lines of the duplicated instructions</h3>" + table(
            ["line", "function", "instructions", "distinct values", "factor", "by op"],
            [(f"{Path(d.location.file).name}:{d.location.line}" if d.location else "-",
              (d.location.function or "") if d.location else "", d.ops, d.distinct, f"{d.factor:.1f}×",
              ", ".join(f"{k} ×{v}" for k, v in list(d.by_op.items())[:6])) for d in p.lines], numeric=(2, 3, 4))
    if p.fixes:
        out += "<h3>Fixes</h3><ol>" + "".join(
            f"<li><b>{esc(f.title)}</b>"
            + (f" (line {f.location.line})" if f.location else "") + pre(f.description) + "</li>"
            for f in p.fixes) + "</ol>"
    if p.measured:
        out += "<h3>Fixes measured</h3><ul>" + "".join(f"<li>{esc(gain_text(g, p.threshold))}</li>" for g in p.measured) + "</ul>"
    return out


def section(p: Pessimisation) -> Section:
    """The inspect page's "Pessimised fusion" section."""
    return Section("Pessimised fusion", body(p))
