"""Pessimised fusion: the optimised program does several times the work the program describes.

XLA fuses a cheap producer (a slice, a concatenate, an add) into every consumer fusion instead of
writing it to memory once. One level of that is a good trade; in a long unrolled chain (a Python
loop of stencil steps, each reading four shifted copies of the last state) the producers of
producers are duplicated too, level after level, and the compiled program ends up computing the
same values many times over. Two measurements show it, both linear in the size of the HLO text:

1. XLA's own cost model before and after optimisation: ``compiled.cost_analysis()`` flops (and
   bytes accessed) against ``lowered.cost_analysis()`` of the same program.
2. Value numbering of the optimised HLO: every instruction, inside fusions too, gets the number of
   the value it computes (opcode, shape, attributes and the numbers of its operands; a fusion's
   parameter is the value passed in). ``ops`` instructions computing ``distinct`` values means each
   value is computed ``ops / distinct`` times; values computed more than once are the duplicated
   work, attributed to fusions and, through the HLO's stack-frame metadata, to source lines.
   Values made only of constants (broadcast scalars, iotas) are free to recompute and not counted.

The detector fires when the flops factor reaches ``THRESHOLD`` and the value numbering finds
duplicated values (see the constants' comment for the measurements behind them).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .._serde import Record
from ..model import Fix, Location
from .hlo import HloInstruction, frame_chains, parse_hlo

# Measured on JAX 0.10.2 CPU (benchmarks/RESULTS.md, "Pessimised fusion"). Well-fused programs (MLP and
# its grad, SELU, attention and its grad, softmax+layernorm and its grad, a conv net's grad, a
# fori_loop of stencil steps, the gallery programs): flops factor 0.87-1.56, ops factor 1.00-1.72.
# The unrolled stencil: flops factor 2.0 (2 steps), 3.2 (3), 5.6 (5), 11.8 (10), 24 (20), any size.
# Fire at 2.5x the flops, 1.6x above the worst well-fused program and below every stencil of 3 steps
# or more; the ops factor must show duplicated values (> 1) for the flops to be blamed on them.
THRESHOLD = 2.5
# "certain" also needs the duplicated instructions alone to double the program: above every
# well-fused program's ops factor (1.72), and not a ratio of small numbers.
CERTAIN_OPS_FACTOR = 2.0
MIN_DUPLICATED_OPS = 50
# Without XLA's cost analysis (a backend may not offer it) the ops factor alone must be higher.
OPS_ONLY_THRESHOLD = 3.0

_FREE = {"parameter", "constant", "iota", "tuple", "get-tuple-element", "bitcast", "after-all",
         "partition-id", "replica-id"}
# Not pure functions of their operands (random numbers, I/O, collectives, opaque calls): never the same value.
_UNIQUE = {"rng", "rng-get-and-update-state", "custom-call", "infeed", "outfeed", "send", "recv", "send-done",
           "recv-done", "all-reduce", "all-gather", "all-to-all", "collective-permute", "reduce-scatter"}
_METADATA_RE = re.compile(r",?\s*metadata=\{[^}]*\}")
_NOISE_RE = re.compile(r",?\s*(?:backend_config|frontend_attributes|sharding|statistics)=(?:\{[^}]*\}|\"[^\"]*\"|\S+)")
_LAYOUT_RE = re.compile(r"\{[^}]*\}")
_FRAME_RE = re.compile(r"stack_frame_id=(\d+)")
_SRC_FILE_RE = re.compile(r'source_file="([^"]*)"')
_SRC_LINE_RE = re.compile(r"source_line=(\d+)")
_TO_APPLY_RE = re.compile(r"(?:to_apply|scatter|select|comparator)=%?([\w.\-]+)")


@dataclass
class DuplicatedFusion(Record):
    """A fusion holding work that other fusions also do.

    ``ops`` instructions (nested fusions included, free ones not), ``duplicated_ops`` of them
    compute a value computed elsewhere too, on average ``copies`` times in the whole program.
    ``location`` is the line the fusion is for (its instruction's metadata): the consumer into
    which XLA copied the duplicated producers.
    """

    name: str
    kind: str
    ops: int
    duplicated_ops: int
    copies: float
    by_op: dict[str, int] = field(default_factory=dict)  # duplicated instructions by opcode
    location: Location | None = None  # the source line of what the fusion computes (its root)


@dataclass
class LineDuplication(Record):
    """The optimised program's instructions from one source line: ``ops`` computing ``distinct`` values."""

    location: Location | None
    ops: int
    distinct: int
    factor: float
    by_op: dict[str, int] = field(default_factory=dict)  # instructions by opcode


@dataclass
class FixGain(Record):
    """A fix built and measured automatically: its steady time against the program's.

    ``flops_factor`` is the pessimisation factor of the fix's own compiled program, for fixes
    that are one jitted program: still above the threshold means the fix did not change what XLA
    built, and a time difference is noise, not a gain.
    """

    variant: str
    description: str
    steady_s: float | None = None
    baseline_s: float | None = None
    compile_s: float | None = None
    baseline_compile_s: float | None = None
    gain: float | None = None  # baseline steady / fix steady
    error: str | None = None
    flops_factor: float | None = None  # of the fix's own compiled program (jitted fixes): did it stop the duplication?


@dataclass
class Pessimisation(Record):
    """How much more work the optimised program does than the program it was given, and where.

    ``fires`` when ``flops_factor`` (compiled / lowered flops from XLA's cost model) reaches
    ``threshold`` and ``ops_factor`` (optimised instructions / distinct values they compute) shows
    duplicated values. ``confidence`` is ``"certain"`` (the duplicated instructions alone double
    the program: ops factor >= 2 and at least 50 of them), ``"likely"`` (fewer, or no cost model
    and an ops factor >= 3) or ``"quiet"``. ``fusions`` and ``lines`` are the largest offenders
    first; ``measured`` holds fixes built and timed automatically (inspect fills it).
    """

    fires: bool = False
    confidence: str = "quiet"
    threshold: float = THRESHOLD
    flops_lowered: float | None = None
    flops_compiled: float | None = None
    flops_factor: float | None = None
    bytes_lowered: float | None = None
    bytes_compiled: float | None = None
    bytes_factor: float | None = None
    ops: int = 0
    distinct: int = 0
    ops_factor: float | None = None
    duplicated_ops: int = 0
    fusion_count: int = 0
    duplicating_fusions: int = 0  # fusions holding at least one duplicated instruction
    fusions: list[DuplicatedFusion] = field(default_factory=list)
    lines: list[LineDuplication] = field(default_factory=list)
    fixes: list[Fix] = field(default_factory=list)
    measured: list[FixGain] = field(default_factory=list)


def source_frames(text: str) -> dict[int, Location]:
    """``{stack_frame_id: Location}``: the innermost frame of each stack in an HLO module's stack-frame
    tables (``hlo.frame_chains``; JAX keeps the user's frames only)."""
    out: dict[int, Location] = {}
    for fid, chain in frame_chains(text).items():
        if chain and chain[0][0] and chain[0][2]:
            file, function, line, column = chain[0]
            out[fid] = Location(file or "?", line, column, function or None)
    return out


def _location(ins: HloInstruction, frames: dict[int, Location]) -> Location | None:
    m = _FRAME_RE.search(ins.attrs)
    if m:
        return frames.get(int(m.group(1)))
    f, ln = _SRC_FILE_RE.search(ins.attrs), _SRC_LINE_RE.search(ins.attrs)
    if f and ln:  # JAX before stack-frame tables wrote the location into each instruction
        return Location(f.group(1), int(ln.group(1)))
    return None


@dataclass
class _Numbering:
    """Value numbers of one optimised HLO module (working state of ``number_values``)."""

    comps: dict[str, list[HloInstruction]]
    frames: dict[int, Location]
    table: dict[tuple, int] = field(default_factory=dict)
    free: set[int] = field(default_factory=set)  # values made of constants only
    copies: Counter[int] = field(default_factory=Counter)
    first: dict[int, tuple[str, Location | None]] = field(default_factory=dict)  # value -> (opcode, where)
    # one row per counted instruction: (value, top-level fusion or "", opcode)
    rows: list[tuple[int, str, str]] = field(default_factory=list)
    fusion_kinds: dict[str, tuple[str, Location | None]] = field(default_factory=dict)  # top-level fusion

    def intern(self, key: tuple) -> int:
        vid = self.table.get(key)
        if vid is None:
            vid = self.table[key] = len(self.table)
        return vid

    def run(self, comp: str, bound: dict[int, int] | None, fusion: str) -> int:
        """Number ``comp``'s instructions (parameters bound to the caller's values); return the root's value."""
        names: dict[str, int] = {}
        root = -1
        for ins in self.comps.get(comp, []):
            ops = [names[o] if o in names else self.intern(("unparsed", comp, o)) for o in ins.operands]
            if ins.opcode == "parameter":
                idx = int(ins.args.strip() or 0)
                vid = bound[idx] if bound is not None and idx in bound else self.intern(("param", comp, idx))
            elif ins.opcode == "fusion" and ins.calls in self.comps:
                top = fusion or ins.name
                if not fusion:
                    self.fusion_kinds[ins.name] = (ins.fusion_kind, _location(ins, self.frames))
                vid = self.run(ins.calls, dict(enumerate(ops)), top)
                vid = self.intern(("fusion-out", vid, ins.type))  # a multi-output root is a tuple
            elif ins.opcode == "call" and (target := _TO_APPLY_RE.search(ins.attrs)) and target.group(1) in self.comps:
                vid = self.run(target.group(1), dict(enumerate(ops)), fusion)  # inlined: its values are ours
            else:
                attrs = _NOISE_RE.sub("", _METADATA_RE.sub("", ins.attrs))
                literal = ins.args if ins.opcode in ("constant", "iota") else ""
                if ins.opcode in _UNIQUE:
                    literal = f"{comp}/{ins.name}/{len(self.table)}"  # each occurrence its own value
                vid = self.intern((ins.opcode, _LAYOUT_RE.sub("", ins.type), attrs, literal, tuple(ops)))
                if ins.opcode in ("constant", "iota") or (ops and all(o in self.free for o in ops)):
                    self.free.add(vid)
                elif ins.opcode not in _FREE:
                    self.copies[vid] += 1
                    self.rows.append((vid, fusion, ins.opcode))
                    if vid not in self.first:
                        self.first[vid] = (ins.opcode, _location(ins, self.frames))
            names[ins.name] = vid
            if ins.root:
                root = vid
        return root


def number_values(hlo_after_text: str) -> _Numbering:
    """Value-number every instruction of an optimised HLO module (fusion bodies once per fusion call)."""
    comps = parse_hlo(hlo_after_text)
    nb = _Numbering(comps, source_frames(hlo_after_text))
    called: set[str] = set()
    for instrs in comps.values():
        for ins in instrs:
            if ins.opcode == "fusion" and ins.calls:
                called.add(ins.calls)
            called.update(_TO_APPLY_RE.findall(ins.attrs))  # reducers and comparators: scalar lambdas
    entry = comps.get("__entry__")
    for name, instrs in comps.items():
        if name == "__entry__" or name in called or instrs is entry:
            continue
        nb.run(name, None, "")  # while bodies, conditions, branches: their own parameters
    for name, instrs in comps.items():
        if instrs is entry and name != "__entry__":
            nb.run(name, None, "")
            break
    return nb


def _line(where: Location | None) -> Location | None:
    """``where`` without its column: the unit of attribution is a source line."""
    return Location(where.file, where.line, None, where.function) if where else None


def _factor(after: float | None, before: float | None) -> float | None:
    if after is None or not before:
        return None
    return after / before


def detect_pessimisation(hlo_after_text: str, lowered_cost: dict[str, float] | None,
                         compiled_cost: dict[str, float] | None, *, threshold: float = THRESHOLD,
                         top: int = 8) -> Pessimisation:
    """Compare the work of the optimised program with the work of the program as written.

    ``lowered_cost`` / ``compiled_cost`` are the flat dicts of ``lowered.cost_analysis()`` and
    ``compiled.cost_analysis()`` (``flops``, ``bytes accessed``); either may be empty. Linear in
    the size of ``hlo_after_text`` (fusion bodies are walked once per fusion call).
    """
    lc, cc = lowered_cost or {}, compiled_cost or {}
    p = Pessimisation(threshold=threshold, flops_lowered=lc.get("flops"), flops_compiled=cc.get("flops"),
                      bytes_lowered=lc.get("bytes accessed"), bytes_compiled=cc.get("bytes accessed"))
    p.flops_factor = _factor(p.flops_compiled, p.flops_lowered)
    p.bytes_factor = _factor(p.bytes_compiled, p.bytes_lowered)
    if not hlo_after_text:
        return _verdict(p)
    nb = number_values(hlo_after_text)
    p.ops, p.distinct = len(nb.rows), len(nb.copies)
    p.ops_factor = _factor(float(p.ops), float(p.distinct))
    p.fusion_count = len(nb.fusion_kinds)
    per_fusion: dict[str, list[Any]] = {}
    per_line: dict[Location | None, list[Any]] = {}
    for vid, fusion, opcode in nb.rows:
        n = nb.copies[vid]
        if fusion:
            f = per_fusion.setdefault(fusion, [0, 0, 0, Counter()])
            f[0] += 1
            if n > 1:
                f[1] += 1
                f[2] += n
                f[3][opcode] += 1
        row = per_line.setdefault(_line(nb.first[vid][1]), [0, set(), Counter()])
        row[0] += 1
        row[1].add(vid)
        row[2][opcode] += 1
    p.duplicated_ops = sum(n - 1 for n in nb.copies.values() if n > 1)
    fusions = [DuplicatedFusion(name, nb.fusion_kinds.get(name, ("", None))[0], f[0], f[1], f[2] / f[1],
                                dict(f[3].most_common()), _line(nb.fusion_kinds.get(name, ("", None))[1]))
               for name, f in per_fusion.items() if f[1]]
    fusions.sort(key=lambda d: (-d.duplicated_ops, d.name))
    p.duplicating_fusions = len(fusions)
    p.fusions = fusions[:top]
    lines = [LineDuplication(loc, r[0], len(r[1]), r[0] / len(r[1]), dict(r[2].most_common()))
             for loc, r in per_line.items()]
    lines.sort(key=lambda d: (-(d.ops - d.distinct), -d.ops))
    p.lines = [d for d in lines if d.ops > d.distinct][:top]
    return _verdict(p)


def _verdict(p: Pessimisation) -> Pessimisation:
    duplicated = p.ops_factor is not None and p.ops_factor > 1.0
    if p.flops_factor is not None and p.flops_factor >= p.threshold and duplicated:
        p.fires = True
        certain = (p.ops_factor or 0) >= CERTAIN_OPS_FACTOR and p.duplicated_ops >= MIN_DUPLICATED_OPS
        p.confidence = "certain" if certain else "likely"
    elif p.flops_factor is None and p.ops_factor is not None and p.ops_factor >= OPS_ONLY_THRESHOLD:
        p.fires, p.confidence = True, "likely"  # no cost model: duplicated instructions alone
    if p.fires:
        p.fixes = fixes_for(p)
    return p


def _where(p: Pessimisation) -> tuple[str, Location | None]:
    """The function whose lines are duplicated most (the candidate for a smaller jit scope)."""
    for d in p.lines:
        if d.location is not None and d.location.function and not d.location.function.startswith("<"):
            return d.location.function, d.location
    return "", None


def fixes_for(p: Pessimisation, loop: Location | None = None) -> list[Fix]:
    """The ways to stop the duplication, surest first, with code sketches naming the duplicated function."""
    fn, where = _where(p)
    step = fn or "step"
    return [
        Fix("put the repeated step in a loop body: lax.fori_loop or lax.scan",
            f"XLA does not fuse across a loop body boundary, so each step's result is written once:\n"
            f"    state = jax.lax.fori_loop(0, steps, lambda i, s: {step}(s), state)\n"
            f"(or jax.lax.scan when each step also emits an output).\n"
            f"The body also compiles once instead of once per unrolled copy.", location=loop),
        Fix(f"jit a smaller scope: jax.jit({step}) called from Python" if fn else "jit a smaller scope",
            "Each jitted call is compiled and fused on its own; the loop runs in Python, one dispatch "
            "per step.", location=where),
        Fix("put lax.optimization_barrier between steps",
            f"    state = jax.lax.optimization_barrier({step}(state))\n"
            "Asks XLA not to move work across the barrier. Not a sure fix: JAX 0.10.2's CPU compiler\n"
            "drops the barriers before fusion, leaving the duplication (0.11.2's keeps them, and\n"
            "there it works); inspect measures it where it can.", location=where),
    ]
