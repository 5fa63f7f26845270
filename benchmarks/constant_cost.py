"""What a captured array constant costs at compile time: the basis of JW301's 64 KiB threshold
(``analyze/runtime_record.NOTABLE_CONSTANT_BYTES``, docs/runtime-findings.md).

Usage: python benchmarks/constant_cost.py [--repeats N]

For each size, compiles ``jit(lambda x: x + C)`` (C a captured constant of that many bytes) and
``jit(lambda x, c: x + c)`` (the same array as an argument), ``.lower(...).compile()`` on fresh jit objects,
and prints the median process CPU time of each, side by side, and their difference. Each constant is a new
array (no cache hit). Run on an idle machine for numbers to quote.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

SIZES = (100, 300, 1024, 16 * 1024, 256 * 1024, 4 * 1024 * 1024)  # float32 elements


def _median_cpu(build, repeats: int) -> float:
    times = []
    for r in range(repeats):
        jitted, args = build(r)
        t = time.process_time()
        jitted.lower(*args).compile()
        times.append(time.process_time() - t)
    return statistics.median(times)


def main() -> None:
    import jax
    import jax.numpy as jnp

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args()
    print(f"jax {jax.__version__}, backend {jax.default_backend()}, median of {a.repeats}")
    print(f"{'bytes':>10}  {'constant':>10}  {'argument':>10}  {'difference':>10}")
    for n in SIZES:
        def as_constant(r, n=n):
            c = jnp.asarray(np.random.default_rng(r).random(n, dtype=np.float32))
            return jax.jit(lambda x: x + c), (jnp.ones(n),)

        def as_argument(r, n=n):
            return jax.jit(lambda x, c: x + c), (jnp.ones(n), jnp.ones(n))

        const, arg = _median_cpu(as_constant, a.repeats), _median_cpu(as_argument, a.repeats)
        print(f"{n * 4:>10}  {const * 1e3:8.2f}ms  {arg * 1e3:8.2f}ms  {(const - arg) * 1e3:+8.2f}ms")


if __name__ == "__main__":
    main()
