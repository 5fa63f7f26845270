"""Output comparison: real jit vs eager results, tolerance per dtype, structural mismatches."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jitscope.analyze.numerics import TOLERANCE, compare_outputs


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


def test_equal_infinities_and_nans_are_equal():
    a = jnp.array([jnp.inf, -jnp.inf, jnp.nan, 1.0], jnp.float32)
    d = compare_outputs(a, jnp.array(a), "eager", "jit")
    assert d.status == "equal" and d.max_abs_error == 0.0
    _json_safe(d)


def _json_safe(d):
    import json

    return json.dumps(d.to_dict(), allow_nan=False)


def test_nan_or_inf_on_one_side_is_named_in_detail():
    a = jnp.array([1.0, 2.0, jnp.inf, 4.0], jnp.float32)
    b = jnp.array([1.0, jnp.nan, jnp.inf, -jnp.inf], jnp.float32)
    d = compare_outputs(a, b, "eager", "jit")
    assert d.status == "differs" and d.leaves == ["output"]
    assert "2 of 4 elements are NaN or inf on one side only" in d.detail
    assert "output[1]: eager=2.0, jit=nan" in d.detail
    assert d.max_abs_error == 0.0  # the finite elements agree; the JSON stays finite
    _json_safe(d)


def test_bfloat16_uses_its_tolerance_not_bit_equality():
    x = jnp.linspace(0.1, 1.0, 64, dtype=jnp.bfloat16)
    near = x * jnp.bfloat16(1.0078125)  # one bf16 ulp around 1: within bf16 tolerance, not bit-equal
    assert not bool(jnp.all(near == x))
    d = compare_outputs(x, near, "eager", "jit")
    assert d.status == "equal" and d.rtol == TOLERANCE["bfloat16"][0]
    assert 0 < d.max_abs_error < 0.01
    far = compare_outputs(x, x + jnp.bfloat16(0.5))
    assert far.status == "differs" and "bfloat16" in far.detail


def test_integer_difference_names_count_and_dtype():
    d = compare_outputs(jnp.arange(4), jnp.array([0, 1, 2, 4]))
    assert d.status == "differs" and "1 of 4 elements differ (int32)" in d.detail
