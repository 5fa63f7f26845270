"""Chrome / Perfetto trace JSON of a watch run: one slice per compile, its phases nested inside.

Open the file in https://ui.perfetto.dev or chrome://tracing. Format: the Trace Event
Format's JSON object form, ``{"traceEvents": [...], "displayTimeUnit": "ms"}``, with
complete events (``"ph": "X"``, ``ts``/``dur`` in microseconds since the watch started).
Each compile is a slice named after the function (args: reason, detail, call site,
signature, persistent-cache hit) containing ``trace`` / ``lower`` / ``compile`` slices. Runtime
findings (JWxxx) are instant events (``"ph": "i"``) on the same timeline, at the trace they came from.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .._format import shown_program, shown_where
from .arguments import arguments

if TYPE_CHECKING:
    from ..results.watch import WatchResult

PID, TID = 1, 1
PHASES = ("trace", "lower", "compile")


def trace_events(result: WatchResult) -> list[dict[str, Any]]:
    """The trace events (metadata first, then one parent slice plus phase slices per compile)."""
    out: list[dict[str, Any]] = [
        {"ph": "M", "pid": PID, "name": "process_name", "args": {"name": f"jitscope watch {shown_program(result.program)}"}},
        {"ph": "M", "pid": PID, "tid": TID, "name": "thread_name", "args": {"name": "compiles"}},
    ]
    for e in result.events:
        spans = []
        cursor = e.timestamp
        for ph in PHASES:
            if ph not in e.phases:
                continue
            start = e.phase_starts.get(ph, cursor)
            spans.append((ph, start, e.phases[ph]))
            cursor = start + e.phases[ph]
        if not spans:
            continue
        t0 = min(s for _, s, _ in spans)
        t1 = max(s + d for _, s, d in spans)
        r = e.reason
        out.append({
            "ph": "X", "pid": PID, "tid": TID, "name": e.function, "cat": r.category if r else "compile",
            "ts": round(t0 * 1e6, 3), "dur": round(max(t1 - t0, 0.0) * 1e6, 3),
            "args": {
                "index": e.index,
                "reason": r.category if r else None,
                "detail": r.detail if r else "",
                "call_site": shown_where(e.call_site.file, e.call_site.line) if e.call_site else None,
                "defined_at": shown_where(e.definition.file, e.definition.line) if e.definition else None,
                "signature": arguments(e.signature) if e.signature else None,
                "cache_hit": e.cache_hit,
            },
        })
        for ph, s, d in spans:
            out.append({"ph": "X", "pid": PID, "tid": TID, "name": ph, "cat": "phase",
                        "ts": round(s * 1e6, 3), "dur": round(d * 1e6, 3), "args": {"function": e.function}})
    out += finding_events(result)
    return out


def finding_events(result: WatchResult) -> list[dict[str, Any]]:
    """One instant event per runtime finding, named by its code, on the compile timeline."""
    out = []
    for f in getattr(result, "findings", None) or []:
        out.append({"ph": "i", "s": "t", "pid": PID, "tid": TID, "name": f"{f.code} {f.function}", "cat": "finding",
                    "ts": round(max(f.timestamp, 0.0) * 1e6, 3),
                    "args": {"code": f.code, "severity": f.severity, "message": f.message,
                             "where": shown_where(f.location.file, f.location.line) if f.location else None,
                             "compile_index": f.compile_index, "fix": f.fix.title if f.fix else None}})
    return out


def render(result: WatchResult) -> str:
    """The whole trace file as a JSON string."""
    return json.dumps({"traceEvents": trace_events(result), "displayTimeUnit": "ms",
                       "otherData": {"jitscope": result.env.jitscope, "jax": result.env.jax}}, indent=1)
