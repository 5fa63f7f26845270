"""Two runs of the same program, function by function: compiles, compile seconds and recompile causes.

Pure functions over two lists of ``CompileEvent`` (from saved watch results or events files).
A function is matched across runs by module and qualified name, and where a name is several
definitions (lambdas of one function) by the program it compiled (``run_identity.py``), never by
definition line alone: a pull request moves lines. Compile seconds vary from run to run, so a time
change counts only when it passes both a relative and an absolute threshold; anything smaller is
reported as within noise.

``--fail-on`` gates only on regressions of a code path both runs have: a recompile cause B has and
A had not, more recompiles of one function, the compile seconds of the functions in both runs past
noise. Fewer compiles is an improvement, and a function new in B breaks nothing by compiling once
(its recompiles, and their causes, still count).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from .._serde import Record
from ..model import CompileEvent, Location
from .run_identity import FunctionMatch, match_functions

FIRST = "first_compile"


@dataclass
class FunctionDelta(Record):
    """One function's compiles in run A against run B."""

    function: str
    definition: Location | None = None  # run B's (run A's when the function vanished)
    compiles_a: int = 0
    compiles_b: int = 0
    seconds_a: float = 0.0
    seconds_b: float = 0.0
    causes_a: dict[str, int] = field(default_factory=dict)  # reason category -> compiles
    causes_b: dict[str, int] = field(default_factory=dict)
    new_causes: list[str] = field(default_factory=list)  # recompile causes in B that A never had
    vanished_causes: list[str] = field(default_factory=list)
    first_new: str = ""  # B's first compile with a new cause: its detail and call site
    time_change: str = "within_noise"  # "slower", "faster" or "within_noise"
    module: str | None = None  # the function's __module__ (B's; A's when gone from B), None where not recorded
    # how A's function was found (run_identity.py): "name", "program", "line", "remaining"; "" when in one run only
    matched_by: str = ""
    function_a: str | None = None  # A's qualified name, where it differs (a lambda hoisted out of its function)

    @property
    def recompiles_a(self) -> int:
        """A's compiles that were not a first compile (of the function, or of it under a transformation)."""
        return self.compiles_a - self.causes_a.get(FIRST, 0)

    @property
    def recompiles_b(self) -> int:
        return self.compiles_b - self.causes_b.get(FIRST, 0)

    @property
    def regressed(self) -> bool:
        """B recompiles this function more often than A, or for a cause A never had."""
        return self.recompiles_b > self.recompiles_a or bool(self.new_causes)

    @property
    def status(self) -> str:
        """``new``, ``vanished``, ``more_compiles``, ``fewer_compiles``, ``slower``, ``faster`` or ``same``."""
        if not self.compiles_a:
            return "new"
        if not self.compiles_b:
            return "vanished"
        if self.compiles_b != self.compiles_a:
            return "more_compiles" if self.compiles_b > self.compiles_a else "fewer_compiles"
        return self.time_change if self.time_change != "within_noise" else "same"


def time_change(a: float, b: float, rel: float, min_seconds: float) -> str:
    """``slower``/``faster`` when ``b`` differs from ``a`` by more than ``rel`` (a fraction) *and*
    ``min_seconds``; else ``within_noise``."""
    if abs(b - a) <= min_seconds:
        return "within_noise"
    if b > a * (1 + rel):
        return "slower"
    if b < a / (1 + rel):
        return "faster"
    return "within_noise"


def _causes(events: Sequence[CompileEvent]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in events:
        c = e.reason.category if e.reason else "unknown"
        out[c] = out.get(c, 0) + 1
    return out


def diff_events(a: Sequence[CompileEvent], b: Sequence[CompileEvent], *, rel: float = 0.25,
                min_seconds: float = 0.05, matches: Sequence[FunctionMatch] | None = None) -> list[FunctionDelta]:
    """Per-function deltas, the largest regression (extra compiles, then extra seconds) first.

    ``matches``: the functions paired across the runs (``run_identity.match_functions``), when the
    caller has them already."""
    if matches is None:
        matches = match_functions(a, b)[0]
    out = []
    for m in matches:
        ea, eb, ref = m.a, m.b, m.reference
        ca, cb = _causes(ea), _causes(eb)
        new = sorted(c for c in cb if c not in ca and c != FIRST)
        first_new = ""
        if new:
            e = next(e for e in eb if e.reason and e.reason.category in new)
            where = f" at {os.path.basename(e.call_site.file)}:{e.call_site.line}" if e.call_site else ""
            first_new = f"{e.reason.category}: {e.reason.detail}{where}" if e.reason.detail else \
                f"{e.reason.category}{where}"  # type: ignore[union-attr]
        sa, sb = sum(e.total_seconds for e in ea), sum(e.total_seconds for e in eb)
        renamed = ea[0].function if ea and eb and ea[0].function != eb[0].function else None
        out.append(FunctionDelta(
            function=ref.function, definition=ref.definition, compiles_a=len(ea), compiles_b=len(eb),
            seconds_a=sa, seconds_b=sb, causes_a=ca, causes_b=cb, new_causes=new,
            vanished_causes=sorted(c for c in ca if c not in cb and c != FIRST), first_new=first_new,
            time_change=time_change(sa, sb, rel, min_seconds), module=ref.module, matched_by=m.matched_by,
            function_a=renamed))
    out.sort(key=lambda d: (-d.regressed, -(d.compiles_b - d.compiles_a), -(d.seconds_b - d.seconds_a), d.function))
    return out


def in_both(deltas: Sequence[FunctionDelta]) -> tuple[int, float, float]:
    """How many functions both runs compiled, and those functions' compile seconds in A and in B."""
    both = [d for d in deltas if d.compiles_a and d.compiles_b]
    return len(both), sum(d.seconds_a for d in both), sum(d.seconds_b for d in both)


def fail_on_violations(deltas: Sequence[FunctionDelta], fail_on: Sequence[str], min_seconds: float) -> list[str]:
    """One line per breached ``--fail-on`` condition, each a regression of a code path both runs have.

    ``new-compiles``: a function B recompiles more often than A did (a function new in B: any
    recompile; its first compile is new code, not a regression). ``new-causes``: a recompile cause
    B has and A had not, for that function. ``time:PCT``: the compile seconds of the functions in
    both runs up more than PCT% and ``min_seconds``. Fewer compiles never breaks anything.
    """
    out = []
    for cond in fail_on:
        if cond == "new-compiles":
            for d in deltas:
                if d.recompiles_b > d.recompiles_a:
                    cause = f" (new cause: {d.first_new})" if d.first_new else ""
                    if d.compiles_a:
                        out.append(f"{d.function}: {d.compiles_b} compiles, was {d.compiles_a}{cause}")
                    else:
                        out.append(f"{d.function} (new in B): {d.compiles_b} compiles, {d.recompiles_b} of them "
                                   f"recompiles{cause}")
        elif cond == "new-causes":
            for d in deltas:
                if d.new_causes:
                    out.append(f"{d.function}: new recompile cause {', '.join(d.new_causes)} ({d.first_new})")
        elif cond.startswith("time:"):
            pct = float(cond[5:].rstrip("%"))
            n, seconds_a, seconds_b = in_both(deltas)
            if time_change(seconds_a, seconds_b, pct / 100, min_seconds) == "slower":
                out.append(f"compile time of the {n} function{'s' if n != 1 else ''} in both runs {seconds_b:.3g} s, "
                           f"was {seconds_a:.3g} s (+{(seconds_b / seconds_a - 1) * 100 if seconds_a else 100:.0f}%, "
                           f"limit {pct:g}%)")
    return out
