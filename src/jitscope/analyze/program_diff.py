"""How a function's compiled program changed between two runs (``jitscope diff``), from the normalised texts.

Input per run: the compile events (with ``fingerprint`` / ``constants_blind_fingerprint``) and the
run's program table (fingerprint -> an entry with ``constants``, ``constants_total``,
``constants_blind_fingerprint`` and ``lines()``, the constants-blind normalised StableHLO: see
``collect/program_text.py``; any object with those works, this module imports no collector).

A function (matched across the runs by ``run_identity``, as ``run_diff`` does) is reported when B compiled
a program A never had. Each such B program is paired with an A program of the function: first one with
the same constants-blind fingerprint (then the two differ **only in constants**, and the constants'
values in A and B are named), else the next A program that B lacks, in compile order. A B program with
no such partner is an extra compile next to all of A's programs (a new shape): ``run_diff``'s recompile
causes explain it, and it is not repeated here.
For a structural difference the first differing line of the normalised texts is shown from each side,
with the constants' values put back (``%3 = stablehlo.multiply %2, %arg0 : tensor<8xf32>``).

This is what a persistent-cache miss whose changed key component is "the computation" means
(``analyze/cache_diff.py`` names the component; ``explain`` here says how the program changed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .._serde import Record
from ..model import CompileEvent, Location
from .run_identity import FunctionMatch, match_functions

MAX_LINE_CHARS = 240  # a differing line as shown
MAX_CHANGES_PER_FUNCTION = 3

__all__ = ["ConstantChange", "ProgramChange", "compare_runs", "explain"]


class ProgramEntry(Protocol):
    """What this module reads of a run's program table entry (``collect.program_text.ProgramText``)."""

    fingerprint: str
    constants_blind_fingerprint: str
    constants: list[str]
    constants_total: int

    def lines(self) -> list[str] | None: ...


@dataclass
class ConstantChange(Record):
    """One literal constant whose value differs: its position among the program's constants, A's and B's value."""

    position: int
    a: str
    b: str


@dataclass
class ProgramChange(Record):
    """One of a function's programs in run B against the program of run A it is closest to."""

    function: str
    definition: Location | None = None
    # "constants_only" (the same program but for literal constants) or "differs" (the first differing line
    # is named when both texts were kept)
    status: str = "differs"
    fingerprint_a: str | None = None
    fingerprint_b: str | None = None
    line: int | None = None  # 1-based line of the first difference in the normalised text
    first_a: str = ""  # that line in A and in B (constants filled in); "" when a text was not kept
    first_b: str = ""
    constants: list[ConstantChange] = field(default_factory=list)
    note: str = ""  # what could not be said, and why

    def summary(self) -> str:
        """One line: what changed."""
        if self.status == "constants_only":
            if not self.constants:
                return "differs only in constants" + (f" ({self.note})" if self.note else "")
            vals = ", ".join(f"{c.a} in A, {c.b} in B" for c in self.constants[:3])
            more = f" and {len(self.constants) - 3} more" if len(self.constants) > 3 else ""
            return f"differs only in constants: {vals}{more}"
        if self.first_a or self.first_b:
            return f"first differing op (line {self.line}): A `{self.first_a}`, B `{self.first_b}`"
        return "the program differs" + (f" ({self.note})" if self.note else "")


def _value(short: str) -> str:
    return short.rpartition(" : ")[0] or short


def _filled(lines: list[str], constants: Sequence[str]) -> list[str]:
    """The lines with each ``dense<#k>`` placeholder replaced by its constant's value (in order)."""
    out, k = [], 0
    for ln in lines:
        while "dense<#k>" in ln:
            v = _value(constants[k]) if k < len(constants) else "?"
            ln = ln.replace("dense<#k>", f"dense<{v}>", 1)
            k += 1
        out.append(ln)
    return out


def _cut(line: str) -> str:
    line = line.strip()
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS - 3] + "..."


def explain(function: str, definition: Location | None, a: ProgramEntry | None,
            b: ProgramEntry | None) -> ProgramChange:
    """How program ``b`` (run B) differs from program ``a`` (run A) of one function."""
    if b is None or a is None:
        return ProgramChange(function, definition, "differs", a.fingerprint if a else None,
                             b.fingerprint if b else None,
                             note=f"run {'A' if a is None else 'B'}'s program table does not have it")
    change = ProgramChange(function, definition, "differs", a.fingerprint, b.fingerprint)
    if a.constants_blind_fingerprint == b.constants_blind_fingerprint:
        change.status = "constants_only"
        change.constants = [ConstantChange(i, x, y) for i, (x, y) in enumerate(zip(a.constants, b.constants))
                            if x != y]
        if not change.constants:
            change.note = (f"the values differ beyond the first {len(a.constants)} constants kept"
                           if a.constants_total > len(a.constants) else "values too long to tell apart")
    la, lb = a.lines(), b.lines()
    if la is None or lb is None:
        change.note = change.note or "a normalised text was not kept (over the size limit)"
        return change
    fa, fb = _filled(la, a.constants), _filled(lb, b.constants)
    for i, (x, y) in enumerate(zip(fa, fb)):
        if x != y:
            change.line, change.first_a, change.first_b = i + 1, _cut(x), _cut(y)
            return change
    if len(fa) != len(fb):
        i = min(len(fa), len(fb))
        change.line = i + 1
        change.first_a = _cut(fa[i]) if i < len(fa) else "(end of program)"
        change.first_b = _cut(fb[i]) if i < len(fb) else "(end of program)"
    return change


def _fingerprints(events: Sequence[CompileEvent]) -> list[str]:
    out: list[str] = []
    for e in events:
        if e.fingerprint is not None and e.fingerprint not in out:
            out.append(e.fingerprint)
    return out


def compare_runs(a: Sequence[CompileEvent], programs_a: Mapping[str, ProgramEntry],
                 b: Sequence[CompileEvent], programs_b: Mapping[str, ProgramEntry],
                 matches: Sequence[FunctionMatch] | None = None) -> list[ProgramChange]:
    """Per function compiled in both runs, each B program A never had, explained against A's closest.

    ``matches``: the functions paired across the runs (``run_identity.match_functions``), if known."""
    if matches is None:
        matches = match_functions(a, b)[0]
    out: list[ProgramChange] = []
    for m in matches:
        a_prints, b_prints = _fingerprints(m.a), _fingerprints(m.b)
        if not a_prints or not b_prints:
            continue  # new in B, or never fingerprinted in A: run_diff reports the function itself
        new = [p for p in b_prints if p not in a_prints]
        spare = [p for p in a_prints if p not in b_prints]
        changes = []
        for fp in new:
            pb = programs_b.get(fp)
            blind = pb.constants_blind_fingerprint if pb is not None else None
            partner = next((p for p in [*spare, *a_prints] if blind is not None and programs_a.get(p) is not None
                            and programs_a[p].constants_blind_fingerprint == blind), None)
            if partner is None and not spare:
                continue  # an extra program next to all of A's (a new shape): run_diff's recompile causes say why
            if partner is None:
                partner = spare[0]
            if partner in spare:
                spare.remove(partner)
            change = explain(m.reference.function, m.reference.definition, programs_a.get(partner), pb)
            change.fingerprint_a, change.fingerprint_b = partner, fp
            changes.append(change)
            if len(changes) >= MAX_CHANGES_PER_FUNCTION:
                break
        out += changes
    return out
