"""What baking a module-level array into a jitted program costs, by its size (JS501's threshold).

    python benchmarks/const_capture_cost.py [--reps 5] [--sizes 4096,65536,262144,1048576,4194304]

For each size (float32 elements, a ``jnp.arange`` table, so XLA cannot fold it to a splat) it compiles a
function that reads the table as a captured constant and the same function with the table passed as an
argument, ``--reps`` times each (a fresh function object every time: no cache hit), and prints the median
compile times side by side, their difference, and the lowered program's size in characters.
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--sizes", default="4096,65536,262144,1048576,4194304")
    args = ap.parse_args()
    import jax
    import jax.numpy as jnp

    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; median of {args.reps} compiles")
    print(f"{'elements':>9} {'bytes':>10} {'captured ms':>12} {'passed ms':>10} {'diff ms':>8} {'program chars':>14}")
    for n in (int(s) for s in args.sizes.split(",")):
        table = jnp.arange(n, dtype=jnp.float32)
        captured, passed = [], []
        text = ""
        for rep in range(args.reps):
            f = jax.jit(lambda x, rep=rep, table=table: (x * table).sum() + rep)
            t = time.perf_counter()
            lowered = f.lower(jnp.float32(1))
            lowered.compile()
            captured.append(time.perf_counter() - t)
            text = text or lowered.as_text()
            g = jax.jit(lambda x, t, rep=rep: (x * t).sum() + rep)
            t = time.perf_counter()
            g.lower(jnp.float32(1), table).compile()
            passed.append(time.perf_counter() - t)
        c, p = statistics.median(captured) * 1e3, statistics.median(passed) * 1e3
        print(f"{n:>9} {4 * n:>10} {c:>12.1f} {p:>10.1f} {c - p:>8.1f} {len(text):>14}")


if __name__ == "__main__":
    main()
