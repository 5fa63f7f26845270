"""JW501: jit calls that never reach JAX's C++ dispatch fast path, per function, with the cause.

Input: the collector's per-function records (``collect/dispatch.SlowPathFunction``: Python-path calls
that neither traced nor compiled, their total and sampled durations, why JAX refused the fast path, the
program's effectful equations). A function is reported when it has at least ``min_calls`` such calls,
so a one-off (an evicted cache entry, a call right after a compile) is not, and when the time they lost
against a fast call is at least ``MIN_SECONDS_LOST`` (a nil cost is not advice). A cause the program opted
into with a debugging or profiling setting (``jax_debug_key_reuse``, PGLE) is the setting's documented price:
reported only when the loss is at least ``OPTED_IN_MIN_SHARE`` of the watched run's wall time.

What is measured and what is estimated: each slow call's wall time is measured (from entering JAX's
Python path to its end, including watch's own few microseconds there and any part of the program's run
the call waited for). The cost of a fast call is a reference, measured once per process on a tiny
jitted function (``fast_call``, called only when some function is reported): the time lost is the
number of slow calls times (their median - the fast call), an estimate. The median, not the total,
because on a busy machine a few calls are long for want of a CPU, not because of JAX.

The execution a call waited for is not dispatch (``execution``; effects only). A program with effects (``jax.debug.print``,
callbacks) runs synchronously on the CPU backend (measured, ``benchmarks/effect_call_wait.py``; on an accelerator
the call may return before the run: then no call waits past the reference and the whole call is charged, an upper
bound): its call returns only after the program ran, so its time includes the
execution, which moving the callback out would not save: without the effect the call would return at once
and the execution would overlap the host's next work, as far as the host had any. Per call, the collector
measures the part of the call after JAX's ``_infer_params`` (the execution and JAX's bind around it) and the
host's time since the function's previous slow call. The part beyond a whole call of a tiny program with a
no-op callback (``effect_call``: the Python path, the callback's round trip and nothing to compute) is the
program's execution; of it, only what overlap would have hidden (at most the host's time between the calls)
is lost (a wait counts as execution only beyond ``EXECUTION_FACTOR`` times the reference: within it, a busy CPU
stretched the reference's own cost). Each call is charged ``elapsed - execution + min(execution, host gap)``; the median of those against
the fast call is the loss per call. A tiny program (its calls never wait longer than the reference) is
charged its whole call, as before.

Causes, named from the conditions JAX itself checks (``_jaxcompat.fastpath_blockers``): effects
(``jax.debug.print``/``jax.debug.callback``, ``io_callback``, ordered effects; with the user's line of
each), host callbacks (JAX 0.6-0.8), mutable-array ref effects, ``jax_debug_key_reuse``, PGLE
profiling, ``jax_no_execution``, an executable the C++ path cannot run; anything else is unknown. A
call JAX had made fast-path ready that still came back through Python has an unknown cause too (its
C++ cache did not keep the entry).
"""

from __future__ import annotations

import linecache
import statistics
from collections.abc import Callable, Iterable
from typing import Any

from .._format import fmt_seconds
from ..model import Fix, Location
from .runtime_record import RuntimeFinding

DISPATCH_MIN_CALLS = 10
# A function whose measured loss is below this is not reported: a finding whose cost is nil is not advice
# (the Python path of a small program under jax_debug_key_reuse can cost no more than a fast call).
MIN_SECONDS_LOST = 0.001
# Causes the program opted into with a debugging or profiling setting (``jax_debug_key_reuse``, PGLE): their
# cost is the setting's documented price, so it is advice only when it is a material share of the watched run
# (a flag left on in a run it now dominates); below that, the finding would tell the user what they chose.
OPTED_IN = ("debug_key_reuse", "pgle")
OPTED_IN_MIN_SHARE = 0.10
# A call's wait counts as its program's execution only beyond this multiple of the tiny effect program's whole call.
EXECUTION_FACTOR = 2.0

_PRIMITIVES = {"debug_callback": "jax.debug.callback/jax.debug.print", "debug_print": "jax.debug.print",
               "io_callback": "io_callback"}

_CAUSES: dict[str, tuple[str, str, str]] = {  # blocker -> (cause phrase, fix title, why)
    "effects": (
        "the program has side effects ({sites}); JAX never dispatches a program with effects from its C++ cache",
        "move the callback out of the hot function",
        "Every call of a jitted program containing jax.debug.print/jax.debug.callback/io_callback takes the "
        "Python path. Call it every N steps from a separate function, return the value and print outside, or "
        "keep the callback in a debug-only variant."),
    "ref_effects": (
        "the program reads or writes mutable array refs; JAX never fast-dispatches a program with ref effects",
        "pass arrays instead of refs",
        "A jitted function whose program has ref effects runs every call through Python."),
    "debug_key_reuse": (
        "jax_debug_key_reuse is on: every jitted call runs through Python to check PRNG key use",
        "turn off jax_debug_key_reuse outside debugging", "Key-reuse checking runs every call in Python."),
    "pgle": (
        "profile-guided optimisation (jax_enable_pgle) is still profiling this function",
        "expected while PGLE profiles", "PGLE runs the first calls through Python to profile them."),
    "no_execution": (
        "jax_no_execution is on", "turn off jax_no_execution", "No call is dispatched from the C++ cache."),
    "executable": (
        "its compiled executable is not one the C++ dispatch path can run",
        "check the function's jit options", "Only plain single-program executables are dispatched from C++."),
    "host_callbacks": (
        "the program calls back to Python on the host (pure_callback and friends); this JAX never "
        "fast-dispatches a program with host callbacks",
        "move the callback out of the hot function", "Every call of a program with host callbacks takes the "
        "Python path on this JAX version."),
    "no_executable": (
        "unknown (JAX ran the call without an executable)", "", ""),
    "unknown": (
        "unknown (JAX refused the fast path for none of the reasons jitscope can name)", "", ""),
    "": (
        "unknown: the call was fast-path ready, yet JAX's C++ dispatch cache did not keep it (an evicted entry "
        "in a full cache, or arguments the cache cannot key, are possible)",
        "keep the number of jitted functions and signatures small",
        "JAX's C++ dispatch cache holds a bounded number of functions and signatures; calls it does not find "
        "take the Python path."),
}


def _cause(blockers: tuple[str, ...]) -> str:
    if any(b in ("ordered_effects", "unordered_effects") for b in blockers):
        return "effects"
    return blockers[0] if blockers else ""


def _site_text(site: Any) -> str:
    what = _PRIMITIVES.get(site.primitive, site.primitive)
    kind = "an ordered effect" if site.effect.startswith("Ordered") else "an unordered effect"
    where = f" at line {site.location.line}" if site.location else ""
    return f"{what}{where} ({kind})"


def _source(loc: Location | None) -> str:
    return linecache.getline(loc.file, loc.line).strip() if loc else ""


def _paid(rec: Any, effect_call: Callable[[], float | None] | None) -> tuple[float, float]:
    """The median seconds a call paid for being off the fast path, and the median execution it waited for (module
    docstring: each call's time less the execution beyond the tiny effect program's whole call, plus what of that
    execution the host's time between calls would have overlapped)."""
    waits, gaps, samples = getattr(rec, "waits", None), getattr(rec, "gaps", None), rec.samples
    if not waits or len(waits) != len(samples) or effect_call is None or max(waits) <= 0:
        return rec.median_seconds, 0.0
    ref = effect_call()
    if ref is None:
        return rec.median_seconds, 0.0
    # A wait within EXECUTION_FACTOR of the reference is the reference's own cost stretched by a busy CPU, not a
    # program running: only a wait well beyond it is execution (else load alone moves a tiny program's loss).
    executions = [w - ref if w > EXECUTION_FACTOR * ref else 0.0 for w in waits]
    if not any(executions):
        return rec.median_seconds, 0.0
    paid = [e - x + min(x, g) for e, x, g in zip(samples, executions, gaps or [0.0] * len(samples), strict=False)]
    return statistics.median(paid), statistics.median(executions)


def off_fast_path(functions: Iterable[Any], fast_call: Callable[[], float | None], t0: float = 0.0,
                  min_calls: int = DISPATCH_MIN_CALLS, wall_seconds: float | None = None,
                  effect_call: Callable[[], float | None] | None = None) -> list[RuntimeFinding]:
    """One JW501 per function with at least ``min_calls`` Python-path calls that neither traced nor
    compiled. ``fast_call()`` gives the cost of a fast call (called only when something is reported);
    ``t0`` is the ``time.time()`` the watch started at (finding timestamps are relative to it);
    ``wall_seconds``, the watched run's wall time: an ``OPTED_IN`` cause is reported only when its loss is at
    least ``OPTED_IN_MIN_SHARE`` of it (without it, or without a measured loss, never). ``effect_call()``: the whole
    call of a tiny program with a no-op callback, the line past which a call's wait is its program's execution
    (module docstring; without it, the whole call is charged)."""
    hot = [f for f in functions if f.calls >= min_calls]
    if not hot:
        return []
    fast = fast_call()
    out = []
    for rec in hot:
        main = max(rec.blockers.items(), key=lambda kv: kv[1])[0] if rec.blockers else ()
        cause = _cause(main)
        phrase, title, why = _CAUSES.get(cause, _CAUSES["no_executable"])
        sites = list(rec.effects or [])
        if cause == "effects":
            phrase = phrase.format(sites="; ".join(_site_text(s) for s in sites[:3]) or "effects")
        per = rec.median_seconds
        # Only a program with effects runs synchronously (on CPU); under other causes the part after _infer_params is
        # JAX's Python work (the key-reuse checker...), all of it dispatch cost.
        paid, execution = _paid(rec, effect_call) if fast is not None and cause == "effects" else (per, 0.0)
        # The median, not the total: on a busy machine a few calls wait for the CPU, not for JAX.
        # ... and never more than the calls took in all (the median of a skewed run can exceed the mean).
        lost = min(rec.calls * max(paid - fast, 0.0), rec.seconds) if fast is not None else None
        if lost is not None and lost < MIN_SECONDS_LOST:
            continue
        if cause in OPTED_IN and (lost is None or not wall_seconds or lost < OPTED_IN_MIN_SHARE * wall_seconds):
            continue  # the price of a setting the program chose, small against its run
        against = f" against {fmt_seconds(fast)} for a fast call" if fast is not None else ""
        lost_text = f", {fmt_seconds(lost)} lost" if lost is not None else ""
        if execution:
            lost_text += (f" (each call waited {fmt_seconds(execution)} (median) for its program to run; that "
                          "execution is not counted as lost, except what the host's time between calls could have "
                          "overlapped)")
        fix_loc = sites[0].location if cause == "effects" and sites and sites[0].location else rec.call_site
        fix = Fix(title, why, location=fix_loc) if title else None
        details: dict[str, Any] = {
            "cause": cause if cause not in ("", "no_executable", "unknown") else "unknown", "blockers": sorted({b for bs in rec.blockers for b in bs}),
            "slow_calls": rec.calls, "seconds_per_call": per, "mean_seconds_per_call": rec.seconds / rec.calls,
            "total_seconds": rec.seconds, "fast_call_seconds": fast, "fast_call_basis": "reference",
            "seconds_lost": lost, "paid_seconds_per_call": paid, "execution_seconds_per_call": execution,
            "effects": [{"primitive": s.primitive, "effect": s.effect,
                         "file": s.location.file if s.location else None,
                         "line": s.location.line if s.location else None, "source": _source(s.location)}
                        for s in sites],
        }
        if rec.definition is not None:
            details["definition"] = {"file": rec.definition.file, "line": rec.definition.line}
        out.append(RuntimeFinding(
            "JW501", rec.function,
            f"{rec.calls:,} calls of {rec.function} went through JAX's Python dispatch path with no trace or "
            f"compile: {fmt_seconds(per)} each (median){against}{lost_text}; cause: {phrase}",
            "warning", rec.call_site, fix, compile_index=None, timestamp=max(rec.first_time - t0, 0.0),
            seconds=lost or 0.0, source=_source(rec.call_site), details=details,
            evidence=f"{rec.calls:,} calls counted at JAX's Python dispatch path, none of them tracing or compiling; "
                     f"median {fmt_seconds(per)} per call" + (f" against {fmt_seconds(fast)} for a reference fast "
                                                             "call on this machine" if fast is not None else ""),
            confidence="certain" if cause not in ("", "no_executable", "unknown") else "likely"))
    return out
