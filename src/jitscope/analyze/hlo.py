"""Read the lowered and compiled program: op counts, fusions and what each holds, cost.

Pure text analysis of ``Lowered.as_text()`` (StableHLO MLIR), ``Lowered.as_text(dialect='hlo')``
(HLO before optimisation) and ``Compiled.as_text()`` (HLO after XLA's passes). The HLO text
format is stable enough to parse line by line: a computation starts with ``%name (...) -> ... {``
(``ENTRY`` for the entry), each instruction is ``[ROOT] %name = TYPE opcode(operands), attrs``.
A ``fusion`` instruction names the fused computation it runs with ``calls=%fused_...``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from .._serde import Record

_COMP_RE = re.compile(r"^(ENTRY\s+)?%?([\w.\-]+)\s*(?:\(.*\)\s*->\s*.*)?\{\s*$")
_INSTR_RE = re.compile(r"^\s*(ROOT\s+)?%?([\w.\-]+)\s*=\s*(\([^=]*?\)|\S+)\s+([a-z][\w\-]*)\((.*)$")
_CALLS_RE = re.compile(r"calls=%?([\w.\-]+)")
_KIND_RE = re.compile(r"kind=(k\w+)")
_OPERAND_RE = re.compile(r"%?([\w.\-]+)\s*$")
_MLIR_OP_RE = re.compile(r"(?:^|=\s*|\s)\"?((?:stablehlo|chlo|mhlo|func|sdy|shardy)\.[a-z_]+)\"?")
_INDEX_COMMENT_RE = re.compile(r"/\*index=\d+\*/")  # in tuples of six or more: "(f32[], /*index=5*/s32[])"
_IGNORED = {"parameter", "constant", "tuple", "get-tuple-element"}


@dataclass
class HloInstruction:
    """One parsed HLO instruction (not serialised)."""

    name: str
    opcode: str
    type: str
    operands: list[str]
    calls: str = ""
    fusion_kind: str = ""
    root: bool = False
    args: str = ""  # the raw operand text: a constant's literal, a parameter's index
    attrs: str = ""  # everything after the operand list: dimensions, slices, metadata, ...


@dataclass
class Fusion(Record):
    """One fusion of the optimised HLO: what it computes in one kernel."""

    name: str
    kind: str  # kLoop / kInput / kOutput / kCustom
    computation: str
    output: str
    ops: int
    by_op: dict[str, int] = field(default_factory=dict)


@dataclass
class HloStats(Record):
    """Sizes of the lowered and compiled program and XLA's cost model."""

    stablehlo_ops: int = 0
    stablehlo_by_op: dict[str, int] = field(default_factory=dict)
    hlo_before_ops: int = 0
    hlo_after_ops: int = 0  # instructions outside fused computations (what runs as kernels / calls)
    hlo_after_by_op: dict[str, int] = field(default_factory=dict)
    fusion_count: int = 0
    fused_ops: int = 0  # instructions inside fused computations
    fusions: list[Fusion] = field(default_factory=list)
    flops: float | None = None
    bytes_accessed: float | None = None
    transcendentals: float | None = None
    arithmetic_intensity: float | None = None  # flops per byte accessed
    cost: dict[str, float] = field(default_factory=dict)
    memory: dict[str, int] = field(default_factory=dict)


def parse_hlo(text: str) -> dict[str, list[HloInstruction]]:
    """``{computation name: instructions}``; the entry computation is also under key ``"__entry__"``."""
    comps: dict[str, list[HloInstruction]] = {}
    current: list[HloInstruction] | None = None
    for line in text.splitlines():
        if current is None or line.rstrip().endswith("{") and not line.startswith(" "):
            m = _COMP_RE.match(line)
            if m:
                current = comps.setdefault(m.group(2), [])
                if m.group(1):
                    comps["__entry__"] = current
                continue
        if line.startswith("}"):
            current = None
            continue
        if current is None:
            continue
        if "/*" in line:
            line = _INDEX_COMMENT_RE.sub("", line)
        m = _INSTR_RE.match(line)
        if not m:
            continue
        root, name, typ, opcode, rest = m.groups()
        depth, end = 1, len(rest)
        for i, ch in enumerate(rest):  # the operand list ends at the matching ')'
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                end = i
                break
        args = rest[:end]
        operands = [m2.group(1) for a in args.split(",") if (m2 := _OPERAND_RE.search(a.strip()))]
        if opcode in ("parameter", "constant", "iota"):  # literal arguments, not operands
            operands = []
        calls = _CALLS_RE.search(rest)
        kind = _KIND_RE.search(rest)
        current.append(HloInstruction(name, opcode, typ, operands,
                                      calls.group(1) if calls else "", kind.group(1) if kind else "", bool(root),
                                      args, rest[end + 1:]))
    return comps


def count_stablehlo(text: str) -> Counter[str]:
    """Operations of a StableHLO module by name (``stablehlo.add``: 3, ...)."""
    ops: Counter[str] = Counter()
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith(("#", "//", "module", "}")):
            continue
        m = _MLIR_OP_RE.search(s)
        if m:
            ops[m.group(1)] += 1
    return ops


def _count_ops(instrs: list[HloInstruction]) -> Counter[str]:
    return Counter(i.opcode for i in instrs if i.opcode not in _IGNORED)


def hlo_stats(stablehlo_text: str = "", hlo_before_text: str = "", hlo_after_text: str = "",
              cost: dict[str, float] | None = None, memory: dict[str, int] | None = None) -> HloStats:
    """Op counts, fusions and cost of one compiled function."""
    st = HloStats()
    sh = count_stablehlo(stablehlo_text)
    st.stablehlo_by_op = dict(sh.most_common())
    st.stablehlo_ops = sum(n for op, n in sh.items() if op not in ("func.func", "func.return"))
    before = parse_hlo(hlo_before_text)
    st.hlo_before_ops = sum(sum(_count_ops(v).values()) for k, v in before.items() if k != "__entry__")
    after = parse_hlo(hlo_after_text)
    fused_names = {i.calls for instrs in after.values() for i in instrs if i.opcode == "fusion" and i.calls}
    outside: Counter[str] = Counter()
    for name, instrs in after.items():
        if name == "__entry__" or name in fused_names:
            continue
        outside.update(_count_ops(instrs))
        for ins in instrs:
            if ins.opcode == "fusion":
                body = _count_ops(after.get(ins.calls, []))
                st.fusions.append(Fusion(ins.name, ins.fusion_kind, ins.calls, ins.type, sum(body.values()),
                                         dict(body.most_common())))
    st.hlo_after_by_op = dict(outside.most_common())
    st.hlo_after_ops = sum(outside.values())
    st.fusion_count = len(st.fusions)
    st.fused_ops = sum(f.ops for f in st.fusions)
    st.cost = dict(cost or {})
    st.memory = dict(memory or {})
    st.flops = st.cost.get("flops")
    st.bytes_accessed = st.cost.get("bytes accessed")
    st.transcendentals = st.cost.get("transcendentals")
    if st.flops is not None and st.bytes_accessed:
        st.arithmetic_intensity = st.flops / st.bytes_accessed
    return st


def _dot_label(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def fusion_dot(comps: dict[str, list[HloInstruction]], title: str = "optimised HLO") -> str:
    """The entry computation of the optimised HLO as Graphviz DOT; fusions are boxes listing their ops.

    ``comps`` is ``parse_hlo(compiled.as_text())``.
    """
    entry = comps.get("__entry__", [])
    lines = ["digraph hlo {", f'  label="{_dot_label(title)}"; labelloc=t; rankdir=TB;',
             '  node [fontname="Helvetica" fontsize=10];']
    for ins in entry:
        if ins.opcode == "fusion":
            body = _count_ops(comps.get(ins.calls, []))
            ops = "\n".join(f"{op} x{n}" if n > 1 else op for op, n in body.most_common(8))
            more = f"\n... {len(body) - 8} more kinds" if len(body) > 8 else ""
            label = f"{ins.name} ({ins.fusion_kind})\n{ins.type}\n---\n{ops}{more}"
            lines.append(f'  "{ins.name}" [shape=box style=filled fillcolor="#cfe2ff" label="{_dot_label(label)}"];')
        else:
            shape = "ellipse" if ins.opcode in ("parameter", "constant") else "box"
            lines.append(f'  "{ins.name}" [shape={shape} label="{_dot_label(ins.opcode + chr(10) + ins.type)}"];')
    names = {i.name for i in entry}
    for ins in entry:
        for op in ins.operands:
            if op in names:
                lines.append(f'  "{op}" -> "{ins.name}";')
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- source locations: the stack-frame tables XLA prints before the computations --------------------

_FRAME_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_TABLE_ROW_RE = re.compile(r"^(\d+)\s+(.*)$")
_FIELD_RE = re.compile(r"(\w+)=(-?\d+)")

Frame = tuple[str, str, int, "int | None"]  # (file, function, line, column)


def frame_chains(text: str) -> dict[int, tuple[Frame, ...]]:
    """``{stack_frame_id: frames}`` from an HLO module's ``FileNames`` / ``FunctionNames`` /
    ``FileLocations`` / ``StackFrames`` tables (what ``metadata={... stack_frame_id=N}`` points at);
    frames are ``(file, function, line, column)``, innermost first. Empty when the text has none."""
    tables: dict[str, dict[int, str]] = {}
    current: dict[int, str] | None = None
    for line in text.splitlines():
        if line in _FRAME_TABLES:
            current = tables.setdefault(line, {})
            continue
        if current is None:
            if line.startswith(("ENTRY", "%", "HloModule")) and tables.get("StackFrames"):
                break  # the tables come before the computations
            continue
        m = _TABLE_ROW_RE.match(line)
        if m:
            current[int(m.group(1))] = m.group(2)
        elif line.strip():
            current = None
    if "StackFrames" not in tables:
        return {}

    def unquote(v: str) -> str:
        v = v.strip()
        return v[1:-1] if v.startswith('"') and v.endswith('"') else v

    files = {k: unquote(v) for k, v in tables.get("FileNames", {}).items()}
    funcs = {k: unquote(v) for k, v in tables.get("FunctionNames", {}).items()}
    locs = {k: dict((a, int(b)) for a, b in _FIELD_RE.findall(v)) for k, v in tables.get("FileLocations", {}).items()}
    frames = {k: dict((a, int(b)) for a, b in _FIELD_RE.findall(v)) for k, v in tables["StackFrames"].items()}
    # XLA prints a root's parent as 0 in some versions and every parent one higher (root: 1) in
    # others (JAX 0.10): no 0 anywhere means the shifted form.
    shift = 0 if any(f.get("parent_frame_id", 0) == 0 for f in frames.values()) else 1
    chains: dict[int, tuple[Frame, ...]] = {}
    for fid in frames:
        chain: list[Frame] = []
        cur, seen = fid, set()
        while cur in frames and cur not in seen:
            seen.add(cur)
            loc = locs.get(frames[cur].get("file_location_id", -1), {})
            chain.append((files.get(loc.get("file_name_id", -1), ""), funcs.get(loc.get("function_name_id", -1), ""),
                          loc.get("line", 0), loc.get("column")))
            cur = frames[cur].get("parent_frame_id", 0) - shift
        chains[fid] = tuple(chain)
    return chains
