"""Shared pieces of the gallery: sampling budgets and sentence fragments built from numbers."""

from __future__ import annotations

from dataclasses import dataclass

from .._format import faster_by as faster_by
from .._format import fmt_ratio, fmt_seconds
from ..analyze.compare import BreakEven, Costs, apart
from ..results.compare import CompareResult, VariantResult


@dataclass(frozen=True)
class Budget:
    """Steady-state sampling per variant: seconds and minimum samples."""

    budget_s: float
    min_samples: int


QUICK = Budget(0.05, 3)
FULL = Budget(0.25, 5)


def budget(quick: bool) -> Budget:
    """The sampling budget for quick or full runs."""
    return QUICK if quick else FULL


def steady(r: CompareResult, name: str) -> float:
    """Steady median of variant ``name`` (raises if it failed: a lesson needs its numbers)."""
    v = r.variant(name)
    if v.steady is None or v.steady.median is None:
        raise RuntimeError(f"variant '{name}' was not measured: {v.error}")
    return v.steady.median


def first(r: CompareResult, name: str) -> float:
    """First-call seconds of variant ``name`` (raises if it failed)."""
    v = r.variant(name)
    if v.first_call is None or v.first_call.median is None:
        raise RuntimeError(f"variant '{name}' was not measured: {v.error}")
    return v.first_call.median


def fastest(r: CompareResult, names: list[str] | None = None) -> VariantResult:
    """The measured variant with the lowest steady median (among ``names`` if given)."""
    cands = [v for v in r.variants if v.ok and (names is None or v.name in names)]
    if not cands:
        raise RuntimeError("no variant was measured")
    return min(cands, key=lambda v: v.steady.median)  # type: ignore[union-attr,return-value]


def leaders(r: CompareResult, names: list[str] | None = None) -> list[str]:
    """The fastest variant and every variant within noise of it, fastest first, by the rule compare's
    own verdicts use (``analyze.compare.apart``, per call): a lesson names them all instead of
    crowning a winner that a rerun could change."""
    best = fastest(r, names)
    best_costs = Costs.of(best)
    tied = [v for v in r.variants if v.ok and v is not best and (names is None or v.name in names)
            and not apart(Costs.of(v), best_costs)]
    return [best.name] + [v.name for v in sorted(tied, key=lambda v: v.steady.median)]  # type: ignore[union-attr]


def is_apart(r: CompareResult, a: str, b: str) -> bool:
    """Whether compare's noise rule (``apart``, per call) tells variants ``a`` and ``b`` apart."""
    return apart(Costs.of(r.variant(a)), Costs.of(r.variant(b)))


def versus(r: CompareResult, new: str, old: str) -> str:
    """How ``new`` compares with ``old`` per call, by compare's own noise rule (``apart``): "3.2x faster",
    "2.5x slower", or "within noise of it (1.06x)" so a lesson never calls a difference the table calls noise."""
    ratio = steady(r, old) / steady(r, new)
    if not is_apart(r, new, old):
        return f"within noise ({fmt_ratio(max(ratio, 1 / ratio))} apart)"
    return faster_by(ratio)


def leaders_phrase(names: list[str], what: str = "fastest") -> str:
    """ "jit(g) is fastest" or "jit(g) and jit(both) are fastest (within noise of each other)". """
    if len(names) == 1:
        return f"{names[0]} is {what}"
    listed = ", ".join(names[:-1]) + f" and {names[-1]}"
    return f"{listed} are {what} (within noise of each other)"


def pair(r: CompareResult, a: str, b: str) -> BreakEven | None:
    """The break-even row of variants ``a`` and ``b`` (None if either failed)."""
    for be in r.break_even:
        if {be.faster, be.slower} == {a, b}:
            return be
    return None


def payback(r: CompareResult, a: str, b: str) -> str:
    """When ``a`` overtakes ``b`` counting first calls, in words."""
    be = pair(r, a, b)
    if be is None:
        return ""
    if be.faster == a:
        if be.break_even_calls is None:
            return (f"{a} is ahead from the first call (first call {fmt_seconds(first(r, a))} vs "
                    f"{fmt_seconds(first(r, b))})")
        return (f"{a}'s first call costs {fmt_seconds(first(r, a))} vs {fmt_seconds(first(r, b))}, "
                f"so it is ahead in total from call {be.faster_from_call:,}")
    if be.break_even_calls is None:
        return (f"{a} never catches up with {b} (first call {fmt_seconds(first(r, a))} vs "
                f"{fmt_seconds(first(r, b))})")
    return (f"{a} is ahead only up to call {be.faster_from_call - 1:,} (first call {fmt_seconds(first(r, a))} "
            f"vs {fmt_seconds(first(r, b))})")
