"""JW506: a jitted function called in a loop whose program runs a ``jax.pure_callback`` at every call.

Input: the probe's per-site records (``collect/host_callbacks.HostCallbackSite``: runs of one host function
from one line of the program, with their durations). JAX 0.10 and later dispatch a program with a
``pure_callback`` from the C++ fast path, so JW501 (calls on JAX's Python path) is silent; the cost is the
round trip itself: each execution copies the operands to the host CPU device, calls the function under
``jax.default_device(cpu)`` and converts its results (measured on CPU: ~250 us per call of an 8x4 step
against ~7 us for the same step without the callback, JAX 0.10.2).

A site is reported when the host function ran at least ``MIN_RUNS`` times from one line and those runs took
at least ``MIN_SECONDS`` in all: a callback that ran a few times, or cost nothing measurable, is not advice.
A callback inside a compiled loop (``lax.scan``/``while_loop``) is JW503's (the function's program says so);
this finding is skipped for a function JW503 reported. What is measured: the runs and the seconds JAX's host
side of the callback took (the user's function included); what is not: the device time the round trip
stalls (on an accelerator, the device idles while Python runs).
"""

from __future__ import annotations

import statistics
from typing import Any

from .._format import fmt_seconds
from ..jaxmodel import fixes
from ..model import Fix
from .runtime_findings import RuntimeFinding, _source

MIN_RUNS = 20
MIN_SECONDS = 0.005


def host_callback_findings(sites: list[Any], functions: dict[tuple[str, int], str],
                           in_loops: set[str]) -> list[RuntimeFinding]:
    """One JW506 per (call site, host function) with enough runs; ``functions`` maps a call site
    ``(file, line)`` to the jitted function compiled from it, ``in_loops`` the functions JW503 reported."""
    out = []
    for s in sites:
        if s.runs < MIN_RUNS or s.seconds < MIN_SECONDS:
            continue
        loc = s.call_site
        fn = functions.get((loc.file, loc.line), "") if loc is not None else ""
        if fn and fn in in_loops:
            continue
        per = statistics.median(s.samples) if s.samples else s.seconds / s.runs
        who = fn or "a jitted function"
        at = f" at line {loc.line}" if loc else ""
        out.append(RuntimeFinding(
            "JW506", fn or s.callback,
            f"{s.runs:,} calls of {who}{at} each ran the host function {s.callback} through jax.pure_callback: "
            f"{fmt_seconds(per)} per call (median) in JAX's host callback, {fmt_seconds(s.seconds)} in all",
            "warning", loc, Fix(fixes.HOST_CALLBACK_PER_CALL.title, fixes.HOST_CALLBACK_PER_CALL.why,
                                location=s.callback_location or loc),
            compile_index=None, seconds=s.seconds, source=_source(loc),
            details={"callback": s.callback, "runs": s.runs, "seconds_per_run": per, "total_seconds": s.seconds,
                     "callback_file": s.callback_location.file if s.callback_location else None,
                     "callback_line": s.callback_location.line if s.callback_location else None,
                     "evidence": f"{s.runs:,} runs of the host function counted at JAX's pure_callback "
                                 f"implementation from this line, {fmt_seconds(s.seconds)} measured in them"},
            evidence=f"{s.runs:,} runs counted at JAX's pure_callback implementation, called from this line",
            confidence="certain"))
    return out
