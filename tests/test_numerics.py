"""Output comparison: real jit vs eager results, tolerance per dtype, structural mismatches."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jitscope.analyze.numerics import compare_outputs


def test_jit_and_eager_agree_within_tolerance():
    f = lambda x: jnp.sin(x) * 2 + x  # noqa: E731
    x = jnp.linspace(0, 1, 100)
    d = compare_outputs(f(x), jax.jit(f)(x), "eager", "jit")
    assert d.ok and d.status == "equal"


def test_large_cancellation_is_reported_with_errors():
    # Seed 002: x + y - x with x huge loses y entirely in float32 eagerly.
    x, y = jnp.float32(1e8), jnp.float32(1.0)
    eager = (x + y) - x
    d = compare_outputs(eager, y, "eager", "exact")
    assert d.status == "differs"
    assert d.max_abs_error == 1.0


def test_shape_and_structure_mismatch():
    assert compare_outputs(jnp.ones(3), jnp.ones(4)).status == "mismatch"
    d = compare_outputs((jnp.ones(3),), [jnp.ones(3)])
    assert d.status == "mismatch" and "structure" in d.detail
    assert compare_outputs(jnp.ones(3, jnp.int32), jnp.ones(3, jnp.int32)).ok
