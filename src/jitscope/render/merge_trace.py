"""Chrome / Perfetto trace JSON of a merged ``jax.distributed`` job: one process track per JAX process.

Each process's compiles are drawn as ``render/trace.py`` draws one watch run (a slice per compile,
its phases inside), on its own track (``pid`` = process index + 1, named ``process N``), shifted onto
one clock by each process's watch start when every file has it. Divergences are instant events on
the processes that differ.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..results.watch import WatchResult
from .divergence_text import divergence_line
from .trace import PID, trace_events

if TYPE_CHECKING:
    from ..results.merge import MergeResult


def render(result: MergeResult) -> str:
    """The whole merged trace file as a JSON string."""
    starts = [r.started_at for r in result.processes]
    t0 = min(s for s in starts if s is not None) if starts and all(s is not None for s in starts) else None
    out: list[dict[str, Any]] = []
    for r in result.processes:
        i = r.process_index
        shift = (r.started_at - t0) * 1e6 if t0 is not None and r.started_at is not None else 0.0
        run = WatchResult(program=r.program, events=result.sequence(i))
        for ev in trace_events(run):
            ev = dict(ev, pid=PID + i)
            if ev.get("name") == "process_name":
                ev["args"] = {"name": f"process {i}" + (f" (pid {r.pid})" if r.pid else "")}
            elif "ts" in ev:
                ev["ts"] = round(ev["ts"] + shift, 3)
            out.append(ev)
        out.append({"ph": "M", "pid": PID + i, "name": "process_sort_index", "args": {"sort_index": i}})
        for d in result.divergences:
            if i in d.processes:
                seq = result.sequence(i)
                at = seq[d.position].timestamp if d.position < len(seq) else (seq[-1].timestamp if seq else 0.0)
                out.append({"ph": "i", "s": "p", "pid": PID + i, "tid": 1, "name": f"{d.kind} divergence",
                            "cat": "divergence", "ts": round(at * 1e6 + shift, 3),
                            "args": {"message": divergence_line(d)}})
    return json.dumps({"traceEvents": out, "displayTimeUnit": "ms",
                       "otherData": {"jitscope": result.env.jitscope, "kind": "merge"}}, indent=1)
