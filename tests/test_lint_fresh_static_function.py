"""JS605: a function made anew per call (lambda, local def, partial) passed as a static argument recompiles.

Counted under real jax.jit: a lambda per call traces once per call, a module-level function once.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

import jitscope

SRC = '''\
from functools import partial

import jax


@partial(jax.jit, static_argnums=0)
def apply(f, x):
    return f(x)


def double(v):
    return v * 2


class Solver:
    def __init__(self):
        self.step = jax.jit(self._step, static_argnums=0)

    def _step(self, f, x):
        return f(x)

    def run(self, x, k):
        return self.step(lambda v: v * k, x)


def run(x, k):
    def scale(v):
        return v * k
    for _ in range(3):
        x = apply(scale, x)
    return apply(double, x) + apply(lambda v: v + k, x)


for i in range(3):
    apply(lambda v: v + 1, 1.0)
apply(double, 1.0)
'''


def test_js605_flags_fresh_functions_passed_static(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS605"])
    got = [(f.location.line, f.severity) for f in result.findings]
    assert got == [(23, "warning"), (30, "warning"), (31, "warning"), (35, "warning")], got
    assert "local function `scale` passed for static argument `f` of `apply` is a new object every iteration" \
        in result.findings[1].message
    assert "on every call of `run`" in result.findings[2].message


def test_a_fresh_static_function_retraces_per_call():
    traces = []

    @functools.partial(jax.jit, static_argnums=0)
    def apply(f, x):
        traces.append(f)
        return f(x)

    def run(x, k):
        return apply(lambda v: v * k, x)

    def double(v):
        return v * 2

    for _ in range(3):
        run(jnp.ones(2), 2.0)
    assert len(traces) == 3  # a trace and compile per call
    traces.clear()
    for _ in range(3):
        apply(double, jnp.ones(2))
    assert len(traces) == 1
