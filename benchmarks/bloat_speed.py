"""How long the graph-bloat detector takes on jaxprs of 1k, 10k and 100k equations.

The detector must be linear: time per equation should stay flat as the program grows.
Synthetic programs are real traced jaxprs: an unrolled Python loop whose body is 4
equations (sin, mul, add, sub), and builtin ``sum`` over an array (3 equations per element).

    python benchmarks/bloat_speed.py [--quick]

Prints a table of median detector time per size (``--quick``: 3 repeats instead of 7).
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

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
from jitscope.analyze.bloat import detect_bloat  # noqa: E402


def unrolled_loop(n_eqns: int):
    def body(x):
        for _ in range(n_eqns // 4):
            x = jnp.sin(x) * 2.0 + x - 1.0
        return x

    return jax.make_jaxpr(body)(jnp.ones(8)), body


def builtin_sum(n_eqns: int):
    def body(x):
        return sum(x)

    return jax.make_jaxpr(body)(jnp.ones(n_eqns // 3)), body


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 repeats per size instead of 7")
    args = ap.parse_args()
    repeats = 3 if args.quick else 7
    sizes = (1_000, 10_000, 100_000)
    print(f"jax {jax.__version__}, {repeats} repeats per size, median seconds of detect_bloat()")
    print(f"{'program':<14} {'equations':>10} {'trace s':>9} {'detect s':>10} {'us/eqn':>8} {'x vs 1k':>8} {'runs':>5}")
    for name, build in (("unrolled_loop", unrolled_loop), ("builtin_sum", builtin_sum)):
        base = None
        for n in sizes:
            t0 = time.perf_counter()
            closed, fn = build(n)
            trace_s = time.perf_counter() - t0
            eqns = len(closed.jaxpr.eqns)
            detect_bloat(closed, fn.__code__)  # warm-up: imports, source parsing
            times = []
            runs = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                runs = detect_bloat(closed, fn.__code__)
                times.append(time.perf_counter() - t0)
            med = statistics.median(times)
            base = base or med / eqns
            print(f"{name:<14} {eqns:>10} {trace_s:>9.2f} {med:>10.4f} {med / eqns * 1e6:>8.2f} "
                  f"{med / eqns / base:>8.2f} {len(runs):>5}")
    print("'x vs 1k' is time per equation relative to the 1k program: ~1 means linear.")


if __name__ == "__main__":
    main()
