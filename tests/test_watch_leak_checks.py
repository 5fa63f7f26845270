"""Watching never keeps a tracer alive past its trace: ``jax.checking_leaks()`` passes under watch exactly as
it does without it (a jitted call under an eager vmap/grad was kept with its tracers, and JAX reported
"Leaked trace BatchTrace" in the user's program)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

import jitscope


def _program():
    f = jax.jit(lambda x: jnp.sin(x) * 2)
    with jax.checking_leaks():
        g = jax.grad(lambda x: f(x).sum())(jnp.ones(3))
        v = jax.vmap(f)(jnp.ones((2, 3)))
        k = jax.random.split(jax.random.PRNGKey(0), 2)
        r = jax.vmap(lambda kk, x: jax.random.normal(kk, ()) + f(x).sum())(k, jnp.ones((2, 3)))
    return g, v, r


def test_checking_leaks_passes_under_watch_as_without_it():
    plain = _program()
    with jitscope.watch() as w:
        watched = _program()
    for a, b in zip(plain, watched):
        assert jnp.array_equal(a, b)
    # the batched and backward programs are still named after the user's function
    transforms = {e.transform for e in w.result().events}
    assert any(t and "vmap" in t for t in transforms) and any(t and ("grad" in t or "jvp" in t or "backward" in t)
                                                                for t in transforms), transforms
