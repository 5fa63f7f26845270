"""The collectives of a sharded program's optimised HLO: what moves between devices, how much, why.

Pure text analysis of ``Compiled.as_text()`` (parsed with ``analyze.hlo.parse_hlo``). Each
collective instruction (``all-reduce``, ``all-gather``, ``reduce-scatter``, ``all-to-all``,
``collective-permute``, ``ragged-all-to-all``, and their async ``-start`` forms; a ``-done`` is the
same transfer and is not counted again) becomes one ``Collective`` with:

- its per-device operand bytes (the HLO of a partitioned program has per-device shapes);
- the size of the device group it runs over, from ``replica_groups`` in any of XLA's three
  spellings (``{{0,1},{2,3}}``, the iota form ``[2,2]<=[4]``, the mesh form
  ``mesh['x'=2,'y'=4] {'y'}``; empty means every device) or ``source_target_pairs``;
- the bytes each device sends under the usual ring algorithms (``moved_bytes``, ``MOVED_FORMULAS``);
- the user's source line, from the instruction's ``metadata`` (``stack_frame_id`` into the
  module's frame tables, or ``source_file``/``source_line`` in older JAX);
- an origin: ``explicit`` (a collective primitive the user wrote, ``psum`` in a ``shard_map``),
  ``partitioner`` (XLA's SPMD partitioner needs it to compute an op on sharded operands: the
  all-reduce of partial sums of a contraction over a sharded axis), or ``resharding`` (data moved
  from one sharding of a value to another: a ``with_sharding_constraint``, a ``shard_map`` boundary
  whose ``in_specs`` differ from the argument's sharding, ``out_shardings``, operands that arrive
  sharded differently). The origin is read from the primitive in ``op_name`` and the opcode, so it
  is a strong hint, not a proof: an ``all-to-all`` the partitioner chose for a transpose is counted
  as resharding too.

A collective inside a loop body is one instruction here however many times the loop runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .._serde import Record
from ..model import Finding, Fix, Location
from .hlo import HloInstruction, frame_chains, parse_hlo

KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute", "ragged-all-to-all")

# Bytes one device sends, from the per-device operand bytes S and the group size n (ring algorithms).
MOVED_FORMULAS = {
    "all-reduce": "2(n-1)/n x S",  # reduce-scatter then all-gather
    "all-gather": "(n-1) x S",  # receives every other shard of size S
    "reduce-scatter": "(n-1)/n x S",
    "all-to-all": "(n-1)/n x S",  # keeps its own 1/n
    "ragged-all-to-all": "(n-1)/n x S",
    "collective-permute": "S",  # sends its buffer once
}

_DTYPE_BITS = {"pred": 8, "s4": 4, "u4": 4, "s8": 8, "u8": 8, "s16": 16, "u16": 16, "s32": 32, "u32": 32,
               "s64": 64, "u64": 64, "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "c64": 64, "c128": 128,
               "f8e4m3fn": 8, "f8e5m2": 8, "f8e4m3": 8, "f8e4m3fnuz": 8, "f8e5m2fnuz": 8, "f8e4m3b11fnuz": 8,
               "f8e3m4": 8, "f4e2m1fn": 4, "f8e8m0fnu": 8}
_ARRAY_RE = re.compile(r"\b([a-z]+\d*[a-z0-9]*)\[([\d,]*)\]")
_GROUPS_LIST_RE = re.compile(r"replica_groups=\{((?:\{[\d,\s]*\},?\s*)*)\}")
_GROUPS_IOTA_RE = re.compile(r"replica_groups=\[([\d,]+)\]<=")
_GROUPS_MESH_RE = re.compile(r"replica_groups=mesh\[([^\]]*)\]\s*\{([^}]*)\}")
_PAIRS_RE = re.compile(r"source_target_pairs=\{((?:\{\d+,\d+\},?)*)\}")
_PARTITIONS_RE = re.compile(r"num_partitions=(\d+)")
_REPLICAS_RE = re.compile(r"replica_count=(\d+)")
_OP_NAME_RE = re.compile(r'op_name="([^"]*)"')
_FRAME_ID_RE = re.compile(r"stack_frame_id=(\d+)")
_SOURCE_RE = re.compile(r'source_file="([^"]*)"\s+source_line=(\d+)')

_EXPLICIT = ("psum", "pmax", "pmin", "pmean", "all_gather", "all_to_all", "ragged_all_to_all", "ppermute",
             "pshuffle", "pbroadcast", "reduce_scatter", "psum_scatter", "pswapaxes", "preduce")
_RESHARD_PRIMS = ("sharding_constraint", "reshard", "shard_map", "device_put", "mesh_cast", "pjit")
# Ops whose sharded form needs data from other devices to compute (not a change of layout).
_COMPUTE_PRIMS = ("dot_general", "conv_general_dilated", "reduce", "argmax", "argmin", "cumsum", "cumprod",
                  "cumlogsumexp", "cummax", "cummin", "sort", "gather", "scatter", "dynamic_slice",
                  "dynamic_update_slice", "fft", "top_k", "select_and", "reduce_window", "while", "scan")


@dataclass
class Collective(Record):
    """One collective instruction of the optimised HLO."""

    kind: str  # one of KINDS (the async -start form is recorded under its plain kind)
    name: str  # the HLO instruction's name
    asynchronous: bool = False  # an -start/-done pair
    operand_type: str = ""  # per-device operand type(s), e.g. "f32[64,16]"
    operand_bytes: int = 0  # S: per-device bytes going in
    group_size: int = 1  # n: devices in each replica group (or pairs of a collective-permute)
    groups: int = 1
    moved_bytes: int = 0  # bytes each device sends (MOVED_FORMULAS)
    primitive: str = ""  # the JAX primitive in op_name ("dot_general", "psum", "sharding_constraint")
    op_name: str = ""
    origin: str = "partitioner"  # explicit / partitioner / resharding
    location: Location | None = None  # the innermost user frame
    stack: list[Location] = field(default_factory=list)  # innermost first


@dataclass
class CollectiveKindTotal(Record):
    """How many collectives of one kind, and their bytes."""

    count: int = 0
    operand_bytes: int = 0
    moved_bytes: int = 0


@dataclass
class Collectives(Record):
    """Every collective of one compiled program, with totals by kind and origin."""

    partitions: int = 1  # num_partitions of the module (devices the program is split over)
    replicas: int = 1
    collectives: list[Collective] = field(default_factory=list)
    by_kind: dict[str, CollectiveKindTotal] = field(default_factory=dict)
    by_origin: dict[str, int] = field(default_factory=dict)
    moved_bytes: int = 0  # sum over collectives of the bytes one device sends
    constraints: list[Location] = field(default_factory=list)  # with_sharding_constraint calls (pre-opt HLO)

    @property
    def resharding(self) -> list[Collective]:
        """The collectives that move a value from one sharding to another."""
        return [c for c in self.collectives if c.origin == "resharding"]


def type_bytes(type_text: str) -> int:
    """Bytes of an HLO type (``f32[64,16]{1,0}``, or a tuple of them); tokens and opaque types count 0."""
    total = 0
    for dtype, dims in _ARRAY_RE.findall(type_text):
        bits = _DTYPE_BITS.get(dtype)
        if bits is None:
            continue
        n = 1
        for d in dims.split(","):
            if d:
                n *= int(d)
        total += n * bits // 8
    return total


def group_size(attrs: str, devices: int) -> tuple[int, int]:
    """``(devices per group, number of groups)`` from an instruction's ``replica_groups`` or
    ``source_target_pairs``; ``devices`` (the module's partitions x replicas) when groups are empty."""
    if m := _GROUPS_MESH_RE.search(attrs):
        sizes = {k.strip().strip("'\""): int(v) for k, v in re.findall(r"([^,=]+)=(\d+)", m.group(1))}
        chosen = [a.strip().strip("'\"") for a in m.group(2).split(",") if a.strip()]
        n = 1
        for a in chosen:
            n *= sizes.get(a, 1)
        total = 1
        for v in sizes.values():
            total *= v
        return n, max(total // max(n, 1), 1)
    if m := _GROUPS_IOTA_RE.search(attrs):
        dims = [int(d) for d in m.group(1).split(",") if d]
        return (dims[-1], dims[0] if len(dims) > 1 else 1) if dims else (devices, 1)
    if m := _GROUPS_LIST_RE.search(attrs):
        groups = re.findall(r"\{([\d,\s]*)\}", m.group(1))
        sizes = [len([x for x in g.split(",") if x.strip()]) for g in groups]
        return (max(sizes), len(sizes)) if sizes and max(sizes) else (devices, 1)
    if m := _PAIRS_RE.search(attrs):
        pairs = re.findall(r"\{(\d+),(\d+)\}", m.group(1))
        return len(pairs), 1
    return devices, 1


def moved_bytes(kind: str, operand_bytes: int, n: int) -> int:
    """Bytes one device sends for a collective of ``kind`` (``MOVED_FORMULAS``)."""
    if n <= 1:
        return 0
    if kind == "all-reduce":
        return 2 * (n - 1) * operand_bytes // n
    if kind == "all-gather":
        return (n - 1) * operand_bytes
    if kind == "collective-permute":
        return operand_bytes
    return (n - 1) * operand_bytes // n


def _kind(opcode: str) -> tuple[str, bool] | None:
    if opcode in KINDS:
        return opcode, False
    if opcode.endswith("-start") and opcode[: -len("-start")] in KINDS:
        return opcode[: -len("-start")], True
    return None


def _primitive(op_name: str) -> str:
    last = op_name.rsplit("/", 1)[-1]
    return re.sub(r"\[.*$", "", last)


def origin_of(kind: str, primitive: str, op_name: str) -> str:
    """``explicit`` / ``partitioner`` / ``resharding``: who asked for this collective (module docstring)."""
    if primitive.startswith(_EXPLICIT):
        return "explicit"
    if primitive.startswith(_RESHARD_PRIMS) or not op_name or "/" not in op_name:
        return "resharding"  # a boundary, a constraint, or a bare argument name (the parameter moved)
    if kind in ("all-reduce", "reduce-scatter"):
        return "partitioner"  # partial results combined: a reduction or contraction over a sharded axis
    if kind == "all-gather" and primitive.startswith(_COMPUTE_PRIMS):
        return "partitioner"
    return "resharding"


def _location(attrs: str, chains: dict) -> tuple[Location | None, list[Location]]:
    if (m := _FRAME_ID_RE.search(attrs)) and (chain := chains.get(int(m.group(1)))):
        stack = [Location(f, line, column=col or None, function=fn or None) for f, fn, line, col in chain if f]
        return (stack[0] if stack else None), stack
    if m := _SOURCE_RE.search(attrs):
        loc = Location(m.group(1), int(m.group(2)))
        return loc, [loc]
    return None, []


def sharding_constraints(hlo_before_with_locations: str) -> list[Location]:
    """Where the program calls ``with_sharding_constraint``: the ``Sharding`` custom calls of the HLO
    before optimisation printed with its frame tables (``collect.line_sources.hlo_with_locations``)."""
    chains = frame_chains(hlo_before_with_locations)
    out: list[Location] = []
    for instrs in parse_hlo(hlo_before_with_locations).values():
        for ins in instrs:
            if ins.opcode == "custom-call" and 'custom_call_target="Sharding"' in ins.attrs \
                    and "sharding_constraint" in ins.attrs:
                loc, _ = _location(ins.attrs, chains)
                if loc is not None and loc not in out:
                    out.append(loc)
    return out


def collectives(hlo_after_text: str, hlo_before_with_locations: str = "") -> Collectives:
    """The collectives of one optimised HLO module (``Compiled.as_text()``), with totals."""
    header = hlo_after_text[: hlo_after_text.find("\n")] if "\n" in hlo_after_text else hlo_after_text
    out = Collectives()
    if m := _PARTITIONS_RE.search(header):
        out.partitions = int(m.group(1))
    if m := _REPLICAS_RE.search(header):
        out.replicas = int(m.group(1))
    devices = out.partitions * out.replicas
    comps = parse_hlo(hlo_after_text)
    chains = frame_chains(hlo_after_text)
    seen: set[int] = set()
    for instrs in comps.values():
        if id(instrs) in seen:  # "__entry__" is the entry computation a second time
            continue
        seen.add(id(instrs))
        types = {i.name: i.type for i in instrs}
        for ins in instrs:
            k = _kind(ins.opcode)
            if k is None:
                continue
            out.collectives.append(_collective(ins, k[0], k[1], types, devices, chains))
    for c in out.collectives:
        t = out.by_kind.setdefault(c.kind, CollectiveKindTotal())
        t.count += 1
        t.operand_bytes += c.operand_bytes
        t.moved_bytes += c.moved_bytes
        out.by_origin[c.origin] = out.by_origin.get(c.origin, 0) + 1
        out.moved_bytes += c.moved_bytes
    if hlo_before_with_locations:
        out.constraints = sharding_constraints(hlo_before_with_locations)
    return out


def _collective(ins: HloInstruction, kind: str, is_async: bool, types: dict[str, str], devices: int,
                chains: dict) -> Collective:
    operand_types = [types[o] for o in ins.operands if o in types]
    operand_type = _types_text(operand_types) or re.sub(r"\{[\d,]*\}", "", ins.type)
    size = sum(type_bytes(t) for t in operand_types) if operand_types else type_bytes(ins.type)
    n, groups = group_size(ins.attrs, devices)
    op_name = m.group(1) if (m := _OP_NAME_RE.search(ins.attrs)) else ""
    prim = _primitive(op_name)
    loc, stack = _location(ins.attrs, chains)
    return Collective(kind, ins.name, is_async, operand_type, size, n, groups, moved_bytes(kind, size, n), prim,
                      op_name, origin_of(kind, prim, op_name), loc, stack)


def _types_text(types: list[str]) -> str:
    """``f32[2,16]`` or ``8 x f32[2,1,2]`` (an all-to-all of eight equal pieces)."""
    plain = [re.sub(r"\{[\d,]*\}", "", t) for t in types]
    if len(plain) > 1 and len(set(plain)) == 1:
        return f"{len(plain)} x {plain[0]}"
    return ", ".join(plain)


def resharding_findings(coll: Collectives) -> list[Finding]:
    """A ``resharding`` warning per collective that moves a value between two shardings."""
    findings = []
    for c in coll.resharding:
        where = f" at line {c.location.line}" if c.location else ""
        prim = f" ({c.primitive})" if c.primitive else ""
        hint = ""
        if c.primitive.startswith("shard_map"):
            hint = "; the shard_map's in_specs/out_specs differ from the sharding its operand arrives with"
        elif coll.constraints:
            lines = ", ".join(str(loc.line) for loc in coll.constraints[:4])
            hint = f"; likely from the with_sharding_constraint at line {lines}"
        findings.append(Finding(
            "resharding", f"{c.kind}{where}{prim} moves a value from one sharding to another: {c.operand_type} "
            f"per device over {c.group_size} devices, about {c.moved_bytes:,} bytes sent per device{hint}",
            "warning", c.location, name=c.kind,
            fix=Fix("give the value one sharding end to end",
                    "Shard the argument the way its consumer wants it (device_put with that NamedSharding, or "
                    "matching in_shardings / in_specs), or drop the constraint that changes it."),
            details={"moved_bytes": c.moved_bytes, "operand_bytes": c.operand_bytes, "group_size": c.group_size,
                     "op_name": c.op_name}))
    return findings


def sharding_mismatch(args: list[tuple[str, str | None]], wanted: list[str]) -> Finding | None:
    """The ``sharding-mismatch`` error for a call JAX refused: committed arguments (path, sharding
    text) against the jit's ``in_shardings`` (texts; one applies to all); None when they do not line up."""
    if len(wanted) == 1:
        wanted = wanted * len(args)
    if len(wanted) != len(args):
        return None
    pairs = [(path, have, want) for (path, have), want in zip(args, wanted, strict=True) if have and have != want]
    if not pairs:
        return None
    text = "; ".join(f"{path} is committed to {have}, in_shardings asks for {want}" for path, have, want in pairs)
    path, have, want = pairs[0]
    return Finding(
        "sharding-mismatch", f"jit refuses the call: {text} (JAX does not reshard a committed argument to "
        "in_shardings)", "error", name=path,
        fix=Fix(f"device_put {path} to the in_sharding before the call, or drop in_shardings",
                "jax.device_put(x, in_sharding) once, outside the loop; or leave in_shardings unspecified so jit "
                "takes the argument's own sharding."),
        details={"argument": path, "argument_sharding": have, "in_sharding": want})
