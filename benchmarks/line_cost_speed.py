"""How long the per-line compile cost takes on jaxprs of 1k, 10k and 100k equations.

The analyzer must be linear: time per equation should stay flat as the program grows. The
programs are real traced jaxprs (the same as ``bloat_speed.py``): an unrolled Python loop whose
body is 4 equations (sin, mul, add, sub), and builtin ``sum`` over an array (3 equations per
element). Two timings per size: ``line_costs`` on the jaxpr alone (equations, multiplicity), and
the HLO side (``hlo_ops_by_frames`` on ``Lowered.as_text(dialect="hlo", debug_info=True)``,
the text inspect gives it), measured separately because lowering 100k equations takes a while.

    python benchmarks/line_cost_speed.py [--quick] [--no-hlo]

Prints a table of median seconds per size (``--quick``: 3 repeats instead of 7).
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
from jitscope.analyze.line_cost import hlo_ops_by_frames, line_costs  # noqa: E402


def unrolled_loop(n_eqns: int):
    def body(x):
        for _ in range(n_eqns // 4):
            x = jnp.sin(x) * 2.0 + x - 1.0
        return x

    return body, jnp.ones(8)


def builtin_sum(n_eqns: int):
    def body(x):
        return sum(x)

    return body, jnp.ones(n_eqns // 3)


def _median(fn, repeats: int) -> tuple[float, object]:
    fn()  # warm-up: imports, linecache
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 repeats per size instead of 7")
    ap.add_argument("--no-hlo", action="store_true", help="skip lowering and the HLO side")
    args = ap.parse_args()
    repeats = 3 if args.quick else 7
    sizes = (1_000, 10_000, 100_000)
    print(f"jax {jax.__version__}, {repeats} repeats per size, median seconds")
    print(f"{'program':<14} {'equations':>10} {'lines s':>9} {'us/eqn':>8} {'x vs 1k':>8} {'mult':>6} "
          f"{'HLO ops':>8} {'HLO s':>8} {'us/op':>7}")
    for name, build in (("unrolled_loop", unrolled_loop), ("builtin_sum", builtin_sum)):
        base = None
        for n in sizes:
            fn, x = build(n)
            traced = jax.jit(fn).trace(x)
            closed = traced.jaxpr
            eqns = len(closed.jaxpr.eqns)
            med, out = _median(lambda: line_costs(closed, fn.__code__), repeats)  # noqa: B023
            lines, _totals = out  # type: ignore[misc]
            base = base or med / eqns
            hlo_cols = ""
            if not args.no_hlo:
                text = traced.lower().as_text(dialect="hlo", debug_info=True)
                hmed, ops = _median(lambda: hlo_ops_by_frames(text), max(1, repeats // 2))  # noqa: B023
                n_ops = sum(ops.values())  # type: ignore[union-attr]
                hlo_cols = f"{n_ops:>8} {hmed:>8.4f} {hmed / max(n_ops, 1) * 1e6:>7.2f}"
            print(f"{name:<14} {eqns:>10} {med:>9.4f} {med / eqns * 1e6:>8.2f} {med / eqns / base:>8.2f} "
                  f"{max(r.multiplicity for r in lines):>6} {hlo_cols}", flush=True)
    print("'x vs 1k' is time per equation relative to the 1k program: ~1 means linear; 'mult' is the "
          "largest loop multiplicity found (the loop's trip count, or the array length for sum).")


if __name__ == "__main__":
    main()
