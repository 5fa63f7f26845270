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

3. a retrace-heavy program (issue #23 item 6): one jitted function called with 1,000 shapes, run as a
   child process by plain ``python``, by ``jitscope watch`` and by ``jitscope watch --no-explain``; the
   child's CPU time (user + system, ``os.wait4``), interleaved runs, medians. Goal: watch at most 1.10x.
4. a 2,000-compile program (one function, 2,050 shapes): the CPU time per compile around compile 100
   (compiles 51-150) and around compile 2,000 (1,951-2,050), measured by the program itself
   (``time.process_time`` at each mark), under plain ``python`` and ``jitscope watch``. Goal: watch's
   per-compile cost at 2,000 within 10 % of that at 100 (it was quadratic: JAX's explain mode compared
   each miss with every earlier version, and jitscope's reasons with every earlier compile).

Modes are interleaved round by round so drift on a shared machine hits all of them alike.

    python benchmarks/watch_overhead.py [--quick] [--only warm,compile,retrace,long]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import subprocess
import sys
import tempfile
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


RETRACE = """\
import sys, time
import numpy as np
import jax
f = jax.jit(lambda x: x * 2.0 + 1.0)
n = int(sys.argv[1])
marks = {int(m) for m in sys.argv[2].split(",")} if len(sys.argv) > 2 else set()
inputs = [np.ones(i, np.float32) for i in range(1, n + 1)]  # NumPy: no eager JAX compile per shape
for i, x in enumerate(inputs, 1):
    f(x).block_until_ready()
    if i in marks:
        print(f"mark {i} {time.process_time():.6f}", flush=True)
"""

CHILD_MODES = {"python": [], "jitscope watch": ["-m", "jitscope", "watch", "-q"],
               "jitscope watch --no-explain": ["-m", "jitscope", "watch", "-q", "--no-explain"]}


def _child(mode: str, script: str, args: list[str]) -> tuple[float, str]:
    """(CPU seconds of the whole child process, user + system, from ``os.wait4``; its stdout) for ``script``
    run under ``mode``."""
    cmd = [sys.executable, *CHILD_MODES[mode], script, *args]
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=env, text=True)
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {err.read()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, out


def retrace_heavy(rounds: int, shapes: int) -> dict[str, list[float]]:
    """CPU seconds of the whole retrace-heavy program per mode (its own process_time at the end)."""
    out: dict[str, list[float]] = {m: [] for m in CHILD_MODES}
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "retrace.py")
        with open(script, "w") as f:
            f.write(RETRACE)
        for r in range(rounds):
            order = list(CHILD_MODES) if r % 2 == 0 else list(reversed(CHILD_MODES))
            for m in order:
                cpu, _ = _child(m, script, [str(shapes), str(shapes)])
                out[m].append(cpu)
    return out


def long_run(rounds: int, total: int = 2050) -> dict[str, dict[str, list[float]]]:
    """CPU seconds per compile around compile 100 and around compile 2,000, per mode."""
    marks = [50, 150, total - 100, total]
    modes = ("python", "jitscope watch")
    out: dict[str, dict[str, list[float]]] = {m: {"100": [], "2000": []} for m in modes}
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "retrace.py")
        with open(script, "w") as f:
            f.write(RETRACE)
        for r in range(rounds):
            for m in (modes if r % 2 == 0 else tuple(reversed(modes))):
                _, text = _child(m, script, [str(total), ",".join(map(str, marks))])
                t = {int(k): float(v) for _, k, v in (line.split() for line in text.splitlines() if line.startswith("mark"))}
                out[m]["100"].append((t[150] - t[50]) / 100)
                out[m]["2000"].append((t[total] - t[total - 100]) / 100)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run, noisy)")
    ap.add_argument("--only", default="warm,compile,retrace,long",
                    help="comma-separated sections: warm, compile, retrace (1,000 shapes), long (2,000 compiles)")
    a = ap.parse_args(argv)
    only = set(a.only.split(","))
    rounds, calls, crounds = (15, 1000, 8) if a.quick else (41, 10000, 30)
    print(f"jax {jax.__version__}, backend {jax.default_backend()}, python {sys.version.split()[0]}, "
          f"{'quick' if a.quick else 'full'} run")
    if "warm" in only:
        warm = warm_calls(rounds, calls)
        print(table(f"\nWarm call of a tiny jitted function ({rounds} rounds x {calls} calls, per call)",
                    warm, 1e-6, "µs"))
    if "compile" in only:
        comp, comp_cpu = compile_path(crounds)
        print(table(f"\nCompile path: trace + lower + compile + first call, new shape each time ({crounds} rounds)",
                    comp, 1e-3, "ms"))
        print(table("\nThe same compiles, process CPU time (this process's work only: steadier on a shared machine)",
                    comp_cpu, 1e-3, "ms"))
        spent, n, printing = self_time(crounds)
        base = statistics.median(comp["baseline"])
        print(f"\njitscope's own time inside its hooks: {spent / max(n, 1) * 1e3:.3f} ms per compile over {n} "
              f"compiles = {100 * spent / max(n, 1) / base:.2f} % of the baseline compile median above; of which "
              f"program fingerprints (print, normalise, table entry): {printing / max(n, 1) * 1e3:.3f} ms per "
              f"compile = {100 * printing / max(n, 1) / base:.2f} %")
    if "retrace" in only:
        r_rounds, shapes = (1, 200) if a.quick else (3, 1000)
        res = retrace_heavy(r_rounds, shapes)
        base = statistics.median(res["python"])
        print(f"\nRetrace-heavy: one function, {shapes:,} shapes, child CPU seconds ({r_rounds} interleaved rounds, "
              "medians)\n| mode | CPU s | vs python |\n|---|---:|---:|")
        for m, v in res.items():
            print(f"| {m} | {statistics.median(v):.2f} | {statistics.median(v) / base:.3f}x |")
    if "long" in only:
        l_rounds, total = (1, 450) if a.quick else (3, 2050)
        res2 = long_run(l_rounds, total)
        print(f"\n{total:,}-compile program (one function, {total:,} shapes): CPU ms per compile ({l_rounds} "
              "interleaved rounds, medians)\n| mode | around compile 100 | around compile "
              f"{total - 50:,} | later / earlier |\n|---|---:|---:|---:|")
        for m, v in res2.items():
            early, late = statistics.median(v["100"]), statistics.median(v["2000"])
            print(f"| {m} | {early * 1e3:.2f} | {late * 1e3:.2f} | {late / early:.3f}x |")
        over = {k: statistics.median(res2["jitscope watch"][k]) - statistics.median(res2["python"][k])
                for k in ("100", "2000")}
        print(f"| watch minus python | {over['100'] * 1e3:.2f} | {over['2000'] * 1e3:.2f} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
