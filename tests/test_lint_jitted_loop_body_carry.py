"""A local ``@jit`` loop body gets its carry as the loop passes it: a Python list stays a list (JS601).

Real JAX on CPU: ``lax.fori_loop(lo, hi, body, [a, b])`` with ``body`` decorated ``@jit`` calls it with a list of
tracers, and item assignment on that list works (the result equals the loop written by hand); the same body
given one array really raises, and stays reported.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from jitscope.lint import lint_source

SRC = '''import jax.numpy as jnp
from jax import jit, lax


def series(z, nmax):
    @jit
    def body_fun(i, val):
        val[1] = val[1] * 0.5
        val[0] += val[1]
        return val

    return lax.fori_loop(1, nmax, body_fun, [z, z])[0]


def halves(z, nmax):
    @jit
    def body_fun(i, val):
        val[1] = val[1] * 0.5
        return val

    return lax.fori_loop(1, nmax, body_fun, jnp.stack([z, z]))
'''


def _js601(src: str) -> list[tuple[int, str]]:
    return [(f.location.line, f.severity) for f in lint_source(src, "m.py") if f.code == "JS601"]


def test_a_list_carry_of_a_jitted_body_takes_item_assignment():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    z = jnp.ones(2)
    total, term = np.ones(2), np.ones(2)
    for _ in range(1, 5):
        term = term * 0.5
        total = total + term
    np.testing.assert_allclose(np.asarray(ns["series"](z, 5)), total)


def test_an_array_carry_of_the_same_body_really_fails():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    with pytest.raises(TypeError, match="immutable"):
        ns["halves"](jnp.ones(2), 5)


def test_js601_quiet_on_the_list_carry_and_reported_on_the_array_carry():
    found = _js601(SRC)
    assert [line for line, _ in found if line < 15] == []
    assert [line for line, _ in found if line > 15] == [18]
