"""Which function of run A is which function of run B: an identity that survives edits.

A pull request moves lines, so a definition line cannot tell two runs' functions apart. What stays
put is the function's module and qualified name (``__module__``, ``__qualname__``: ``train.<locals>.
<lambda>``), and the program it compiles. So a function is matched, in this order:

1. ``name``: the same module and qualified name, when that name is one definition in each run;
2. where one name is several definitions in a run (the lambdas and nested functions of one
   enclosing function share ``enclosing.<locals>.<lambda>``; a name defined twice in a module),
   ``program``: the definitions that compiled the same program (normalised StableHLO fingerprint,
   ``collect/program_text.py``; a program that differs only in constants next), then ``line``: the
   same definition line, then ``remaining``: the one definition of that name left on each side;
3. ``program`` across names: a definition left unmatched in B that compiled a program an unmatched
   definition of the same module compiled in A (a ``jax.jit`` hoisted out of its function, a
   function renamed).

Anything else is new in B or gone from B. Runs written before watch recorded modules fall back to
the file name of the definition, and runs without fingerprints to the definition line; ``notes``
says so where it mattered.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..model import CompileEvent

# One definition within a run: (module or file key, qualified name, definition line).
DefKey = tuple[str, str, int]


@dataclass
class FunctionMatch:
    """One function's compiles in run A and in run B (either side empty when the function is only in one)."""

    a: list[CompileEvent] = field(default_factory=list)
    b: list[CompileEvent] = field(default_factory=list)
    matched_by: str = ""  # "name", "program", "line", "remaining"; "" when only in one run

    @property
    def reference(self) -> CompileEvent:
        """B's first compile (A's when the function is gone from B)."""
        return (self.b or self.a)[0]


def _has_modules(events: Sequence[CompileEvent]) -> bool:
    return not events or any(e.module for e in events)


def _group(events: Iterable[CompileEvent], by_module: bool) -> dict[DefKey, list[CompileEvent]]:
    groups: dict[DefKey, list[CompileEvent]] = defaultdict(list)
    for e in events:
        file = os.path.basename(e.definition.file) if e.definition else ""
        where = (e.module or f"<file {file}>") if by_module else file
        groups[(where, e.function, e.definition.line if e.definition else 0)].append(e)
    return groups


def _prints(events: Sequence[CompileEvent]) -> tuple[set[str], set[str]]:
    return ({e.fingerprint for e in events if e.fingerprint},
            {e.constants_blind_fingerprint for e in events if e.constants_blind_fingerprint})


def _pair_by_program(left: list[DefKey], right: list[DefKey], ga: dict, gb: dict) -> list[tuple[DefKey, DefKey]]:
    """Greedy pairs of definitions that compiled the same programs (most shared first, then programs
    equal but for constants, then the nearest line); removes the paired keys from ``left``/``right``."""
    scored = []
    for ka in left:
        fa, blind_a = _prints(ga[ka])
        for kb in right:
            fb, blind_b = _prints(gb[kb])
            score = (len(fa & fb), len(blind_a & blind_b))
            if score > (0, 0):
                scored.append((score, -abs(ka[2] - kb[2]), ka, kb))
    pairs = []
    for _score, _near, ka, kb in sorted(scored, key=lambda s: (s[0], s[1]), reverse=True):
        if ka in left and kb in right:
            pairs.append((ka, kb))
            left.remove(ka)
            right.remove(kb)
    return pairs


def match_functions(a: Sequence[CompileEvent], b: Sequence[CompileEvent]) -> tuple[list[FunctionMatch], list[str]]:
    """Run A's and run B's compiles paired function by function, and notes on fallbacks that mattered.

    Matches come in B's order of first compile, then the functions gone from B in A's order.
    """
    notes: list[str] = []
    by_module = _has_modules(a) and _has_modules(b)
    if not by_module:
        old = " and ".join(r for r, ev in (("A", a), ("B", b)) if not _has_modules(ev))
        notes.append(f"run {old} has no module names (written before watch recorded them): functions are "
                     "matched by qualified name and the file name of their definition")
    ga, gb = _group(a, by_module), _group(b, by_module)
    names_a: dict[tuple[str, str], list[DefKey]] = defaultdict(list)
    names_b: dict[tuple[str, str], list[DefKey]] = defaultdict(list)
    for k in ga:
        names_a[k[:2]].append(k)
    for k in gb:
        names_b[k[:2]].append(k)

    pairs: dict[DefKey, tuple[DefKey, str]] = {}  # B's key -> (A's key, how)
    left_a: list[DefKey] = []
    left_b: list[DefKey] = []
    fingerprinted = any(e.fingerprint for e in a) and any(e.fingerprint for e in b)
    for name, kbs in names_b.items():
        kas = list(names_a.get(name, ()))
        kbs = list(kbs)
        if len(kas) == 1 and len(kbs) == 1:
            pairs[kbs[0]] = (kas[0], "name")
            continue
        if len(kas) > 1 or len(kbs) > 1:  # several definitions share the name: their programs tell them apart
            if kas and not fingerprinted and not any("no program fingerprints" in n for n in notes):
                notes.append("a run has no program fingerprints: definitions that share a qualified name "
                             "(lambdas of one function) are matched by definition line")
            for ka, kb in _pair_by_program(kas, kbs, ga, gb):
                pairs[kb] = (ka, "program")
            for kb in list(kbs):
                if kb in kas:
                    pairs[kb] = (kb, "line")
                    kas.remove(kb)
                    kbs.remove(kb)
            if len(kas) == 1 and len(kbs) == 1:
                pairs[kbs.pop()] = (kas.pop(), "remaining")
        left_a += kas
        left_b += kbs
    left_a += [k for name, ks in names_a.items() if name not in names_b for k in ks]
    by_module_a: dict[str, list[DefKey]] = defaultdict(list)
    for k in left_a:
        by_module_a[k[0]].append(k)
    for kb in list(left_b):  # a definition that moved to another name: the same program in the same module
        candidates = by_module_a.get(kb[0], [])
        for ka, kb2 in _pair_by_program(candidates, [kb], ga, gb):
            pairs[kb2] = (ka, "program")
            left_a.remove(ka)

    out = []
    for kb, events_b in gb.items():
        if kb in pairs:
            ka, how = pairs[kb]
            out.append(FunctionMatch(ga[ka], events_b, how))
        else:
            out.append(FunctionMatch([], events_b))
    out += [FunctionMatch(ga[ka], []) for ka in ga if ka in left_a]
    return out, notes
