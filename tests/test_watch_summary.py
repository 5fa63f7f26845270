"""Fix pricing over constructed compile records: bucketing is offered only when it saves compiles."""

from __future__ import annotations

from jitscope.analyze.watch_summary import suggest_fixes
from jitscope.model import ArgSignature, CompileEvent, LeafSpec, Location, Reason


def _event(i: int, n: int, reason: str) -> CompileEvent:
    return CompileEvent("step", Location("train.py", 3), Location("train.py", 12),
                        ArgSignature((LeafSpec("[0][0]", (n,), "float32"),)), {"compile": 0.1},
                        Reason(reason), index=i)


def test_shape_fix_priced_by_buckets():
    sizes = [10, 11, 12, 13, 20]  # buckets 16, 16, 16, 16, 32: 2 compiles instead of 5
    evs = [_event(i, n, "first_compile" if i == 0 else "shape_change") for i, n in enumerate(sizes)]
    (fix,) = [f for f in suggest_fixes(evs) if "buckets" in f.title]
    assert fix.saving_compiles == 3
    assert abs(fix.saving_seconds - 0.3) < 1e-9
    assert "{16, 32}" in fix.description


def test_no_bucketing_fix_when_it_saves_nothing():
    evs = [_event(i, n, "first_compile" if i == 0 else "shape_change") for i, n in enumerate([10, 20, 40])]
    assert not [f for f in suggest_fixes(evs) if "buckets" in f.title]
