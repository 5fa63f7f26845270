"""What `vmap` passes: only the call's arguments. A defaulted parameter no call of any `vmap` of the function passes
keeps its Python default (every reference's calls seen, here two), and a keyword-only parameter of
`vmap(partial(f, **params))` is bound by the partial or keeps its default: the call passes positionals only. Both
run under real jit below (`range(order)` needs a Python int). A look-alike whose vmap call passes the bound from a
mapped argument fails with TracerIntegerConversionError and stays reported."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = '''
import functools

import jax
import jax.numpy as jnp

PARAMS = {"order": 3, "scale": 2.0}


def moments(x, order=3):
    return jnp.stack([jnp.mean(x ** k) for k in range(order)])


@jax.jit
def batched(xs):
    return jax.vmap(moments)(xs)


@jax.jit
def batched_again(xs):
    return jax.vmap(moments, in_axes=(0,))(xs) * 2


def weighted(x, *, order=2, scale=1.0):
    return jnp.stack([jnp.mean(x ** k) * scale for k in range(order)])


@jax.jit
def configured(xs):
    return jax.vmap(functools.partial(weighted, **PARAMS))(xs)


def powers(x, order):
    return jnp.stack([x ** k for k in range(order)])  # JS304


@jax.jit
def passed(xs, ns):
    return jax.vmap(powers)(xs, ns)
'''


def test_vmap_defaults_and_partial_keywords():
    found = sorted((f.code, f.location.line) for f in lint_source(SRC, "m.py") if f.code in ("JS101", "JS304", "JS303"))
    want = sorted(("JS304", i) for i, line in enumerate(SRC.splitlines(), 1) if "# JS304" in line)
    assert found == want, found


def test_under_real_jax():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    xs = jnp.ones((4, 2))
    assert ns["batched"](xs).shape == (4, 3)
    assert ns["batched_again"](xs).shape == (4, 3)
    assert ns["configured"](xs).shape == (4, 3)
    with pytest.raises(jax.errors.TracerIntegerConversionError):
        ns["passed"](xs, jnp.full(4, 3))
