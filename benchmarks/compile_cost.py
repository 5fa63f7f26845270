"""The numbers behind JW402's compile cost model (analyze/compile_cost.py), measured on this machine.

For a mixed set of programs (elementwise chains, matmul + activation, reductions, gather/scatter,
sort, cumsum, while loops, convolutions, an MLP's gradient), each compiled once under jit: the backend
compile's process CPU seconds (what watch records), its wall seconds, and the traced program's
equations (nested bodies once per use). Prints the CPU seconds per equation by program and their
quantiles (``UPPER_SECONDS_PER_EQUATION`` is the top of this band, ``REFERENCE_LOW_SECONDS_PER_EQUATION``
its 25th percentile), then the CPU cost of large constants (``CONSTANT_SECONDS_PER_MB``).

With ``--busy N``, N busy-loop processes run meanwhile: CPU seconds stay put, wall seconds do not.

    JAX_PLATFORMS=cpu python benchmarks/compile_cost.py [--busy 2]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import compiler  # benchmark only: the same seam watch times (jitscope/_jaxcompat/hooks.py)

_compile = compiler.compile_or_get_cached
_last: list[tuple[float, float]] = []


def _timed(*args, **kwargs):
    w, c = time.perf_counter(), time.process_time()
    try:
        return _compile(*args, **kwargs)
    finally:
        _last.append((time.process_time() - c, time.perf_counter() - w))


compiler.compile_or_get_cached = _timed


def _equations(f, *args) -> int:
    sys.path.insert(0, "src")
    from jitscope.analyze.jaxpr_stats import walk_bodies

    return sum(len(j.eqns) * uses for _, j, uses in walk_bodies(jax.make_jaxpr(f)(*args).jaxpr))


def _chain(body, n):
    def f(x):
        for i in range(n):
            x = body(x, i)
        return x
    return f


def programs():
    x = jnp.ones((32, 32))
    yield "elementwise", _chain(lambda x, i: jnp.sin(x) * 1.5 + i, 150), (x,)
    yield "tanh", _chain(lambda x, i: jnp.tanh(x) + i, 100), (x,)
    yield "matmul", _chain(lambda x, i: x @ x, 100), (x,)
    yield "matmul+tanh", _chain(lambda x, i: jnp.tanh(x @ x) + i, 40), (x,)
    yield "matmul+relu", _chain(lambda x, i: jax.nn.relu(x @ x) + i, 40), (x,)
    yield "matmul+exp", _chain(lambda x, i: jnp.exp(x @ x) * 0.5, 40), (x,)
    yield "reduce", _chain(lambda x, i: x + x.sum(0), 60), (x,)
    yield "cumsum", _chain(lambda x, i: jnp.cumsum(x, 0), 60), (x,)
    yield "sort", _chain(lambda x, i: jnp.sort(x, 0), 60), (x,)
    yield "gather", _chain(lambda x, i: x[jnp.arange(32) % 7], 30), (x,)
    yield "scatter", _chain(lambda x, i: x.at[jnp.arange(32) % 7].add(1.0), 30), (x,)
    yield "conv", _chain(lambda x, i: jax.lax.conv(x[None, None], jnp.ones((1, 1, 3, 3)), (1, 1), "SAME")[0, 0], 40), (x,)
    yield "fori_loop", _chain(lambda x, i: jax.lax.fori_loop(0, 3, lambda j, y: jnp.sin(y) + j, x), 40), (x,)

    def mlp(ps, x):
        for w in ps:
            x = jax.nn.relu(x @ w)
        return x.sum()
    yield "mlp grad", jax.grad(mlp), ([jnp.ones((32, 32)) * 0.01] * 30, x)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--busy", type=int, default=0, help="busy-loop processes running meanwhile")
    args = ap.parse_args()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        jax.jit(lambda v: v + 1)(1.0)  # the backend's first compile has its own start-up cost
        rates = []
        print(f"{'program':14s} {'equations':>9s} {'cpu s':>7s} {'wall s':>7s} {'cpu ms/eq':>9s}")
        for name, f, a in programs():
            _last.clear()
            jax.jit(f)(*a)
            cpu, wall = _last[-1]
            n = _equations(f, *a)
            rates.append(cpu / n)
            print(f"{name:14s} {n:9d} {cpu:7.3f} {wall:7.3f} {1e3 * cpu / n:9.2f}")
        q = statistics.quantiles(rates, n=4)
        print(f"cpu ms per equation: min {1e3 * min(rates):.2f}, 25% {1e3 * q[0]:.2f}, median {1e3 * q[1]:.2f}, "
              f"75% {1e3 * q[2]:.2f}, max {1e3 * max(rates):.2f}")
        for mb in (4, 16, 64):
            const = np.random.rand(mb * (1 << 20) // 4).astype(np.float32)
            _last.clear()
            jax.jit(lambda v, c=const: v * jnp.asarray(c)[:3])(jnp.ones(3))
            cpu, wall = _last[-1]
            print(f"constants {mb:3d} MB: cpu {cpu:.3f} s, wall {wall:.3f} s, {1e3 * cpu / (mb * 1.048576):.1f} ms/MB")
    finally:
        for b in busy:
            b.kill()


if __name__ == "__main__":
    main()
