"""Sentences about a ``Pessimisation`` verdict, shared by the console and HTML renderers (inspect, compare)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .._format import fmt_count, fmt_seconds
from ..analyze.pessimisation import THRESHOLD, FixGain, LineDuplication, Pessimisation
from ..model import Location

if TYPE_CHECKING:
    from ..results.compare import CompareResult


def _x(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}x"


def headline(p: Pessimisation, what: str = "the compiled program") -> str:
    """One sentence: the factor, how sure, what was compared."""
    if p.flops_factor is not None:
        s = (f"{what} does {_x(p.flops_factor)} the flops the program describes ({fmt_count(p.flops_compiled)} "
             f"after XLA's optimisation, {fmt_count(p.flops_lowered)} before)")
        if p.bytes_factor is not None:
            s += f" and {_x(p.bytes_factor)} the bytes accessed"
    else:
        s = f"{what} computes its values {_x(p.ops_factor)} over (XLA's cost model was not available)"
    if p.ops:
        s += (f"; {p.ops:,} instructions compute {p.distinct:,} distinct values ({_x(p.ops_factor)}), "
              f"{p.duplicated_ops:,} of them duplicated in {p.duplicating_fusions} of {p.fusion_count} fusions")
    if p.fires:
        s += f" [pessimised: {p.confidence}; threshold {p.threshold:g}x the flops]"
    return s


def where_text(loc: Location | None) -> str:
    """``stencil.py:5 relax``."""
    if loc is None:
        return "(no source line)"
    return f"{Path(loc.file).name}:{loc.line}{' ' + loc.function if loc.function else ''}"


def line_text(d: LineDuplication) -> str:
    """``stencil.py:5 relax: 431 instructions for 32 values (13.5x): multiply 282, add 141``."""
    where = where_text(d.location)
    ops = ", ".join(f"{op} {n}" for op, n in list(d.by_op.items())[:5])
    return f"{where}: {d.ops:,} instructions for {d.distinct:,} values ({_x(d.factor)}): {ops}"


def gain_text(g: FixGain, threshold: float = THRESHOLD) -> str:
    """The measured effect of one automatic fix, or why it was not measured."""
    if g.error:
        return f"{g.variant}: not measured ({g.error})"
    s = f"{g.variant} ({g.description}): {fmt_seconds(g.steady_s)} per call"
    if g.flops_factor is not None and g.flops_factor >= threshold:
        return (s + f" against {fmt_seconds(g.baseline_s)}, but its compiled program still does "
                f"{_x(g.flops_factor)} the flops: the fix did not stop the duplication, and the time "
                "difference is not a gain")
    if g.gain is not None:
        faster = (f"{g.gain:.1f}x faster" if g.gain >= 1.1 else f"{1 / g.gain:.1f}x slower" if 0 < g.gain <= 0.9
                  else "no time measured to compare" if g.gain <= 0 else "within 10%, no gain")
        s += f" against {fmt_seconds(g.baseline_s)}: {faster}"
    if g.flops_factor is not None:
        s += f"; its program does {_x(g.flops_factor)} the flops"
    if g.compile_s is not None and g.baseline_compile_s is not None:
        s += f"; compiles in {fmt_seconds(g.compile_s)} against {fmt_seconds(g.baseline_compile_s)}"
    return s


def compare_lines(result: CompareResult) -> list[tuple[str, Pessimisation | None]]:
    """For each jitted variant that loses per call to an un-jitted one: a sentence, and its verdict when it fired.

    A fired verdict comes with the measured fix (each faster un-jitted variant, e.g. Python calling a
    smaller jit); a quiet one says the loss is not duplicated work.
    """
    out: list[tuple[str, Pessimisation | None]] = []
    by_name = {v.name: v for v in result.variants}
    for name, p in result.pessimisation.items():
        v = by_name.get(name)
        mine = v.steady.median if v and v.steady else None
        faster = sorted((w for w in result.variants if not w.jitted and w.ok and mine and w.steady
                         and w.steady.median and w.steady.median * 1.1 < mine), key=lambda w: w.steady.median)  # type: ignore
        beaten = ", ".join(f"{w.name} ({mine / w.steady.median:.1f}x faster per call)"  # type: ignore[operator,union-attr]
                           for w in faster)
        if p.fires:
            s = f"{name} loses to {beaten}: {headline(p, 'its compiled program')}"
            out.append((s, p))
        else:
            factor = f"{p.flops_factor:.1f}x" if p.flops_factor is not None else "n/a"
            out.append((f"{name} loses to {beaten}, but its compiled program does not duplicate work "
                        f"(flops factor {factor}, ops factor {_x(p.ops_factor)}): the loss is elsewhere", None))
    return out
