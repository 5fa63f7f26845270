"""Recompile patterns over a whole run: JW405 (one function compiled for many shapes), JW406 (recompiled
because JAX's trace context changed) and JW407 (a function that never stops compiling).

From the run's compile records (``CompileEvent``: each user compile with its argument signature, function
object and timestamps) and, for JW406, the trace context each compile was traced under
(``collect/jax_signals.TraceContextProbe``):

* JW405 ``shape-recompiles``: compiles of one function object whose signatures have the same tree
  structure, dtypes and static values and at least ``MIN_SHAPES`` different shape vectors: the shapes are
  part of jit's cache key, each new one compiles (a varying batch, sequence or array length). Names the
  arguments whose shapes varied and the shapes seen.
* JW406 ``config-recompile``: a function object compiled again with the same signature under a different
  trace context: which entries of it changed (``jax_default_device``, ``jax_enable_x64``, a mesh, ...). JAX
  adds the trace context to jit's cache key, so that change alone explains the compile (JAX's own
  ``jax_explain_cache_misses``, when on, says the same in its log).
* JW407 ``compile-cache-growth``: one function object compiled at least ``MIN_GROWTH`` times and still
  compiling in the last quarter of the run: whatever the cause (reported by JW403-JW406 where known), the
  number of programs its cache keeps grows with the run's length, and so do compile time and the memory of the
  cached executables. Compiles spread over objects rebuilt along the run (a fresh closure or ``jax.jit`` per
  step) are not: each object's cache dies with it (JW403 reports those compiles).

Under pytest both count within one test (``CompileEvent.test``, the node id; ``advice_scope.scope_key``'s first
part): each test (each parametrization) picks its own problem size and runs once, so a library's jitted function
that sees a new shape per test is not a program whose shapes churn ("pad to fixed sizes" cannot pad across
tests), and compiles spread over a suite's tests do not grow with any one program's length (a test's length is
its own; JW407's "run" under pytest is the test). A churn of shapes, or a cache that keeps growing, within one
test stays reported.

All three rest on what jit did (counted compiles, recorded signatures and context), so they are certain;
``warning``: how much they cost depends on how long the program runs.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from typing import Any

from .._format import fmt_seconds
from ..jaxmodel import fixes
from ..jaxmodel.deliberate import is_test_file
from ..model import CompileEvent, Fix, Location
from .runtime_findings import RuntimeFinding, _source

MIN_SHAPES = 3  # two shapes (a train and an eval batch, a last partial batch) are often by design
MIN_GROWTH = 16
LATE_SHARE = 0.25
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+|0x[0-9a-fA-F]{6,}")  # "still compiling": a compile in the last quarter of the run


def _group_key(e: CompileEvent) -> tuple:
    d = e.definition
    return (e.function, d.file if d else "", d.line if d else 0, e.transform or "")


def _structure(e: CompileEvent) -> tuple | None:
    s = e.signature
    if s is None:
        return None
    return (s.treedef, tuple(sorted(s.static.items())), tuple((x.path, x.dtype, x.weak_type, len(x.shape))
                                                                for x in s.leaves))


def _site(events: list[CompileEvent]) -> Location | None:
    sites = [e.call_site for e in events if e.call_site is not None]
    if not sites:
        return events[-1].definition
    counts: dict[tuple[str, int], int] = defaultdict(int)
    for s in sites:
        counts[(s.file, s.line)] += 1
    best = max(counts, key=lambda k: counts[k])
    return next(s for s in sites if (s.file, s.line) == best)


def shape_findings(events: list[CompileEvent]) -> list[RuntimeFinding]:
    """JW405 for each function object compiled for at least ``MIN_SHAPES`` shape vectors of one structure
    (one object: functions rebuilt per call compile anyway, whatever the shapes: JW403's business)."""
    groups: dict[tuple, list[CompileEvent]] = defaultdict(list)
    for e in events:
        st = _structure(e)
        if st is None or e.call_site is not None and is_test_file(e.call_site.file):
            continue  # a test picks its shapes on purpose (jaxmodel/deliberate.py): nothing to pad
        groups[(_group_key(e), e.function_id, st, e.test)].append(e)  # per test under pytest (module docstring)
    out = []
    for evs in groups.values():
        shapes: dict[tuple, CompileEvent] = {}
        for e in evs:
            shapes.setdefault(tuple(x.shape for x in e.signature.leaves), e)  # type: ignore[union-attr]
        firsts = list(shapes.values())
        ragged = len(shapes) == 2 and _one_loop(firsts)
        if len(shapes) < MIN_SHAPES and not ragged:
            continue
        leaves = firsts[0].signature.leaves  # type: ignore[union-attr]
        varying = [i for i in range(len(leaves)) if len({k[i] for k in shapes}) > 1]
        names = [leaves[i].path or f"argument {i}" for i in varying]
        seen = [_shape_text(k, varying) for k in list(shapes)[:4]]
        more = f", ... ({len(shapes)} in all)" if len(shapes) > 4 else ""
        extra = firsts[1:]
        seconds = sum(e.total_seconds for e in extra)
        loc = _site(extra)
        last = evs[-1]
        advice = fixes.RAGGED_BATCH if ragged else fixes.PAD_SHAPES
        out.append(RuntimeFinding(
            "JW405", last.function,
            f"{last.function} compiled for {len(shapes)} shapes of {', '.join(names) or 'its arguments'} "
            f"({'; '.join(seen)}{more}){' at one call site inside a loop (a last batch of another size)' if ragged else ''}"
            f": {len(extra)} extra compile{'s' if len(extra) != 1 else ''}, {fmt_seconds(seconds)}", "warning", loc,
            Fix(advice.title, advice.why, location=loc), compile_index=last.index,
            timestamp=extra[0].timestamp, seconds=seconds, source=_source(loc),
            details={"shapes": len(shapes), "arguments": names, "compiles": len(evs), "extra_compiles": len(extra),
                     "pattern": "ragged-batch" if ragged else "shapes",
                     "evidence": "compiles of one function whose signatures differ only in array shapes"
                     + (", both from one call site inside a loop" if ragged else "")}))
    return out


def _one_loop(firsts: list[CompileEvent]) -> bool:
    """Two shapes, both first compiled at one call site of the program that sits inside a loop: an iteration
    of that loop brought the new shape, so the data the loop walks decides it (a last, smaller batch), not
    the program's structure (a train and an eval step are two call sites; a test picks its shapes)."""
    from .bloat_source import _enclosing_loop

    sites = {(e.call_site.file, e.call_site.line) if e.call_site is not None else None for e in firsts}
    if len(sites) != 1 or None in sites:
        return False
    file, line = next(iter(sites))  # type: ignore[misc]
    loop = _enclosing_loop(file, line, line)
    if loop is None or isinstance(loop, _COMPREHENSIONS):
        return False
    # ``for n in (4, 8):`` walks sizes the program wrote down (a warm-up, buckets): chosen, not the data's.
    literal = isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.iter, (ast.Tuple, ast.List, ast.Set)) \
        and all(isinstance(x, ast.Constant) for x in loop.iter.elts)
    return not literal


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _shape_text(shape_vector: tuple, varying: list[int]) -> str:
    return ", ".join("(" + ",".join(map(str, shape_vector[i])) + ")" for i in varying)


def growth_findings(events: list[CompileEvent], wall_seconds: float) -> list[RuntimeFinding]:
    """JW407 for each function compiled at least ``MIN_GROWTH`` times and still compiling late in the run."""
    groups: dict[tuple, list[CompileEvent]] = defaultdict(list)
    span: dict[str | None, tuple[float, float]] = {}
    for e in events:
        groups[(*_group_key(e)[:3], e.test)].append(e)  # per test under pytest (module docstring)
        first, last = span.get(e.test, (e.timestamp, e.timestamp))
        span[e.test] = (min(first, e.timestamp), max(last, e.timestamp))
    out = []
    for (*_, test), evs in groups.items():
        if len(evs) < MIN_GROWTH:
            continue
        # Under pytest the "run" is the test: its first to its last recorded compile (its ends are not recorded).
        start, end = (0.0, max(wall_seconds, evs[-1].timestamp)) if test is None else span[test]
        if end > start and evs[-1].timestamp < start + (end - start) * (1 - LATE_SHARE):
            continue  # compiled many programs early (a warm-up over a fixed set) and stopped
        per_object: dict[int, int] = defaultdict(int)
        for e in evs:
            if e.function_id is not None:
                per_object[e.function_id] += 1
        if per_object and max(per_object.values()) < MIN_GROWTH:
            # Spread over function objects rebuilt along the run (a fresh closure or jit per step, JW403): each
            # object's cache dies with it, so the programs kept do not grow with the run; the compiles are JW403's.
            continue
        last = evs[-1]
        seconds = sum(e.total_seconds for e in evs)
        loc = _site(evs)
        out.append(RuntimeFinding(
            "JW407", last.function,
            f"{last.function} compiled {len(evs)} times in this run and was still compiling at its end "
            f"({fmt_seconds(seconds)} of compiles): the number of cached programs grows with the run's length",
            "warning", loc, Fix(fixes.CACHE_GROWTH.title, fixes.CACHE_GROWTH.why, location=loc),
            compile_index=last.index, timestamp=evs[0].timestamp, seconds=seconds, source=_source(loc),
            details={"compiles": len(evs), "last_compile_s": last.timestamp, "run_s": end,
                     "evidence": "the count of this function's compiles, and the time of its last"}))
    return out


class ContextTracker:
    """JW406: remembers each function object's compiles (signature, trace context) as they happen."""

    def __init__(self) -> None:
        self._seen: dict[int, list[tuple[str, tuple[str, ...], tuple[Any, ...], int]]] = {}

    def observe(self, event: CompileEvent, context: Any, base: dict[str, Any]) -> list[RuntimeFinding]:
        if event.function_id is None or event.signature is None or not context:
            return []
        names, values = context
        sig = event.signature.short() + "|" + event.signature.treedef
        earlier = self._seen.setdefault(event.function_id, [])
        found: list[RuntimeFinding] = []
        same = [x for x in earlier if x[0] == sig and x[1] == names]
        if same:
            _, _, old, index = same[-1]
            changed = [(n, a, b) for n, a, b in zip(names, old, values, strict=False) if not _equal(a, b)]
            if changed:
                found.append(self._finding(event, changed, index, base))
        if len(earlier) < 64:
            earlier.append((sig, names, values, event.index))
        return found

    @staticmethod
    def _finding(event: CompileEvent, changed: list[tuple[str, Any, Any]], index: int,
                 base: dict[str, Any]) -> RuntimeFinding:
        what = "; ".join(f"{n}: {_short(a)} -> {_short(b)}" for n, a, b in changed[:4])
        loc = event.call_site or event.definition
        return RuntimeFinding(
            "JW406", event.function,
            f"compile #{event.index} of {event.function} has the same arguments as compile #{index} but JAX's "
            f"trace context changed ({what}): the context is part of jit's cache key", "warning", loc,
            Fix(fixes.CONFIG_ONCE.title, fixes.CONFIG_ONCE.why, location=loc), source=_source(loc),
            details={"earlier_index": index, "changed": [{"name": n, "before": _short(a), "after": _short(b)}
                                                         for n, a, b in changed],
                     "evidence": "two compiles of one function object with equal signatures and different values "
                                 "in JAX's trace context (config.trace_context())"}, **base)


def same_context(a: Any, b: Any) -> bool:
    """Two recorded trace contexts (``(names, values)``, ``RawCompile.live["context"]``) are the same, or one is
    unknown: a compile under another context (``jax.checking_leaks``, ``enable_x64``, a default device) is
    another cache entry by JAX's design, not a duplicate one change of the user's code would merge."""
    if not a or not b:
        return True
    (names_a, values_a), (names_b, values_b) = a, b
    return tuple(names_a) == tuple(names_b) and len(values_a) == len(values_b) and \
        all(_equal(x, y) for x, y in zip(values_a, values_b))


def _equal(a: Any, b: Any) -> bool:
    """Equal, or not different in any way the finding could name (equal text once addresses are blanked)."""
    if a is b:
        return True
    try:
        if bool(a == b):
            return True
    except Exception:  # noqa: BLE001 - an object without equality: compare how it prints
        pass
    return _ADDRESS.sub("", repr(a)) == _ADDRESS.sub("", repr(b))


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."
