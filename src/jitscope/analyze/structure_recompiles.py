"""JW409 ``structure-recompile``: one jitted function compiled again at one call site inside a loop because an
argument's pytree structure changed between calls (an optional field ``None`` at first and an array later, a
dict that gained a key, a list that grew).

jit keys its cache on each argument's tree structure (the treedef: containers, their keys and aux data, and
``None``, which is an empty subtree and no leaf), so a structure change compiles anew whether or not the new
program differs: ``None -> f32[16]`` adds an input, and the two compiles build different programs, which is why
JW403 (equal programs) cannot see it. What makes it a pitfall rather than two programs by design is where the
variation came from: both compiles were called from the same line, inside a loop, so an iteration's data changed
the structure (a state filled in by the first step), not the program's structure (two call sites, a train and an
eval step, are two programs on purpose). Each new structure the loop produces compiles once more, and a value that
flips back and forth keeps both executables alive.

Read from the run's compile records (each ``CompileEvent``'s ``ArgSignature.treedef``, printed per argument,
and its leaves): the arguments whose structure differs from the previous compile at that line, named with what
they held before and after (``extra: None -> f32[16]``). Equal programs are left to JW403, which names the same
key difference; compiles called from test files are left out (a test chooses its arguments, as for JW405), and
under pytest compiles pair within one test only.

``certain`` about the recompile and its cause (the recorded signatures differ in the treedef); ``warning``: one
extra compile can be cheap, and the fix (fill the optional field with an array from the start, or keep the
structure fixed) is the user's call.
"""

from __future__ import annotations

import re
from collections import defaultdict

from .._format import fmt_seconds
from ..jaxmodel import fixes
from ..jaxmodel.deliberate import is_test_file
from ..model import CompileEvent, Fix
from .runtime_findings import RuntimeFinding, _source

_ARG = re.compile(r"^([A-Za-z_][\w.\[\]'\"]*): PyTreeDef\(", re.M)


def per_argument(treedef: str) -> dict[str, str]:
    """The treedef text of each top-level argument (``ArgSignature.treedef`` prints one ``name: PyTreeDef(...)``
    per argument; metadata may span lines)."""
    starts = [(m.start(), m.group(1)) for m in _ARG.finditer(treedef)]
    out = {}
    for i, (at, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(treedef)
        out[name] = treedef[at + len(name) + 2:end].strip()
    return out


def _leaves(event: CompileEvent, name: str) -> dict[str, str]:
    return {x.path: x.short() for x in event.signature.leaves  # type: ignore[union-attr]
            if x.path == name or x.path.startswith((name + "[", name + "."))}


def _change(before: CompileEvent, after: CompileEvent, name: str, a: str, b: str) -> str:
    """How argument ``name``'s structure changed, in a few words: the leaves that appeared or went, each from or to
    ``None`` where the treedef lost or gained a ``None`` (``state['m']: None -> f32[16]``), else both treedefs."""
    old, new = _leaves(before, name), _leaves(after, name)
    added = [p for p in new if p not in old]
    gone = [p for p in old if p not in new]
    nones = a.count("None") - b.count("None")
    if added and not gone:
        empty = "None" if nones > 0 else "absent"
        return "; ".join(f"{p}: {empty} -> {new[p]}" for p in added[:2]) + (" ..." if len(added) > 2 else "")
    if gone and not added:
        empty = "None" if nones < 0 else "absent"
        return "; ".join(f"{p}: {old[p]} -> {empty}" for p in gone[:2]) + (" ..." if len(gone) > 2 else "")
    return f"{name}: {_short(a)} -> {_short(b)}"


def _short(tree: str) -> str:
    tree = " ".join(tree.split())
    return tree if len(tree) <= 60 else tree[:57] + "..."


def structure_findings(events: list[CompileEvent]) -> list[RuntimeFinding]:
    """JW409 for each call site inside a loop whose compiles of one function object changed an argument's tree
    structure (module docstring)."""
    from .recompile_patterns import _group_key

    sites: dict[tuple, list[CompileEvent]] = defaultdict(list)
    for e in events:
        if e.signature is None or e.call_site is None or is_test_file(e.call_site.file):
            continue
        sites[(_group_key(e), e.function_id, e.call_site.file, e.call_site.line, e.test)].append(e)
    out = []
    for evs in sites.values():
        if len(evs) < 2 or not _in_loop(evs[0]):
            continue
        changes: list[tuple[CompileEvent, list[str]]] = []
        for before, after in zip(evs, evs[1:], strict=False):
            a, b = per_argument(before.signature.treedef), per_argument(after.signature.treedef)  # type: ignore[union-attr]
            if not a or not b or a == b:
                continue
            if before.fingerprint and before.fingerprint == after.fingerprint:
                continue  # the same program: JW403 names this key difference
            changed = [_change(before, after, n, a.get(n, ""), b.get(n, ""))
                       for n in list(a) + [n for n in b if n not in a] if a.get(n) != b.get(n)]
            if changed:
                changes.append((after, changed))
        if not changes:
            continue
        first, what = changes[0]
        seconds = sum(e.total_seconds for e, _ in changes)
        loc = first.call_site
        n = len(changes)
        out.append(RuntimeFinding(
            "JW409", first.function,
            f"{first.function} compiled again at line {loc.line} because an argument changed pytree structure "  # type: ignore[union-attr]
            f"between calls ({'; '.join(what[:3])}): {n} extra compile{'s' if n != 1 else ''} "
            f"({fmt_seconds(seconds)}), one for each structure the loop produces", "warning", loc,
            Fix(fixes.STABLE_STRUCTURE.title, fixes.STABLE_STRUCTURE.why, location=loc),
            compile_index=first.index, timestamp=first.timestamp, seconds=seconds, source=_source(loc),
            details={"changed": what, "extra_compiles": n, "compiles": len(evs),
                     "key_difference": "pytree structure",
                     "evidence": "compiles of one function object from one call site inside a loop whose recorded "
                                 "argument treedefs differ (jit's cache key includes the tree structure)"}))
    return out


def _in_loop(event: CompileEvent) -> bool:
    from .bloat_source import _enclosing_loop

    site = event.call_site
    return site is not None and _enclosing_loop(site.file, site.line, site.line) is not None
