"""JW407 (compile-cache growth) claims the programs a cache keeps grow with the run: true of one function object
that keeps compiling (a new shape every step), not of a closure rebuilt and jitted per step, whose old objects
and caches die (JW403 reports those compiles). Held-out class: JW407 fired on a rebuilt jit 20 times."""

from __future__ import annotations

import gc
import weakref

import jax
import jax.numpy as jnp

import jitscope


def _codes(w, code):
    return [f for f in w.result().findings if f.code == code]


def test_a_closure_rebuilt_per_step_is_jw403_not_cache_growth():
    refs = []
    with jitscope.watch(slow_compile=600) as w:
        for i in range(20):
            def scaled(v, k=float(i)):  # a fresh function object every step
                return v * k
            step = jax.jit(scaled)
            step(jnp.ones(3)).block_until_ready()
            refs.append(weakref.ref(scaled))
            del step, scaled
    gc.collect()
    assert sum(r() is None for r in refs) >= 19  # the old objects, and the caches keyed by them, are gone
    assert not _codes(w, "JW407")


def test_one_function_that_keeps_compiling_is_cache_growth():
    @jax.jit
    def grow(x):
        return x.sum()

    with jitscope.watch(slow_compile=600) as w:
        for i in range(1, 19):
            grow(jnp.zeros(i))
    assert grow._cache_size() == 18  # one object keeps every program
    (f,) = _codes(w, "JW407")
    assert f.details["compiles"] == 18
