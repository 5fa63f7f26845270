"""The `__call__` of an equinox Module, reached by convention (lint sees no call of it), gets whatever its
caller passes; from inside `eqx.filter_jit` a Python int stays a Python int (jaxmodel/families/equinox.py
MODULE_CALL_DATA_INPUTS). So a Python `if`/`range` on such a parameter works under real `filter_jit` and lint
stays quiet; a parameter the body uses as an array (`mask.any()`) is a tracer there, and lint still warns."""

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


    class Stack(eqx.Module):
        w: jax.Array

        def __call__(self, x, depth, scale=None):
            if depth > 2:
                x = x * 2
            for _ in range(depth):
                x = x + self.w
            if depth == 0:
                return x
            return x


    class Masked(eqx.Module):
        w: jax.Array

        def __call__(self, x, mask):
            if mask.any():
                return x * self.w
            return x


    class RelativeBias(eqx.Module):
        table: jax.Array

        def __call__(self, qlen, klen):
            pos = np.arange(qlen)[:, None] - np.arange(klen)[None, :]
            return self.table[np.abs(pos)]


    class HostAbs(eqx.Module):
        def __call__(self, x):
            return np.abs(x)


    class Net(eqx.Module):
        bias: RelativeBias

        def __call__(self, x):
            n = x.shape[0]
            return x + self.bias(n, n).sum()


    @eqx.filter_jit
    def run(model, x):
        return model(x, 3)


    @eqx.filter_jit
    def run_masked(model, x, mask):
        return model(x, mask)
""")


def _module():
    ns: dict = {}
    exec(compile(SRC, "eqx_call.py", "exec"), ns)
    return ns


def test_a_python_int_passed_to_call_under_filter_jit_works_and_lint_is_quiet():
    ns = _module()
    out = ns["run"](ns["Stack"](jnp.ones(3)), jnp.ones(3))
    assert out.shape == (3,)
    assert eqx.filter_jit(ns["Stack"](jnp.ones(3)))(jnp.ones(3), 1).shape == (3,)
    hits = [(f.code, f.location.line) for f in lint_source(SRC, "eqx_call.py") if f.location.line < 19]
    assert hits == [], hits


def test_a_parameter_used_as_an_array_is_a_tracer_and_lint_still_warns():
    ns = _module()
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["run_masked"](ns["Masked"](jnp.ones(3)), jnp.ones(3), jnp.ones(3) > 0)
    hits = [(f.code, f.location.line, f.severity) for f in lint_source(SRC, "eqx_call.py")]
    assert ("JS101", 25, "warning") in hits, hits


def test_a_convention_parameter_used_as_a_numpy_size_is_the_callers_python_int():
    """`np.arange(qlen)` in a Module's `__call__`: only a Python int works there, and the parent passes one
    (`x.shape[0]`); a parameter handed to NumPy as data (`np.abs(x)`) is still reported."""
    ns = _module()
    net = ns["Net"](ns["RelativeBias"](jnp.arange(5.0)))
    assert eqx.filter_jit(lambda m, v: m(v))(net, jnp.ones(3)).shape == (3,)
    with pytest.raises(jax.errors.TracerArrayConversionError):
        eqx.filter_jit(lambda m, v: m(v))(ns["HostAbs"](), jnp.ones(3))
    hits = [(f.code, f.location.line) for f in lint_source(SRC, "eqx_call.py") if f.code == "JS104"]
    assert hits == [("JS104", 40)], hits


CALLS = textwrap.dedent("""
    import equinox as eqx
    import jax.numpy as jnp


    @eqx.filter_jit
    def run2(x, k):
        if k > 1:
            return x * 2
        return x


    @eqx.filter_jit
    def run3(x, k):
        if k > 1:
            return x * 2
        return x


    def main():
        x = jnp.ones(3)
        return run2(x, 4) + run2(x, -1) + run3(x, 2)


    def with_array():
        return run3(jnp.ones(3), jnp.int32(2))
""")


def test_every_seen_call_passing_a_python_literal_under_filter_jit_makes_it_static():
    """facts.python_passed: filter_jit keeps a Python int static, so `if k > 1` works when every call (all in this
    file, a script) passes a literal; one call passing an array makes `k` a tracer there, and lint warns."""
    ns: dict = {}
    exec(compile(CALLS, "calls.py", "exec"), ns)
    assert ns["main"]().shape == (3,)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["with_array"]()
    hits = [(f.code, f.location.line) for f in lint_source(CALLS, "calls.py")]
    assert hits == [("JS101", 15)], hits


FIELDS = textwrap.dedent("""
    import equinox as eqx
    import jax


    class M(eqx.Module):
        w: jax.Array
        n: int
        s: int = eqx.field(static=True)

        def __call__(self, x):
            return x * self.w


    @jax.jit
    def by_jit(m: M, x):
        if m.n > 1:
            return m(x)
        return x


    @jax.jit
    def by_jit_static(m: M, x):
        if m.s > 1:
            return m(x)
        return x


    @eqx.filter_jit
    def by_filter_jit(m: M, x):
        if m.n > 1:
            return m(x)
        return x
""")


def test_an_int_field_is_a_tracer_under_jax_jit_and_a_python_int_under_filter_jit():
    """families/equinox.py MODULE_BASES_TRACED_BY_JIT: plain jit flattens every non-static field into a leaf."""
    ns: dict = {}
    exec(compile(FIELDS, "fields.py", "exec"), ns)
    m, x = ns["M"](jnp.ones(3), 2, 2), jnp.ones(3)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        ns["by_jit"](m, x)
    assert ns["by_jit_static"](m, x).shape == (3,) and ns["by_filter_jit"](m, x).shape == (3,)
    hits = [(f.code, f.location.line) for f in lint_source(FIELDS, "fields.py")]
    assert hits == [("JS101", 17)], hits
