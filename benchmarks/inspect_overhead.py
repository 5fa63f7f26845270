"""What ``jitscope.inspect`` costs on top of a bare AOT trace + lower + compile.

For each program, side by side in one run (median of repeats):

* ``bare``: ``jax.jit(fresh_fn).trace(*args).lower().compile()`` (a fresh function object each
  time, so nothing is cached);
* ``analysis``: ``jitscope.inspect(fn, *args, run=False, numerics=False, side_effects=False)``:
  the same stages plus jaxpr stats, bloat detection, HLO text parsing and cost analysis;
* ``full``: ``jitscope.inspect(fn, *args)`` with the defaults: adds the first and steady runs
  (0.3 s budget), the instrumented second trace and the eager run for numerics.

    python benchmarks/inspect_overhead.py [--quick]
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
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures"))
import jitscope  # noqa: E402


def programs():
    import inspect_integral as m

    def mlp(params, x):
        for w, b in params:
            x = jnp.tanh(x @ w + b)
        return jnp.sum(x)

    key = jax.random.key(0)
    params = [(jax.random.normal(key, (256, 256)), jnp.zeros(256)) for _ in range(4)]
    yield "seed003 builtin sum N=400", m.integrate_builtin, (jnp.float32(1.0),)
    yield "seed003 jnp.sum N=400", m.integrate_jnp, (jnp.float32(1.0),)
    yield "4-layer MLP 256", mlp, (params, jnp.ones((64, 256)))


def bare(fn, args):
    def fresh(*a):
        return fn(*a)

    jax.jit(fresh).trace(*args).lower().compile()


def median_time(f, repeats):
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 repeats instead of 7")
    args = ap.parse_args()
    repeats = 3 if args.quick else 7
    print(f"jax {jax.__version__}, median of {repeats} repeats, seconds")
    print(f"{'program':<28} {'bare AOT':>9} {'analysis':>9} {'x bare':>7} {'full':>7} {'x bare':>7}")
    for name, fn, call_args in programs():
        bare(fn, call_args)  # warm-up: imports, first-use costs
        jitscope.inspect(fn, *call_args, run=False, numerics=False, side_effects=False)
        t_bare = median_time(lambda fn=fn, a=call_args: bare(fn, a), repeats)
        t_an = median_time(lambda fn=fn, a=call_args: jitscope.inspect(fn, *a, run=False, numerics=False,
                                                                     side_effects=False), repeats)
        t_full = median_time(lambda fn=fn, a=call_args: jitscope.inspect(fn, *a), repeats)
        print(f"{name:<28} {t_bare:>9.3f} {t_an:>9.3f} {t_an / t_bare:>7.2f} {t_full:>7.3f} {t_full / t_bare:>7.2f}")
    print("'full' adds the first run, steady-run sampling (up to 0.3 s or 100 calls), a second trace, an eager run.")


if __name__ == "__main__":
    main()
