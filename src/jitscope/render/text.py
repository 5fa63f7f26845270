"""Sentences built from analyzers' verdicts, shared by the console and HTML renderers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._format import fmt_number, fmt_ratio, fmt_seconds
from ..analyze.compare import BreakEven, Recommendation

if TYPE_CHECKING:
    from ..results.compare import CompareResult


def recommendation_text(rec: Recommendation) -> str:
    """One sentence built from a Recommendation's numbers."""
    if rec.runner_up is None:
        return f"only {rec.best} was measured successfully"
    if rec.calls is None:
        s = (f"steady state: {rec.best} is fastest per call ({fmt_seconds(rec.best_total_s)}), "
             f"{fmt_ratio(rec.ratio)} faster than {rec.runner_up} ({fmt_seconds(rec.runner_up_total_s)})")
        if rec.best_from_call > 1:
            s += f"; counting its first call it is the best choice from call {rec.best_from_call} on"
        return s
    s = (f"for {rec.calls} call{'s' if rec.calls != 1 else ''}: use {rec.best} "
         f"({fmt_seconds(rec.best_total_s)} in total), {fmt_ratio(rec.ratio)} less than {rec.runner_up} "
         f"({fmt_seconds(rec.runner_up_total_s)}, {fmt_seconds(rec.saving_s)} more)")
    if rec.best_from_call > 1 and rec.best_until_call is not None:
        s += (f"; {rec.best} is the best choice for {rec.best_from_call} to {rec.best_until_call} calls, "
              f"{rec.overtaken_by} beyond")
    elif rec.best_from_call > 1:
        s += f"; {rec.best} is the best choice from call {rec.best_from_call} on"
    elif rec.best_until_call is not None:
        n = rec.best_until_call
        s += f"; beyond {n} call{'s' if n != 1 else ''} {rec.overtaken_by} wins"
    else:
        s += f"; {rec.best} wins from the first call"
    return s


def break_even_cell(name: str, reference: str | None, table: list[BreakEven]) -> str:
    """How ``name`` fares against the reference over a growing number of calls, in a few words."""
    if reference is None or name == reference:
        return "-"
    for be in table:
        if {be.faster, be.slower} != {name, reference}:
            continue
        if be.faster == name:
            return "wins from call 1" if be.break_even_calls is None else f"wins from call {be.faster_from_call:,}"
        if be.break_even_calls is None:
            return "never wins"
        return f"loses from call {be.faster_from_call:,}"
    return "-"


def numerics_lines(result: CompareResult) -> list[str]:
    """One line per output that is not equal to the reference's."""
    lines = []
    for d in result.numerics:
        if d.status == "differs":
            lines.append(f"{d.candidate} differs from {d.reference}: max abs error {fmt_number(d.max_abs_error)}, "
                         f"max rel error {fmt_number(d.max_rel_error)} (tolerance rtol={d.rtol:g}, atol={d.atol:g})")
        elif d.status == "mismatch":
            lines.append(f"{d.candidate} does not match {d.reference}: {d.detail}")
    return lines


def fmt_value(value: Any, unit: str) -> str:
    """Format one cell of a case study table by its column's unit."""
    if value is None:
        return "-"
    if unit and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return str(value)  # a table cell is any scalar (rows are free-form): a non-number in a number column as is
    if unit == "s":
        return fmt_seconds(value)
    if unit == "x":
        return fmt_ratio(value)
    if unit == "int":
        return f"{int(value):,}"
    if unit == "float":
        return f"{value:.3g}"
    return str(value)
