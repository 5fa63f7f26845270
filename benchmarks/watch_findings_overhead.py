"""What do watch's runtime findings (JWxxx) cost? Side by side in one run, interleaved, medians.

Modes: ``baseline`` (nothing on), ``watch --no-findings`` (``WatchSession(findings=False)``) and
``watch`` (findings on: the trace probe plus the analyses at each trace/compile).

1. warm calls of a tiny jitted function (C++ dispatch-cache hits): the findings must cost nothing.
2. compile path, a new input shape each time, for three programs: ``ops60`` (10 x 6 ops), ``print``
   (the same with a ``print`` in the body: the probe's profiler is on while it traces) and
   ``loop300`` (a 300-step Python loop: the bloat detector has 1,500 equations to read).
3. jitscope's own time per compile, free of machine noise: inside the probe's hooks and inside
   ``RuntimeAnalyzer.observe``; and the trace phase with findings off and on (the profiler's cost).
4. calls off the fast path (JW501): per call, a tiny jitted function with a ``jax.debug.callback``
   (every call takes JAX's Python path, no trace, no compile) against the same function without it
   (a C++ cache hit), with nothing on, ``watch --no-findings`` and ``watch``; jitscope's own time per
   slow call inside the dispatch probe; the reference fast call JW501 compares with; and JW501's
   numbers for the run.

    python benchmarks/watch_findings_overhead.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from jitscope._watch import WatchSession  # noqa: E402

MODES = ("baseline", "watch --no-findings", "watch")


def _session(mode: str) -> WatchSession | None:
    if mode == "baseline":
        return None
    return WatchSession(findings=mode == "watch", explain=True)


@jax.jit
def tiny(x):
    return x + 1.0


def ops60(x):
    for i in range(10):
        x = jnp.sin(x) * 1.01 + i
        x = jnp.where(x > 0, x, -x)
        x = x @ jnp.ones((x.shape[-1], x.shape[-1]), x.dtype) / x.shape[-1]
    return x.sum()


def with_print(x):
    print("tracing", x.shape, file=open(os.devnull, "w"))  # noqa: SIM115 - a trace-time print, not a leak test
    return ops60(x)


def loop300(x):
    for i in range(300):
        x = jnp.sin(x) * 1.01 + i
    return x.sum()


PROGRAMS = {"ops60": jax.jit(ops60), "print": jax.jit(with_print), "loop300": jax.jit(loop300)}


def warm_calls(rounds: int, calls: int) -> dict[str, list[float]]:
    x = jnp.ones(8)
    tiny(x).block_until_ready()
    out: dict[str, list[float]] = {m: [] for m in MODES}
    for r in range(-1, rounds):
        for m in (MODES if r % 2 == 0 else tuple(reversed(MODES))):
            s = _session(m)
            if s:
                s.start()
            tiny(x).block_until_ready()
            t0 = time.perf_counter()
            for _ in range(calls):
                y = tiny(x)
            y.block_until_ready()
            if r >= 0:
                out[m].append((time.perf_counter() - t0) / calls)
            if s:
                s.stop()
    return out


def compile_path(name: str, rounds: int, size: list[int]) -> dict[str, list[float]]:
    fn = PROGRAMS[name]
    out: dict[str, list[float]] = {m: [] for m in MODES}
    for r in range(-1, rounds):
        for m in (MODES if r % 2 == 0 else tuple(reversed(MODES))):
            size[0] += 1  # a shape never seen before: every sample traces and compiles
            x = jnp.ones((2, size[0]))
            s = _session(m)
            if s:
                s.start()
            t0 = time.perf_counter()
            fn(x).block_until_ready()
            if r >= 0:
                out[m].append(time.perf_counter() - t0)
            if s:
                s.stop()
    return out


def self_time(name: str, rounds: int, size: list[int]) -> tuple[list[float], list[float], dict[str, list[float]]]:
    """Per compile: seconds inside the probe's hooks (enter/result/exit) and inside
    ``RuntimeAnalyzer.observe``; and the trace phase's seconds with findings off and on, interleaved
    (the probe's profiler runs while the function traces, between its hooks: its cost shows there)."""
    from jitscope.collect.trace_probe import TraceProbe

    fn = PROGRAMS[name]
    probe_s: list[float] = []
    observe_s: list[float] = []
    trace_s: dict[str, list[float]] = {"off": [], "on": []}
    spent = [0.0]

    def timed(f):  # type: ignore[no-untyped-def]
        def wrapper(*a, **k):  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                spent[0] += time.perf_counter() - t0
        return wrapper

    saved = {n: getattr(TraceProbe, n) for n in ("enter", "result", "exit")}
    for n, f in saved.items():
        setattr(TraceProbe, n, timed(f))
    try:
        for r in range(rounds):
            for mode in (("off", "on") if r % 2 == 0 else ("on", "off")):
                s = WatchSession(findings=mode == "on")
                if s.analyzer is not None:
                    original = s.analyzer.observe

                    def observe(event, kind, live, original=original):  # type: ignore[no-untyped-def]
                        t0 = time.perf_counter()
                        original(event, kind, live)
                        observe_s.append(time.perf_counter() - t0)

                    s.analyzer.observe = observe  # type: ignore[method-assign]
                spent[0] = 0.0
                size[0] += 1
                s.start()
                try:
                    fn(jnp.ones((2, size[0]))).block_until_ready()
                finally:
                    s.stop()
                if mode == "on":
                    probe_s.append(spent[0])
                trace_s[mode] += [e.phases.get("trace", 0.0) for e in s.events]
    finally:
        for n, f in saved.items():
            setattr(TraceProbe, n, f)
    return probe_s, observe_s, trace_s


def _noop(v):  # the callback: as cheap as a callback can be
    pass


@jax.jit
def with_callback(x):
    jax.debug.callback(_noop, x)
    return x + 1.0


def slow_path(rounds: int, calls: int) -> dict[str, dict[str, list[float]]]:
    """Per call, interleaved: the callback function (Python path) and the plain one (C++ cache hit)."""
    x = jnp.ones(8)
    out: dict[str, dict[str, list[float]]] = {k: {m: [] for m in MODES} for k in ("callback", "plain")}
    for fn in (with_callback, tiny):
        jax.block_until_ready(fn(x))
    for r in range(-1, rounds):
        for m in (MODES if r % 2 == 0 else tuple(reversed(MODES))):
            s = _session(m)
            if s:
                s.start()
            for name, fn in (("callback", with_callback), ("plain", tiny)):
                jax.block_until_ready(fn(x))
                t0 = time.perf_counter()
                for _ in range(calls):
                    y = fn(x)
                jax.block_until_ready(y)
                if r >= 0:
                    out[name][m].append((time.perf_counter() - t0) / calls)
            if s:
                s.stop()
    return out


def slow_path_self_time(calls: int) -> tuple[float, dict]:
    """CPU seconds per slow call inside the dispatch probe (enter/result/exit, the fast-path hook and
    ``fastpath_blockers``; ``time.thread_time``, so other processes on a shared machine do not count),
    and the JW501 finding's details for those calls."""
    from jitscope import _jaxcompat
    from jitscope.collect import dispatch

    spent = [0.0]

    def timed(f):  # type: ignore[no-untyped-def]
        def wrapper(*a, **k):  # type: ignore[no-untyped-def]
            t0 = time.thread_time()
            try:
                return f(*a, **k)
            finally:
                spent[0] += time.thread_time() - t0
        return wrapper

    names = ("enter", "result", "exit", "_on_fastpath")
    saved = {n: getattr(dispatch.DispatchProbe, n) for n in names}
    for n, f in saved.items():
        setattr(dispatch.DispatchProbe, n, timed(f))
    blockers = _jaxcompat.fastpath_blockers
    _jaxcompat.fastpath_blockers = timed(blockers)
    x = jnp.ones(8)
    try:
        s = WatchSession(findings=True).start()
        try:
            for _ in range(calls):
                with_callback(x)
            jax.block_until_ready(with_callback(x))
        finally:
            s.stop()
    finally:
        for n, f in saved.items():
            setattr(dispatch.DispatchProbe, n, f)
        _jaxcompat.fastpath_blockers = blockers
    (f,) = [f for f in s.result(capture_env=False).findings if f.code == "JW501"]
    return spent[0] / f.details["slow_calls"], f.details


def table(title: str, data: dict[str, list[float]], unit: float, unit_name: str) -> str:
    base, base_min = statistics.median(data["baseline"]), min(data["baseline"])
    lines = [title, f"| mode | median ({unit_name}) | vs baseline | min ({unit_name}) | min vs baseline | samples |",
             "|---|---:|---:|---:|---:|---:|"]
    for m in MODES:
        med, lo = statistics.median(data[m]), min(data[m])
        lines.append(f"| {m} | {med / unit:.3f} | {100 * (med / base - 1):+.1f} % | {lo / unit:.3f} | "
                     f"{100 * (lo / base_min - 1):+.1f} % | {len(data[m])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run, noisy)")
    a = ap.parse_args(argv)
    rounds, calls, crounds = (11, 1000, 6) if a.quick else (31, 10000, 20)
    print(f"jax {jax.__version__}, backend {jax.default_backend()}, python {sys.version.split()[0]}, "
          f"{'quick' if a.quick else 'full'} run")
    print(table(f"\nWarm call of a tiny jitted function ({rounds} rounds x {calls} calls, per call)",
                warm_calls(rounds, calls), 1e-6, "µs"))
    size = [16]
    for name in PROGRAMS:
        print(table(f"\nCompile path, {name}: trace + lower + compile + first call, new shape each time "
                    f"({crounds} rounds)", compile_path(name, crounds, size), 1e-3, "ms"))
    print(f"\njitscope's findings cost per compile, medians of {3 * crounds} compiles each (self time, free of machine "
          "noise; the trace phase on/off interleaved)")
    print("| program | probe hooks (ms) | analyses (ms) | trace phase off (ms) | trace phase on (ms) | trace on/off |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in PROGRAMS:
        probe_s, observe_s, trace_s = self_time(name, 3 * crounds, size)
        off, on = statistics.median(trace_s["off"]), statistics.median(trace_s["on"])
        print(f"| {name} | {statistics.median(probe_s) * 1e3:.2f} | {statistics.median(observe_s) * 1e3:.2f} | "
              f"{off * 1e3:.2f} | {on * 1e3:.2f} | {100 * (on / off - 1):+.1f} % |")
    srounds, scalls = (7, 200) if a.quick else (21, 2000)
    slow = slow_path(srounds, scalls)
    print(table(f"\nOff the fast path (JW501): a tiny jitted function with a jax.debug.callback, per call "
                f"({srounds} rounds x {scalls} calls)", slow["callback"], 1e-6, "µs"))
    print(table("\nThe same function without the callback (a C++ cache hit), per call, same rounds",
                slow["plain"], 1e-6, "µs"))
    base_cb, base_plain = statistics.median(slow["callback"]["baseline"]), statistics.median(slow["plain"]["baseline"])
    print(f"\nWith nothing on, the callback takes a call from {base_plain * 1e6:.2f} µs to {base_cb * 1e6:.1f} µs "
          f"({base_cb / base_plain:.0f}x), no trace, no compile.")
    own, details = slow_path_self_time(scalls)
    print(f"jitscope's own CPU time inside the dispatch probe: {own * 1e6:.2f} µs per slow call "
          f"({100 * own / base_cb:.1f} % of a slow call with nothing on)")
    print(f"JW501 for {details['slow_calls']} calls: {details['seconds_per_call'] * 1e6:.1f} µs per call (median, "
          f"measured under watch), reference fast call {details['fast_call_seconds'] * 1e6:.2f} µs, "
          f"{details['seconds_lost'] * 1e3:.1f} ms lost, cause {details['cause']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
