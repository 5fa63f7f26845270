"""Two runs of the same program, function by function: compiles, compile seconds and recompile causes.

Pure functions over two lists of ``CompileEvent`` (from saved watch results or events files).
A function is matched across runs by its name and the file name of its definition (not the full
path: CI checkouts live in different directories), and by definition line where one name is
defined twice in a file. Compile seconds vary from run to run, so a time change counts only when it
passes both a relative and an absolute threshold; anything smaller is reported as within noise.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from .._serde import Record
from ..model import CompileEvent, Location

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


def _key(e: CompileEvent) -> tuple[str, str, int]:
    d = e.definition
    return (e.function, os.path.basename(d.file) if d else "", d.line if d else 0)


def _group(events: Sequence[CompileEvent]) -> dict[tuple[str, str, int], list[CompileEvent]]:
    groups: dict[tuple[str, str, int], list[CompileEvent]] = defaultdict(list)
    for e in events:
        groups[_key(e)].append(e)
    return groups


def _match(a_keys: list[tuple[str, str, int]], b_keys: list[tuple[str, str, int]]) -> list[tuple]:
    """Pairs (key in A or None, key in B or None): exact (name, file, line) first, then (name, file)
    when that is unique on both sides (the definition moved because lines were added above it)."""
    pairs: list[tuple] = []
    left = [k for k in a_keys if k not in b_keys]
    right = [k for k in b_keys if k not in a_keys]
    pairs += [(k, k) for k in b_keys if k in a_keys]
    loose_a: dict[tuple[str, str], list] = defaultdict(list)
    loose_b: dict[tuple[str, str], list] = defaultdict(list)
    for k in left:
        loose_a[k[:2]].append(k)
    for k in right:
        loose_b[k[:2]].append(k)
    for name, ks in loose_b.items():
        if len(ks) == 1 and len(loose_a.get(name, ())) == 1:
            pairs.append((loose_a[name][0], ks[0]))
            left.remove(loose_a[name][0])
            right.remove(ks[0])
    pairs += [(None, k) for k in right] + [(k, None) for k in left]
    return pairs


def _causes(events: Sequence[CompileEvent]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in events:
        c = e.reason.category if e.reason else "unknown"
        out[c] = out.get(c, 0) + 1
    return out


def diff_events(a: Sequence[CompileEvent], b: Sequence[CompileEvent], *, rel: float = 0.25,
                min_seconds: float = 0.05) -> list[FunctionDelta]:
    """Per-function deltas, the largest regression (extra compiles, then extra seconds) first."""
    ga, gb = _group(a), _group(b)
    out = []
    for ka, kb in _match(list(ga), list(gb)):
        ea, eb = ga.get(ka, []) if ka else [], gb.get(kb, []) if kb else []
        ref = (eb or ea)[0]
        ca, cb = _causes(ea), _causes(eb)
        new = sorted(c for c in cb if c not in ca and c != FIRST)
        first_new = ""
        if new:
            e = next(e for e in eb if e.reason and e.reason.category in new)
            where = f" at {os.path.basename(e.call_site.file)}:{e.call_site.line}" if e.call_site else ""
            first_new = f"{e.reason.category}: {e.reason.detail}{where}" if e.reason.detail else \
                f"{e.reason.category}{where}"  # type: ignore[union-attr]
        sa, sb = sum(e.total_seconds for e in ea), sum(e.total_seconds for e in eb)
        out.append(FunctionDelta(
            function=ref.function, definition=ref.definition, compiles_a=len(ea), compiles_b=len(eb),
            seconds_a=sa, seconds_b=sb, causes_a=ca, causes_b=cb, new_causes=new,
            vanished_causes=sorted(c for c in ca if c not in cb and c != FIRST), first_new=first_new,
            time_change=time_change(sa, sb, rel, min_seconds)))
    out.sort(key=lambda d: (-(d.compiles_b - d.compiles_a), -(d.seconds_b - d.seconds_a), d.function))
    return out


def fail_on_violations(deltas: Sequence[FunctionDelta], seconds_a: float, seconds_b: float,
                       fail_on: Sequence[str], min_seconds: float) -> list[str]:
    """One line per breached ``--fail-on`` condition: ``new-compiles``, ``new-causes``, ``time:PCT``."""
    out = []
    for cond in fail_on:
        if cond == "new-compiles":
            for d in deltas:
                if d.compiles_b > d.compiles_a:
                    out.append(f"{d.function}: {d.compiles_b} compiles, was {d.compiles_a}"
                               + (f" (new cause: {d.first_new})" if d.first_new else ""))
        elif cond == "new-causes":
            for d in deltas:
                if d.new_causes:
                    out.append(f"{d.function}: new recompile cause {', '.join(d.new_causes)} ({d.first_new})")
        elif cond.startswith("time:"):
            pct = float(cond[5:].rstrip("%"))
            if time_change(seconds_a, seconds_b, pct / 100, min_seconds) == "slower":
                out.append(f"compile time {seconds_b:.3g} s, was {seconds_a:.3g} s "
                           f"(+{(seconds_b / seconds_a - 1) * 100 if seconds_a else 100:.0f}%, limit {pct:g}%)")
    return out
