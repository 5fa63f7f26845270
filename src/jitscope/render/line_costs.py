"""Sentences about the per-line compile cost shared by the console and HTML renderers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._format import fmt_seconds

if TYPE_CHECKING:
    from ..analyze.line_cost import LineCost, LineCostTotals


def estimate_note(totals: LineCostTotals | None) -> str:
    """How the compile share was estimated, in one sentence."""
    if totals is None:
        return ""
    by = ("its share of the HLO ops before optimisation" if totals.estimate == "hlo_ops"
          else "its share of the jaxpr equations (this JAX printed no source locations in the HLO)")
    if totals.seconds > 0:
        text = (f"estimated: each line's share of the measured {fmt_seconds(totals.seconds)} of trace + lower + "
                f"compile, trace seconds split by its share of equations, lower + compile by {by}")
    else:
        text = f"estimated: each line's share of the program, by {by} (no stage timings)"
    if totals.unattributed_share >= 0.005:
        text += f"; {totals.unattributed_share:.0%} has no source line"
    return text + "."


def short_file(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def by_source_line(lines: list[LineCost]) -> dict[tuple[str, int], LineCost]:
    """One record per ``(file, line)``: a lambda or comprehension on a line shares it with its enclosing
    function (two records, two functions); their own numbers add up, the multiplicity is the larger."""
    from dataclasses import replace

    out: dict[tuple[str, int], LineCost] = {}
    for r in lines:
        key = (r.file, r.line)
        m = out.get(key)
        if m is None:
            out[key] = replace(r)
            continue
        m.equations += r.equations
        m.hlo_ops += r.hlo_ops
        m.optimized_ops += r.optimized_ops
        m.compile_seconds += r.compile_seconds
        m.compile_share += r.compile_share
        m.multiplicity = max(m.multiplicity, r.multiplicity)
        m.total_equations = max(m.total_equations, r.total_equations)
        m.total_compile_share = max(m.total_compile_share, r.total_compile_share)
    return out


def top_lines(lines: list[LineCost], n: int = 10) -> list[LineCost]:
    """The ``n`` costliest lines that hold any of the program."""
    return [r for r in lines if r.equations or r.hlo_ops or r.optimized_ops][:n]
