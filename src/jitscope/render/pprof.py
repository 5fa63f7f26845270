"""pprof profile of an inspect result: equations, HLO ops and estimated compile time per call stack.

``go tool pprof -top file.pb.gz`` (or any pprof reader: speedscope, pprof.me, Perfetto) opens it;
no pprof binary is needed to write it. The file is a gzipped ``perftools.profiles.Profile``
(github.com/google/pprof, proto/profile.proto) encoded by hand: a few varint and
length-delimited fields, no protobuf dependency. One sample per distinct user call stack
(``LineCostTotals.stacks``), locations innermost first, one location per source line with its
function, file and line. Sample types: ``equations/count``, ``hlo_ops/count``,
``optimized_ops/count`` and ``compile_time/nanoseconds`` (estimated: docs/inspect.md).
"""

from __future__ import annotations

import gzip
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..results.inspect import InspectResult

SAMPLE_TYPES = (("equations", "count"), ("hlo_ops", "count"), ("optimized_ops", "count"),
                ("compile_time", "nanoseconds"))


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # int64 fields: two's complement, as protobuf writes negatives
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _int(field: int, n: int) -> bytes:
    return _varint(field << 3) + _varint(n) if n else b""


def _bytes(field: int, data: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _packed(field: int, values: list[int]) -> bytes:
    return _bytes(field, b"".join(_varint(v) for v in values)) if values else b""


def profile_bytes(result: InspectResult) -> bytes:
    """The ``Profile`` message, not compressed."""
    strings: dict[str, int] = {"": 0}

    def s(text: str) -> int:
        return strings.setdefault(text, len(strings))

    out = bytearray()
    for kind, unit in SAMPLE_TYPES:  # 1: sample_type
        out += _bytes(1, _int(1, s(kind)) + _int(2, s(unit)))
    totals = result.line_cost_totals
    for st in totals.stacks if totals else []:  # 2: sample
        values = [st.equations, st.hlo_ops, st.optimized_ops, round(st.compile_seconds * 1e9)]
        out += _bytes(2, _packed(1, [i + 1 for i in st.lines]) + _packed(2, values))
    functions: dict[tuple[str, str], int] = {}
    for i, r in enumerate(result.line_costs):  # 4: location (id = index + 1), one line each
        fid = functions.setdefault((r.function or "?", r.file), len(functions) + 1)
        out += _bytes(4, _int(1, i + 1) + _bytes(4, _int(1, fid) + _int(2, r.line)))
    for (name, file), fid in functions.items():  # 5: function
        out += _bytes(5, _int(1, fid) + _int(2, s(name)) + _int(3, s(name)) + _int(4, s(file)))
    comment = f"jitscope inspect {result.target}: compile_time is an estimate (docs/inspect.md)"
    out += _packed(13, [s(comment)])  # 13: comment (string indices)
    out += _bytes(11, _int(1, s("compile_time")) + _int(2, s("nanoseconds")))  # 11: period_type
    out += _int(14, s("compile_time"))  # 14: default_sample_type
    table = b"".join(_bytes(6, t.encode("utf-8")) for t in strings)  # 6: string_table, "" first
    return bytes(out) + table


def write_pprof(result: InspectResult, path: str) -> None:
    """Write the gzipped profile to ``path``.

    Raises:
        UsageError: the file cannot be written.
    """
    from pathlib import Path

    from ..errors import UsageError

    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(gzip.compress(profile_bytes(result), mtime=0))
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from None
