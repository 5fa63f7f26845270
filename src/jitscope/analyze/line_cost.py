"""Compile cost per source line: equations, loop multiplicity, HLO ops and an estimate of compile seconds.

For every user source line (file, line, function) that produced part of the traced program:

- ``equations``: jaxpr equations whose innermost user frame is the line (nested bodies included,
  counted once per use); ``total_equations`` also counts the functions the line calls.
- ``multiplicity``: how many times the line's pattern of equations repeats: a line in a Python loop
  of 300 iterations (or a builtin ``sum`` over 300 elements) is x300. Found per body and per exact
  call stack (columns included, so ``a.sum() + b.sum()`` is no loop) with the prefix function (KMP)
  of the primitives that stack produced, read backwards so that a first iteration that differs (a
  weak-typed carry) is the tail: linear in the sequence. A line calling a function that loops
  inherits the callee's multiplicity.
- ``hlo_ops`` / ``optimized_ops``: instructions of the HLO before optimisation and of the
  optimised HLO (inside fusions included) whose ``metadata={... stack_frame_id=N}`` leads to the line.
- ``compile_seconds`` / ``compile_share``: an **estimate**. XLA does not time its work per line, so
  the measured stage seconds are split in proportion: trace seconds by the line's share of
  equations, lower + compile seconds by its share of HLO ops before optimisation (by equations when
  the HLO carries no source locations). Shares sum to 1 with ``LineCostTotals.unattributed_share``.

Linear in the number of equations and HLO instructions: tracebacks are resolved once each
(``_jaxcompat.StackCache``), every equation is visited once per frame of its (short) user stack.
"""

from __future__ import annotations

import linecache
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .._serde import Record
from .hlo import frame_chains

CONTEXT_LINES = 2  # source lines shown around each costly line in the listing
LISTED_LINES = 12  # costly lines the listing is built around
MAX_LINES = 200  # line records kept, costliest first


@dataclass
class LineCost(Record):
    """What one source line adds to the compiled program (see the module docstring)."""

    file: str
    line: int
    function: str = ""
    source: str = ""
    equations: int = 0
    total_equations: int = 0  # with the functions the line calls
    multiplicity: int = 1
    hlo_ops: int = 0
    optimized_ops: int = 0
    compile_seconds: float = 0.0  # estimated
    compile_share: float = 0.0  # estimated, of trace + lower + compile
    total_compile_share: float = 0.0  # with the functions the line calls


@dataclass
class SourceExcerpt(Record):
    """Lines ``start``.. of a user file, kept so the listing renders from a saved result."""

    file: str
    start: int
    lines: list[str] = field(default_factory=list)


@dataclass
class StackCost(Record):
    """Costs of one distinct user call stack; ``lines`` index ``InspectResult.line_costs``, innermost first."""

    lines: list[int] = field(default_factory=list)
    equations: int = 0
    hlo_ops: int = 0
    optimized_ops: int = 0
    compile_seconds: float = 0.0


@dataclass
class LineCostTotals(Record):
    """Totals behind the per-line shares, how they were estimated, the listing and the call stacks."""

    equations: int = 0
    hlo_ops: int = 0
    optimized_ops: int = 0
    seconds: float = 0.0  # trace + lower + compile, measured
    estimate: str = "hlo_ops"  # "hlo_ops" | "equations": what lower + compile seconds are split by
    unattributed_share: float = 0.0  # of the seconds, for equations / ops with no user source line
    excerpts: list[SourceExcerpt] = field(default_factory=list)
    stacks: list[StackCost] = field(default_factory=list)


# -- HLO text: stack frame tables and per-instruction stack_frame_id ---------------------------------

_OPCODE_RE = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*(?:\([^=]*?\)|\S+)\s+([a-z][\w\-]*)\(")
_FRAME_ID_RE = re.compile(r"stack_frame_id=(\d+)")
_COMP_RE = re.compile(r"^(ENTRY\s+)?%?([\w.\-]+)\s*(?:\(.*\)\s*->\s*.*)?\{\s*$")
_CALLEE_RE = re.compile(r"\b(?:to_apply|calls|body|condition|true_computation|false_computation)=%?([\w.\-]+)")
_BRANCHES_RE = re.compile(r"branch_computations=\{([^}]*)\}")
_NOT_OPS = {"parameter", "constant", "tuple", "get-tuple-element", "fusion"}


def hlo_ops_by_frames(text: str) -> dict[tuple, int]:
    """``{frames: ops}`` for an HLO text with source metadata; ``frames`` are ``(file, function, line)``,
    innermost first; ops without a stack frame are under ``()``.

    Counts instructions that compute (not parameters, constants, tuples or fusion wrappers: the
    ops inside a fusion count), each as many times as its computation is called (an inner jit
    called 50 times is one computation with 50 ``call`` sites; XLA inlines it 50 times). The stack
    tables are printed by XLA before the computations, callees before callers.
    """
    counts: dict[str, dict[int, int]] = {}
    calls: dict[str, dict[str, int]] = {}
    order: list[str] = []
    entry = ""
    comp: dict[int, int] = {}
    edges: dict[str, int] = {}
    for line in text.splitlines():
        if not line:
            continue
        if line[0] not in " \t" and line.rstrip().endswith("{"):
            h = _COMP_RE.match(line)
            if h:
                name = h.group(2)
                comp, edges = counts.setdefault(name, defaultdict(int)), calls.setdefault(name, defaultdict(int))
                order.append(name)
                entry = name if h.group(1) else entry
                continue
        if line[0] not in " %\t" and not line.startswith("ROOT"):
            continue  # the stack-frame tables (read by ``hlo.frame_chains``) and headers
        m = _OPCODE_RE.match(line)
        if m is None:
            continue
        if "to_apply=" in line or "calls=" in line or "body=" in line or "_computation" in line:
            for callee in _CALLEE_RE.findall(line):
                edges[callee] += 1
            for group in _BRANCHES_RE.findall(line):
                for callee in group.split(","):
                    edges[callee.strip().lstrip("%")] += 1
        if m.group(1) in _NOT_OPS:
            continue
        fid = _FRAME_ID_RE.search(line)
        comp[int(fid.group(1)) if fid else 0] += 1
    mult: dict[str, int] = defaultdict(int)
    mult[entry] = 1
    for name in reversed(order):  # callers before callees
        for callee, k in calls[name].items():
            mult[callee] += max(mult[name], 1) * k
    chains = {fid: tuple(f[:3] for f in chain) for fid, chain in frame_chains(text).items()}
    out: dict[tuple, int] = defaultdict(int)
    for name, by_frame in counts.items():
        times = max(mult[name], 1) if entry else 1
        for fid, n in by_frame.items():
            out[chains.get(fid, ())] += n * times
    return dict(out)


# -- multiplicity -------------------------------------------------------------------------------------

def repeats(keys: list[Any]) -> int:
    """How many times a sequence repeats one pattern, allowing one differing repeat at the start.

    The prefix function of the reversed sequence gives, for each prefix, its shortest period; a
    prefix that leaves at most one period uncovered and repeats at least twice counts. Linear.
    """
    n = len(keys)
    if n < 2:
        return 1
    r = keys[::-1]
    pi = [0] * n
    best = 1
    for i in range(1, n):
        k = pi[i - 1]
        while k and r[i] != r[k]:
            k = pi[k - 1]
        if r[i] == r[k]:
            k += 1
        pi[i] = k
    for j in range(n, 1, -1):  # longest qualifying prefix first
        period = j - pi[j - 1]
        if j >= 2 * period and n - j <= period:
            best = max(best, round(n / period))
        if n - j > n // 2:
            break
    return best


# -- the analyzer -------------------------------------------------------------------------------------

def line_costs(closed_jaxpr: Any, entry_code: Any = None, *, hlo_before_text: str = "", hlo_after_text: str = "",
               seconds: dict[str, float] | None = None) -> tuple[list[LineCost], LineCostTotals]:
    """Per-line costs of one traced program, costliest first, and their totals.

    ``entry_code`` is the traced function's ``__code__`` (stacks are cut there). ``hlo_before_text``
    is ``Lowered.as_text(dialect="hlo", debug_info=True)``, ``hlo_after_text`` ``Compiled.as_text()``;
    either may be empty. ``seconds`` holds the measured ``trace``, ``lower`` and ``compile`` seconds.
    """
    from .._jaxcompat import StackCache
    from .jaxpr_stats import walk_bodies

    stacks = StackCache(entry_code)
    line_ids: dict[tuple, int] = {}  # (file, line, function) -> index
    stack_lines: dict[int, tuple[int, ...]] = {}  # id(stack) -> line ids, innermost first
    eqns_by_stack: dict[tuple[int, ...], int] = defaultdict(int)
    mult: dict[int, int] = defaultdict(lambda: 1)
    for _path, jx, uses in walk_bodies(closed_jaxpr.jaxpr):
        # One sequence of primitives per exact call stack (columns included): `a.sum() + b.sum()` is
        # two stacks of one equation each, a loop body line is one stack repeating its equations.
        seqs: dict[int, list[Any]] = defaultdict(list)
        sid_lines: dict[int, tuple[int, ...]] = {}
        for eqn in jx.eqns:
            st = stacks.stack(eqn)
            ids = stack_lines.get(id(st))
            if ids is None:
                ids = stack_lines[id(st)] = tuple(
                    line_ids.setdefault((f[0], f[2], f[1]), len(line_ids)) for f in reversed(st))
            eqns_by_stack[ids] += uses
            if ids:
                seqs[id(st)].append(eqn.primitive)
                sid_lines[id(st)] = ids
        for sid, prims in seqs.items():
            n = (repeats(prims) if len(prims) > 1 else 1) * uses
            if n > 1:
                for lid in set(sid_lines[sid]):
                    mult[lid] = max(mult[lid], n)
    entry = (getattr(entry_code, "co_filename", None), getattr(entry_code, "co_qualname", None))

    def hlo_stacks(text: str) -> dict[tuple[int, ...], int]:
        from .._jaxcompat import is_user_file

        out: dict[tuple[int, ...], int] = defaultdict(int)
        for chain, n in hlo_ops_by_frames(text).items() if text else ():
            ids = []
            for file, func, line in chain:
                if is_user_file(file):
                    ids.append(line_ids.setdefault((file, line, func), len(line_ids)))
                if (file, func) == entry:
                    break
            out[tuple(ids)] += n
        return out

    before, after = hlo_stacks(hlo_before_text), hlo_stacks(hlo_after_text)
    secs = seconds or {}
    trace_s, rest_s = secs.get("trace", 0.0), secs.get("lower", 0.0) + secs.get("compile", 0.0)
    totals = LineCostTotals(equations=sum(eqns_by_stack.values()), hlo_ops=sum(before.values()),
                            optimized_ops=sum(after.values()), seconds=trace_s + rest_s)
    totals.estimate = "hlo_ops" if any(before) else "equations"
    split = before if totals.estimate == "hlo_ops" else eqns_by_stack
    split_total = sum(split.values()) or 1
    all_stacks = set(eqns_by_stack) | set(before) | set(after)
    # Without measured seconds (a synthetic run) the shares are the split's alone.
    t_w, r_w = (trace_s, rest_s) if totals.seconds > 0 else (0.0, 1.0)
    weight = {s: t_w * eqns_by_stack.get(s, 0) / (totals.equations or 1) + r_w * split.get(s, 0) / split_total
              for s in all_stacks}
    weight_total = sum(weight.values()) or 1.0
    names = {i: k for k, i in line_ids.items()}
    per: dict[int, LineCost] = {}
    inclusive: dict[int, list[float]] = defaultdict(lambda: [0, 0.0])

    def rec(lid: int) -> LineCost:
        if lid not in per:
            file, line, func = names[lid]
            per[lid] = LineCost(file, line, func, linecache.getline(file, line).strip(), multiplicity=mult.get(lid, 1))
        return per[lid]

    for s in all_stacks:
        if not s:
            continue
        r = rec(s[0])
        r.equations += eqns_by_stack.get(s, 0)
        r.hlo_ops += before.get(s, 0)
        r.optimized_ops += after.get(s, 0)
        r.compile_share += weight[s] / weight_total
        for lid in set(s):
            inclusive[lid][0] += eqns_by_stack.get(s, 0)
            inclusive[lid][1] += weight[s] / weight_total
    for lid, (eq, share) in inclusive.items():
        r = rec(lid)
        r.total_equations, r.total_compile_share = int(eq), share
        r.compile_seconds = r.compile_share * totals.seconds
    ranked = sorted(per.values(), key=lambda r: (-r.compile_share, -r.equations, r.file, r.line))[:MAX_LINES]
    totals.unattributed_share = weight.get((), 0.0) / weight_total
    index = {(r.file, r.line, r.function): i for i, r in enumerate(ranked)}
    for s in sorted(all_stacks):
        kept = [index[names[lid]] for lid in s if names[lid] in index]
        if kept:
            totals.stacks.append(StackCost(kept, eqns_by_stack.get(s, 0), before.get(s, 0), after.get(s, 0),
                                           weight[s] / weight_total * totals.seconds))
    totals.excerpts = excerpts(ranked[:LISTED_LINES])
    return ranked, totals


def excerpts(lines: list[LineCost], context: int = CONTEXT_LINES) -> list[SourceExcerpt]:
    """The source around ``lines`` (``context`` lines either side), overlapping windows merged, per file."""
    by_file: dict[str, list[int]] = defaultdict(list)
    for r in lines:
        if r.line > 0 and linecache.getline(r.file, r.line):
            by_file[r.file].append(r.line)
    out = []
    for file in sorted(by_file):
        windows: list[list[int]] = []
        for ln in sorted(set(by_file[file])):
            lo, hi = max(1, ln - context), ln + context
            if windows and lo <= windows[-1][1] + 2:  # a one-line gap is shown, not elided
                windows[-1][1] = max(windows[-1][1], hi)
            else:
                windows.append([lo, hi])
        for lo, hi in windows:
            text = [linecache.getline(file, i).rstrip("\n") for i in range(lo, hi + 1)]
            while text and not linecache.getline(file, lo + len(text) - 1):
                text.pop()  # past the end of the file
            out.append(SourceExcerpt(file, lo, text))
    return out
