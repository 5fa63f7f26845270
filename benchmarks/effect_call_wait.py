"""Does a jitted call with an effect wait for its program to run? (the model behind JW501's loss for effects)

    JAX_PLATFORMS=cpu python benchmarks/effect_call_wait.py

Prints, for a ~10-50 ms program without and with a no-op ``jax.debug.callback``, and for a tiny program with one,
the median time of the call itself (20 calls) and of one call plus ``block_until_ready``. Without an effect the
call returns at once (asynchronous dispatch); with one it returns after the program ran.
"""

from __future__ import annotations

import statistics
import time

import jax
import jax.numpy as jnp


def heavy(x):
    for _ in range(8):
        x = jnp.tanh(x @ x)
    return x


def heavy_effect(x):
    y = heavy(x)
    jax.debug.callback(lambda: None)
    return y


def tiny_effect(x):
    jax.debug.callback(lambda: None)
    return x + 1


def main() -> None:
    x = jnp.ones((400, 400)) * 1e-3
    for name, f in (("no effect", jax.jit(heavy)), ("effect", jax.jit(heavy_effect)),
                    ("tiny, effect", jax.jit(tiny_effect))):
        jax.block_until_ready(f(x))
        calls, full = [], []
        for _ in range(20):
            t = time.perf_counter()
            y = f(x)
            calls.append(time.perf_counter() - t)
            jax.block_until_ready(y)
            full.append(time.perf_counter() - t)
        print(f"{name:14s} call {statistics.median(calls) * 1e3:8.3f} ms   call+run {statistics.median(full) * 1e3:8.3f} ms")


if __name__ == "__main__":
    main()
