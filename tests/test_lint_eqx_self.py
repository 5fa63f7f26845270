"""`self` of an equinox Module is a pytree: under `eqx.filter_jit` (or `jax.jit`) its array fields are
tracers in every method the traced code calls, not only in `__call__`. A Python `if` on such a leaf
fails under real JAX; the same method's tests on static fields (a `float` field filter_jit keeps
static), on shapes, or on NumPy copies for the host do not, and lint stays quiet on them."""

from __future__ import annotations

import textwrap

import equinox as eqx
import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = textwrap.dedent("""
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    import numpy as np


    class Layer(eqx.Module):
        w: jax.Array
        scale: float

        def __call__(self, x):
            if self.scale > 0:
                x = x * self.scale
            return self.w @ x

        def norm(self):
            if jnp.any(self.w < 0):
                raise ValueError("negative weights")
            return jnp.sum(self.w)

        def rows(self):
            if self.w.shape[0] > 1:
                return self.w[0]
            return self.w

        def check(self):
            assert self.scale > 0
            return self.w * self.scale

        def describe_host(self):
            w = np.asarray(self.w)
            return "neg" if (w < 0).any() else "ok"


    @eqx.filter_jit
    def norm_of(layer):
        return layer.norm()


    @eqx.filter_jit
    def fine(layer, x):
        return layer(x) + layer.rows().sum() + layer.check().sum()
""")


def _module():
    ns: dict = {}
    exec(compile(SRC, "layer.py", "exec"), ns)
    return ns


def test_if_on_an_array_field_of_self_fails_under_filter_jit_and_lint_says_so():
    ns = _module()
    layer = ns["Layer"](jnp.ones((2, 2)), 2.0)
    assert float(layer.norm()) == 4.0  # eagerly the check works
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["norm_of"](layer)
    hits = sorted((f.code, f.location.line, f.severity) for f in lint_source(SRC, "layer.py"))
    assert hits == [("JS101", 18, "warning")], hits


def test_static_fields_shapes_and_host_copies_of_self_work_under_filter_jit():
    ns = _module()
    layer = ns["Layer"](jnp.ones((2, 2)), 2.0)
    assert ns["fine"](layer, jnp.ones(2)).shape == (2,)
    assert ns["Layer"].describe_host(layer) == "ok"
    assert isinstance(layer, eqx.Module)
