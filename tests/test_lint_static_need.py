"""Why a static argument must stay static (lint/static_need.py, JS208's advice).

A static argument that changes on every iteration compiles once per value (JS208). Tracing it is the fix only
where the jitted def can take a tracer there: Python control flow on it (``if m == 1:``) raises
TracerBoolConversionError under real jit (below), so the advice is fewer values, whether the jitted def is in
the same module or in another linted module (its summary carries the answer). An identity test (``if m is
None:``) works on a tracer: there tracing it is the advice.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import pytest

import jitscope

QUAD_SRC = '''\
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=0)
def weight(m):
    if m == 1:
        return 1j * jnp.pi / 2
    elif m % 2 == 0:
        return 2.0 / (1.0 - m * m) + 0j
    return 0j


@partial(jax.jit, static_argnames="m")
def maybe_scaled(x, m):
    if m is None:
        return x
    return x * m
'''

USE_SRC = '''\
import jax.numpy as jnp

from pkg import quad


def weights(n):
    w = jnp.zeros(2 * n + 1, dtype=jnp.complex64)
    for k in range(-n, n + 1):
        w = w.at[k + n].set(quad.weight(-k))
    return w


def scaled_all(x, n):
    for k in range(n):
        x = quad.maybe_scaled(x, m=k)
    return x
'''


def test_control_flow_on_a_static_argument_needs_it_static_under_real_jit():
    def weight(m):
        if m == 1:
            return 1.0
        return 0.0

    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(weight)(1)
    assert functools.partial(jax.jit, static_argnums=0)(weight)(1) == 1.0

    def maybe_scaled(x, m):
        return x if m is None else x * m

    assert float(jax.jit(maybe_scaled)(jnp.ones(()), 3)) == 3.0  # an identity test works on a tracer


def test_js208_says_a_static_argument_used_in_control_flow_must_stay_static_across_modules(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "quad.py").write_text(QUAD_SRC)
    (pkg / "construct.py").write_text(USE_SRC)
    found = jitscope.lint([str(pkg)], config=False, jobs=1, select=["JS208"]).findings
    by_line = {f.location.line: f for f in found if f.location.file.endswith("construct.py")}
    assert sorted(by_line) == [9, 15], [(f.location.file, f.location.line, f.message) for f in found]
    assert "`m` must stay static (it is tested by Python control flow at quad.py:9)" in by_line[9].message
    assert "must stay static" not in by_line[15].message and "drop it from the static arguments" in by_line[15].message


def test_js208_in_one_module_names_the_line_of_the_control_flow(tmp_path):
    path = tmp_path / "one.py"
    path.write_text(QUAD_SRC + '''

def weights(n):
    return [weight(k) for k in range(n)] + [w for k in range(n) for w in [weight(k + 1)]]


def loop(n):
    out = []
    for k in range(n):
        out.append(weight(k))
    return out
''')
    found = [f for f in jitscope.lint([str(path)], config=False, jobs=1, select=["JS208"]).findings
             if f.location.line == 30]
    assert len(found) == 1 and "it is tested by Python control flow at line 9" in found[0].message, found
