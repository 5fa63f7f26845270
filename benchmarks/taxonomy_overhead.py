"""What the taxonomy findings (docs/pitfalls.md: JW102-JW106, JW405-JW408, JW502-JW505, JW601-JW604) add
to a watch, side by side, medians:

1. compile path: the self time of the per-trace work they add (the trace-context probe, the NumPy-argument
   probe, ``TaxonomyAnalyzer.observe``: one pass over the jaxpr, the callback and key analyses when the
   program has callbacks or random draws) against the whole trace + lower + compile of a ~60-op function
   with a random draw and a NumPy argument, a new input shape each time. Goal: a small share of the
   watch's 10 % compile-path budget.
2. warm calls: per-call time of a tiny jitted function with nothing on, and with only the stack sampler
   (JW504's evidence: the one piece that runs while the program does) on; rounds interleaved.

    python benchmarks/taxonomy_overhead.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from jitscope._watch import WatchSession  # noqa: E402
from jitscope.analyze.taxonomy_findings import TaxonomyAnalyzer  # noqa: E402
from jitscope.collect.dispatch_sampler import DispatchSampler  # noqa: E402
from jitscope.collect.host_args import HostArgumentProbe  # noqa: E402
from jitscope.collect.jax_signals import TraceContextProbe  # noqa: E402


def _timed(cls: type, name: str, spent: list[float]) -> None:
    original = getattr(cls, name)

    def wrapper(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            spent.append(time.perf_counter() - t)

    setattr(cls, name, wrapper)


def body(x, table):
    for _ in range(10):
        x = jnp.tanh(x * 1.01 + 0.5) - jnp.sin(x) * 0.1 + jnp.cos(x) * 0.1
    noise = jax.random.normal(jax.random.PRNGKey(0), x.shape)
    return x + noise * table[: x.shape[0]].sum()


def compile_path(n: int) -> None:
    spent: list[float] = []
    for cls, name in ((TaxonomyAnalyzer, "observe"), (TraceContextProbe, "exit"), (HostArgumentProbe, "exit")):
        _timed(cls, name, spent)
    table = np.ones(4096, np.float32)
    per_compile, added = [], []
    session = WatchSession(explain=False).start()
    try:
        for i in range(n):
            f = jax.jit(body)
            before = len(spent)
            t = time.perf_counter()
            f(jnp.ones(8 + i), table).block_until_ready()
            per_compile.append(time.perf_counter() - t)
            added.append(sum(spent[before:]))
    finally:
        session.stop()
    med_c, med_a = statistics.median(per_compile), statistics.median(added)
    print(f"Compile path ({n} compiles, a new shape each): trace+lower+compile+first call median "
          f"{med_c * 1e3:.1f} ms; the taxonomy's per-trace work median {med_a * 1e6:.0f} us = {med_a / med_c:.2%}")


def warm_calls(rounds: int, calls: int) -> None:
    f = jax.jit(lambda x: x + 1)
    x = jnp.ones(3)
    f(x).block_until_ready()
    times: dict[str, list[float]] = {"baseline": [], "stack sampler on": []}
    for r in range(rounds):
        for mode in (list(times) if r % 2 == 0 else list(times)[::-1]):
            sampler = DispatchSampler().install() if mode != "baseline" else None
            t = time.perf_counter()
            for _ in range(calls):
                y = f(x)
            y.block_until_ready()
            times[mode].append((time.perf_counter() - t) / calls)
            if sampler is not None:
                sampler.uninstall()
    base = statistics.median(times["baseline"])
    print(f"Warm call of a tiny jitted function ({rounds} rounds x {calls} calls, per call)")
    print("| mode | median (us) | vs baseline | min (us) |")
    print("|---|---:|---:|---:|")
    for mode, ts in times.items():
        med = statistics.median(ts)
        print(f"| {mode} | {med * 1e6:.3f} | {med / base - 1:+.1%} | {min(ts) * 1e6:.3f} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    print(f"jax {jax.__version__}, backend {jax.default_backend()}{', quick' if a.quick else ''}")
    compile_path(8 if a.quick else 25)
    warm_calls(7 if a.quick else 31, 2000 if a.quick else 10000)


if __name__ == "__main__":
    main()
