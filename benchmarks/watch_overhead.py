"""What does watching cost? Side by side in one run, interleaved, medians:

1. warm calls: per-call time of a tiny jitted function (a C++ dispatch-cache hit) with nothing
   on, under the watch collector (with and without JAX's explain text), under ``jitscope.watch``'s
   whole session with every analysis on (the runtime findings JW1xx-JW5xx: trace probe, analyses,
   the dispatch-path probe), the same with the stall watchdog on (``--stall-after``: phase listeners and a
   polling thread), and with JAX's own ``jax_explain_cache_misses`` alone. Goal: within
   noise, at most 1 %.
2. compile path: one trace + lower + compile + first call of a ~60-op function (10 x 6 ops), a new input
   shape each time (so every call compiles and the explain diff runs against earlier keys).
   Goal: jitscope under 10 % of compile time. Every jitscope mode fingerprints each compile's program
   (duplicate compiles); the hook self-time line says how much of jitscope's time that is.

Modes are interleaved round by round so drift on a shared machine hits all of them alike.

    python benchmarks/watch_overhead.py [--quick]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from jitscope import _jaxcompat  # noqa: E402
from jitscope._watch import WatchSession  # noqa: E402
from jitscope.collect.watch import WatchCollector  # noqa: E402

MODES = ("baseline", "jitscope watch", "jitscope watch --no-explain", "jitscope watch, every finding",
         "every finding + --stall-after 10", "jax_explain_cache_misses")


class _Mode:
    """Turn one mode on/off around a measurement."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.collector: WatchCollector | None = None
        self.session: WatchSession | None = None
        self._loggers = [logging.getLogger(n) for n in _jaxcompat.EXPLAIN_LOGGERS]
        self._propagate = [lg.propagate for lg in self._loggers]

    def __enter__(self) -> None:
        if self.name == "jitscope watch, every finding":
            self.session = WatchSession(findings=True, explain=True).start()
        elif self.name == "every finding + --stall-after 10":  # the watchdog's listeners and polling thread
            self.session = WatchSession(findings=True, explain=True, stall_after=10.0).start()
        elif self.name.startswith("jitscope"):
            self.collector = WatchCollector(explain="no-explain" not in self.name).start()
        elif self.name == "jax_explain_cache_misses":
            for lg in self._loggers:
                lg.propagate = False  # measure the explanation, not a terminal full of it
                lg.addHandler(logging.NullHandler())
            jax.config.update("jax_explain_cache_misses", True)

    def __exit__(self, *exc: object) -> None:
        if self.session is not None:
            self.session.stop()
            self.session = None
        elif self.collector is not None:
            self.collector.stop()
            self.collector = None
        elif self.name == "jax_explain_cache_misses":
            jax.config.update("jax_explain_cache_misses", False)
            for lg, propagate in zip(self._loggers, self._propagate, strict=True):
                lg.propagate = propagate


@jax.jit
def tiny(x):
    return x + 1.0


def body(x):
    for i in range(10):
        x = jnp.sin(x) * 1.01 + i
        x = jnp.where(x > 0, x, -x)
        x = x @ jnp.ones((x.shape[-1], x.shape[-1]), x.dtype) / x.shape[-1]
    return x.sum()


compiled_fn = jax.jit(body)


def warm_calls(rounds: int, calls: int) -> dict[str, list[float]]:
    x = jnp.ones(8)
    tiny(x).block_until_ready()
    out: dict[str, list[float]] = {m: [] for m in MODES}
    for r in range(-1, rounds):  # round -1 warms every mode up and is discarded
        order = MODES if r % 2 == 0 else tuple(reversed(MODES))
        for m in order:
            with _Mode(m):
                tiny(x).block_until_ready()
                t0 = time.perf_counter()
                for _ in range(calls):
                    y = tiny(x)
                y.block_until_ready()
                if r >= 0:
                    out[m].append((time.perf_counter() - t0) / calls)
    return out


def compile_path(rounds: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall seconds and process CPU seconds per compile. On a shared machine the wall time also
    holds the time other processes had the cores; the CPU time is this process's work only."""
    out: dict[str, list[float]] = {m: [] for m in MODES}
    cpu: dict[str, list[float]] = {m: [] for m in MODES}
    size = 16
    for r in range(-1, rounds):  # round -1 warms every mode up and is discarded
        order = MODES if r % 2 == 0 else tuple(reversed(MODES))
        for m in order:
            size += 1  # a shape never seen before: every sample compiles
            x = jnp.ones((2, size))
            with _Mode(m):
                t0, c0 = time.perf_counter(), time.process_time()
                compiled_fn(x).block_until_ready()
                if r >= 0:
                    out[m].append(time.perf_counter() - t0)
                    cpu[m].append(time.process_time() - c0)
    return out, cpu


def self_time(rounds: int) -> tuple[float, int, float]:
    """Seconds spent inside jitscope's own hooks and listeners, the number of compiles seen, and the
    seconds of that spent fingerprinting programs (printing, normalising, the table entry).

    Wraps the capture engine's callbacks with timers (nesting-safe: only the outermost counts),
    so this is jitscope's cost alone, free of the machine noise in the end-to-end medians."""
    from jitscope.collect import monitoring as mon
    from jitscope.collect import program_text
    from jitscope.collect import watch as watch_mod

    spent = [0.0]
    printing = [0.0]

    def printed(fn):
        def wrapper(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                printing[0] += time.perf_counter() - t0
        return wrapper

    capture0, entry0 = program_text.capture, watch_mod.program_text
    program_text.capture, watch_mod.program_text = printed(capture0), printed(entry0)
    depth = [0]

    def timed(fn):
        def wrapper(*a, **k):
            depth[0] += 1
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    spent[0] += time.perf_counter() - t0
        return wrapper

    names = ("_on_enter", "_on_exit", "_on_span", "_on_event", "_on_duration")
    saved = {n: getattr(mon, n) for n in names}
    for n in names:
        setattr(mon, n, timed(saved[n]))
    try:
        c = WatchCollector(explain=True).start()
        size = 4000
        try:
            for _ in range(rounds):
                size += 1
                compiled_fn(jnp.ones((2, size))).block_until_ready()
        finally:
            c.stop()
    finally:
        for n in names:
            setattr(mon, n, saved[n])
        program_text.capture, watch_mod.program_text = capture0, entry0
    return spent[0], len(c.events), printing[0]


def table(title: str, data: dict[str, list[float]], unit: float, unit_name: str) -> str:
    base, base_min = statistics.median(data["baseline"]), min(data["baseline"])
    lines = [f"{title}", f"| mode | median ({unit_name}) | vs baseline | min ({unit_name}) | min vs baseline | samples |",
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
    rounds, calls, crounds = (15, 1000, 8) if a.quick else (41, 10000, 30)
    print(f"jax {jax.__version__}, backend {jax.default_backend()}, python {sys.version.split()[0]}, "
          f"{'quick' if a.quick else 'full'} run")
    warm = warm_calls(rounds, calls)
    print(table(f"\nWarm call of a tiny jitted function ({rounds} rounds x {calls} calls, per call)",
                warm, 1e-6, "µs"))
    comp, comp_cpu = compile_path(crounds)
    print(table(f"\nCompile path: trace + lower + compile + first call, new shape each time ({crounds} rounds)",
                comp, 1e-3, "ms"))
    print(table("\nThe same compiles, process CPU time (this process's work only: steadier on a shared machine)",
                comp_cpu, 1e-3, "ms"))
    spent, n, printing = self_time(crounds)
    base = statistics.median(comp["baseline"])
    print(f"\njitscope's own time inside its hooks: {spent / max(n, 1) * 1e3:.3f} ms per compile over {n} compiles "
          f"= {100 * spent / max(n, 1) / base:.2f} % of the baseline compile median above; of which program "
          f"fingerprints (print, normalise, table entry): {printing / max(n, 1) * 1e3:.3f} ms per compile "
          f"= {100 * printing / max(n, 1) / base:.2f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
