"""Sentences and rows about a sharded program (inspect's ``shard_layout`` and ``collectives``),
shared by the console and HTML renderers."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .._format import fmt_bytes
from ..model import DTYPE_SHORT

if TYPE_CHECKING:
    from ..analyze.collectives import Collective, Collectives
    from ..collect.shardings import ShardedValue

ORIGIN_WORDS = {
    "explicit": "you wrote it",
    "partitioner": "the partitioner needs it for this op",
    "resharding": "resharding",
}

COLLECTIVE_HEADERS = ("collective", "source line", "op", "per device in", "devices", "bytes sent per device",
                      "origin")
VALUE_HEADERS = ("value", "global shape", "sharding", "per-device shape")


def _shape(shape: tuple[int, ...] | list[int], dtype: str = "") -> str:
    short = DTYPE_SHORT.get(dtype, dtype)
    return f"{short}[{','.join(str(d) for d in shape)}]"


def value_row(v: ShardedValue) -> tuple[str, str, str, str]:
    """One input or output: path, global shape, sharding, the shape each device holds."""
    shard = _shape(v.shard_shape, v.dtype) + (" (replicated)" if v.replicated else "")
    return v.path, _shape(v.shape, v.dtype), v.sharding, shard


def where(c: Collective) -> str:
    """``file.py:20 in f`` for a collective's source line, ``-`` when the HLO names none."""
    if c.location is None:
        return "-"
    fn = f" in {c.location.function}" if c.location.function else ""
    return f"{Path(c.location.file).name}:{c.location.line}{fn}"


def collective_row(c: Collective) -> tuple[str, str, str, str, int, str, str]:
    """One collective as a table row (COLLECTIVE_HEADERS)."""
    kind = c.kind + (" (async)" if c.asynchronous else "")
    return (kind, where(c), c.primitive or "-", f"{c.operand_type} ({fmt_bytes(c.operand_bytes)})", c.group_size,
            fmt_bytes(c.moved_bytes), ORIGIN_WORDS.get(c.origin, c.origin))


def headline(coll: Collectives) -> str:
    """One sentence: how many collectives of which kinds, bytes each device sends, resharding."""
    if not coll.collectives:
        return (f"No collectives: the program runs on {coll.partitions * coll.replicas} devices without moving data "
                "between them.")
    kinds = ", ".join(f"{t.count} {k}" for k, t in sorted(coll.by_kind.items(), key=lambda kv: -kv[1].moved_bytes))
    s = (f"{len(coll.collectives)} collective{'s' if len(coll.collectives) != 1 else ''} ({kinds}); each device "
         f"sends about {fmt_bytes(coll.moved_bytes)} per call")
    n = coll.by_origin.get("resharding", 0)
    if n:
        s += f"; {n} of them move{'s' if n == 1 else ''} a value from one sharding to another (resharding)"
    return s + "."


FORMULA_NOTE = ("Bytes sent per device, from the per-device operand size S and the group size n (ring "
                "algorithms): all-reduce 2(n-1)/n·S, all-gather (n-1)·S, reduce-scatter and all-to-all (n-1)/n·S, "
                "collective-permute S. A collective in a loop body counts once.")
