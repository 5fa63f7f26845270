"""Graph bloat: runs of repeated equation patterns, traced to the user's source line.

An unrolled Python loop, builtin ``sum``/``max``/``min`` over an array, or a comprehension
leaves the same few equations in the jaxpr once per element (seed 003: ``sum`` over 6400
elements is 6400 x ``slice, squeeze, add``). Compile time then grows with the element count.

How (linear time, no pairwise comparisons):

1. Each equation gets a key: primitive name, output shapes/dtypes, and the user's call stack
   (file, line) from its source info (``_jaxcompat.StackCache``, cached per traceback). Keys
   are interned to small integers.
2. Per jaxpr body, keys are ranked by frequency. For a frequent key, its positions give the
   period ``p`` (the most common distance between occurrences); the longest chain of
   occurrences exactly ``p`` apart seeds a run, which is then extended while
   ``key[i] == key[i - p]``. Each run's equations are consumed, so each position is claimed once.
3. A run is attributed to the deepest frame its equations share; the source at that frame
   (read with ``ast``) says what built it: a builtin reduction call, a ``for``/``while``
   loop, or a comprehension. Whether each repeat consumes the previous one's outputs
   (``carried``) decides between ``lax.fori_loop``/``lax.scan`` and ``vmap``.
"""

from __future__ import annotations

import ast
import linecache
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from .._serde import Record
from ..jaxmodel import fixes
from ..model import Fix, Location
from .bloat_source import BUILTIN_REDUCTIONS, _enclosing_loop, _nested_loops, _reduction_text, _tree

MIN_REPEATS = 8
MIN_EQUATIONS = 24


@dataclass
class BloatRun(Record):
    """One run of a repeated equation pattern."""

    kind: str  # "builtin_reduction" | "python_loop" | "comprehension" | "repeated_pattern"
    repeats: int
    pattern_size: int  # equations per repeat
    equations: int  # repeats * pattern_size
    share: float  # fraction of all equations in the program
    pattern: list[str] = field(default_factory=list)  # primitive names of one repeat
    carried: bool = False  # each repeat consumes the previous repeat's outputs
    body: str = ""  # "" for the top level, else the nesting path (e.g. "scan")
    location: Location | None = None
    source: str = ""  # the source line(s) responsible
    construct: str = ""  # e.g. "sum(...)", "for loop at line 12"
    fix: Fix | None = None


def _out_sig(eqn: Any) -> tuple:
    # dtype objects hash fast; str(dtype) is the slowest thing in the whole detector.
    return tuple((getattr(v.aval, "shape", None), getattr(v.aval, "dtype", None)) for v in eqn.outvars)


def _find_runs(keys: list[int], min_repeats: int, min_equations: int) -> list[tuple[int, int, int]]:
    """(start, end, period) of periodic runs in ``keys``; linear in ``len(keys)`` in practice."""
    n = len(keys)
    occ: dict[int, list[int]] = defaultdict(list)
    for i, k in enumerate(keys):
        occ[k].append(i)
    consumed = bytearray(n)
    runs = []
    for _key, positions in sorted(occ.items(), key=lambda kv: -len(kv[1])):
        if len(positions) < min_repeats:
            break
        pos = [i for i in positions if not consumed[i]]
        if len(pos) < min_repeats:
            continue
        for m in (1, 2, 3):  # a key may occur m times per repeat
            if len(pos) <= m:
                break
            period = Counter(pos[i + m] - pos[i] for i in range(len(pos) - m)).most_common(1)[0][0]
            # Longest chain of occurrences exactly `period` apart (among every m-th).
            best_len, best_start, cur_len, cur_start = 0, 0, 1, 0
            for i in range(m, len(pos)):
                if pos[i] - pos[i - m] == period:
                    cur_len += 1
                else:
                    cur_len, cur_start = 1, i
                if cur_len > best_len:
                    best_len, best_start = cur_len, cur_start
            if best_len < 2:
                continue
            start = pos[best_start]
            end = start + period
            while end < n and not consumed[end] and keys[end] == keys[end - period]:
                end += 1
            while start > 0 and not consumed[start - 1] and start - 1 + period < n \
                    and keys[start - 1] == keys[start - 1 + period]:
                start -= 1
            repeats = (end - start) // period
            if repeats < min_repeats or repeats * period < min_equations:
                continue
            end = start + repeats * period
            for i in range(start, end):
                consumed[i] = 1
            runs.append((start, end, period))
            break
    runs.sort()
    return runs


def _carried(eqns: list[Any], start: int, period: int) -> bool:
    """Does the second repeat read an output of the first?"""
    from .._jaxcompat import is_literal

    outs = {v for e in eqns[start:start + period] for v in e.outvars}
    return any(not is_literal(v) and v in outs
               for e in eqns[start + period:start + 2 * period] for v in e.invars)


def _classify(frames: list[tuple], lines: set[tuple[str, int]]) -> tuple[str, ast.AST | None, str, tuple | None]:
    """(kind, node, builtin name, anchor frame) from the source around the run's common frames."""
    for fr in reversed(frames):  # deepest first: a builtin reduction call at that exact spot
        tree = _tree(fr[0])
        if tree is None:
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node, "lineno", None) == fr[2]
                    and node.col_offset == fr[3] and isinstance(node.func, (ast.Name, ast.Attribute))):
                name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
                if name in BUILTIN_REDUCTIONS:
                    return "builtin_reduction", node, name, fr
    # Otherwise the innermost loop or comprehension enclosing the deepest shared frame that has one.
    for fr in reversed(frames):
        node = _enclosing_loop(fr[0], fr[2], fr[4] or fr[2])
        if node is not None:
            return _loop_kind(node), node, "", fr
    files = {f for f, _ in lines}
    if not frames and len(files) == 1:  # a multi-line body in the traced function itself
        file = next(iter(files))
        node = _enclosing_loop(file, min(ln for _, ln in lines), max(ln for _, ln in lines))
        if node is not None:
            return _loop_kind(node), node, "", None
    return "repeated_pattern", None, "", frames[-1] if frames else None


def _loop_kind(node: ast.AST) -> str:
    return "python_loop" if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) else "comprehension"


def _fix(kind: str, builtin: str, carried: bool, node: ast.AST | None, filename: str,
         location: Location | None, run_eqns: int, pattern_size: int) -> Fix:
    if kind == "builtin_reduction":
        repl = BUILTIN_REDUCTIONS[builtin]
        text = ""
        generated = isinstance(node, ast.Call) and node.args and isinstance(
            node.args[0], (ast.GeneratorExp, ast.ListComp, ast.SetComp))
        if generated:  # sum(f(x[i]) for i in ...): vectorise the body first, then one reduction
            return Fix(f"use {repl} over a vectorised expression", f"builtin {builtin}() over a generator traces "
                       f"the body once per element ({pattern_size} equations each, {run_eqns} in all); write the "
                       f"body on whole arrays (or jax.vmap it) and reduce with {repl}.", location=location)
        text = _reduction_text(builtin, node, filename)
        suggestion = (f" Suggested replacement: {text} (builtin {builtin}() reduces over the first axis only);"
                      " check it before applying: results can differ for int8/bool dtypes (builtin sum accumulates"
                      " in the element dtype and wraps around, jnp.sum accumulates small ints in int32)."
                      if text else "")
        return Fix(f"use {repl}", f"builtin {builtin}() iterates the array element by element, adding "
                   f"{pattern_size} equations per element ({run_eqns} in all); {repl} is a single reduction."
                   + suggestion, safety="advice", replacement=text or None, location=location)
    if kind == "comprehension" or (kind == "python_loop" and not carried):
        return Fix(fixes.VECTORISE.title,
                   f"the {'comprehension' if kind == 'comprehension' else 'loop'} repeats independent work; "
                   f"jax.vmap traces the body once ({pattern_size} equations instead of {run_eqns}).",
                   location=location)
    if kind == "python_loop":
        return Fix(fixes.ROLL_LOOP.title,
                   f"the Python loop is unrolled: each iteration adds {pattern_size} equations ({run_eqns} in all) "
                   "and compile time grows with the trip count; lax.fori_loop/lax.scan trace the body once.",
                   location=location)
    return Fix("roll the repetition into lax.scan / lax.fori_loop, or vectorise it with vmap",
               f"{run_eqns} equations repeat a {pattern_size}-equation pattern.", location=location)


def detect_bloat(closed_jaxpr: Any, entry_code: Any = None, *, min_repeats: int = MIN_REPEATS,
                 min_equations: int = MIN_EQUATIONS) -> list[BloatRun]:
    """Find runs of repeated equation patterns in every body of ``closed_jaxpr``.

    ``entry_code`` is the traced function's ``__code__``: stacks are cut there so lines are the
    user's, not the caller's. Runs need at least ``min_repeats`` repeats and ``min_equations``
    equations. Sorted by size, largest first.
    """
    from .._jaxcompat import StackCache
    from .jaxpr_stats import walk_bodies

    stacks = StackCache(entry_code)
    bodies = list(walk_bodies(closed_jaxpr.jaxpr))
    total = sum(len(jx.eqns) * uses for _, jx, uses in bodies) or 1
    interned: dict[tuple, int] = {}
    line_keys: dict[int, tuple] = {}  # id(stack) -> its (file, line) pairs; stacks are cached objects
    runs: list[BloatRun] = []
    for path, jx, uses in bodies:
        eqns = jx.eqns
        if len(eqns) < min_equations:
            continue
        keys = []
        loose = []  # (primitive, lines): the key without output types, for a first iteration that differs
        eqn_stacks = []
        eqn_lines = []
        for eqn in eqns:
            st = stacks.stack(eqn)
            eqn_stacks.append(st)
            lines = line_keys.get(id(st))
            if lines is None:
                lines = line_keys[id(st)] = tuple((f[0], f[2]) for f in st)
            eqn_lines.append(lines)
            key = (eqn.primitive.name, _out_sig(eqn), lines)
            keys.append(interned.setdefault(key, len(interned)))
            loose.append(interned.setdefault((eqn.primitive.name, lines), len(interned)))
        found = _find_runs(keys, min_repeats, min_equations)
        for i, (start, end, period) in enumerate(found):
            lo = found[i - 1][1] if i else 0
            hi = found[i + 1][0] if i + 1 < len(found) else len(eqns)
            span = _with_first_iteration(eqns, keys, loose, eqn_lines, (start, end, period), lo, hi)
            runs.append(_describe_run(eqns, eqn_stacks, span, period, path, uses, total))
    runs.sort(key=lambda r: -r.equations)
    return runs


def _with_first_iteration(eqns: list[Any], keys: list[int], loose: list[int], eqn_lines: list[tuple],
                          run: tuple[int, int, int], lo: int, hi: int) -> tuple[int, int, int, int]:
    """(first, aligned start, end, repeats) of a run, counting a first iteration that differs.

    The first iteration of a loop often differs slightly: a carry that starts as a Python
    literal or a weak-typed value adds ``convert_element_type`` equations or drops some, so
    ``_find_runs`` misses it (or, rotated, the last iteration's tail). Repeats are aligned to
    end where the exact matches end; then the equations before are matched backwards against
    the pattern on primitive and source lines only (output types ignored), skipping
    ``convert_element_type`` from the pattern's lines. One partial or full match counts as one
    more repeat. ``[lo, hi)`` bounds the search (neighbouring runs).
    """
    start, end, period = run
    repeats = (end - start) // period
    full = end
    while full < hi and full - end < period and keys[full] == keys[full - period]:
        full += 1
    astart = start + (full - end)
    pattern = loose[astart:astart + period]
    pattern_lines = set(eqn_lines[astart:astart + period])

    def skippable(k: int) -> bool:
        return eqns[k].primitive.name == "convert_element_type" and eqn_lines[k] in pattern_lines

    j, i, first = period - 1, astart - 1, astart
    while i >= lo and j >= 0:
        if loose[i] == pattern[j]:
            j, first = j - 1, i
        elif not skippable(i):
            break
        i -= 1
    if first == astart:
        return start, start, end, repeats
    while first - 1 >= lo and skippable(first - 1):
        first -= 1
    return first, astart, full, repeats + 1


def _describe_run(eqns: list[Any], eqn_stacks: list[tuple], span: tuple[int, int, int, int], period: int,
                  path: str, uses: int, total: int) -> BloatRun:
    first, start, end, repeats = span
    pattern_stacks = eqn_stacks[start:start + period]
    common: list[tuple] = []
    for level in zip(*pattern_stacks, strict=False) if pattern_stacks else ():
        if all(f[:3] == level[0][:3] for f in level):
            common.append(level[0])
        else:
            break
    lines = {(f[0], f[2]) for st in pattern_stacks for f in st[len(common):len(common) + 1]}
    kind, node, builtin, anchor = _classify(common, lines)
    construct = {"builtin_reduction": f"{builtin}(...)", "python_loop": "Python loop",
                 "comprehension": "comprehension"}.get(kind, "repeated code")
    location = None
    if node is not None and (anchor is not None or lines):
        file = anchor[0] if anchor else min(lines)[0]
        if kind != "builtin_reduction":
            nested = _nested_loops(file, node, repeats)
            if nested is not None:
                node, construct = nested
        func = anchor[1] if anchor else (pattern_stacks[0][0][1] if pattern_stacks and pattern_stacks[0] else None)
        location = Location(file, node.lineno, node.col_offset + 1, func, node.end_lineno,
                            (node.end_col_offset or 0) + 1)
    elif anchor is not None:
        col, end_col = (c + 1 if isinstance(c, int) and c >= 0 else None for c in (anchor[3], anchor[5]))
        location = Location(anchor[0], anchor[2], col, anchor[1], anchor[4], end_col)
    elif lines:
        f, ln = min(lines)
        location = Location(f, ln)
    source = ""
    if location is not None:
        source = linecache.getline(location.file, location.line).strip()
    carried = _carried(eqns, start, period) if repeats > 1 else False
    run_eqns = (end - first) * uses
    fix = _fix(kind, builtin, carried, node, location.file if location else "", location, run_eqns, period)
    return BloatRun(kind, repeats * uses, period, run_eqns, run_eqns / total,
                    [e.primitive.name for e in eqns[start:start + period]], carried, path, location,
                    source, construct, fix)
