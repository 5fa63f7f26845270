"""Python's scoping decides which function ``jax.jit(name)`` traces: a function that binds ``name`` to a value
hides the enclosing scopes' ``name``. ``model = make(width); jax.jit(model)`` inside ``def model(width)`` jits
the closure ``make`` returns, so neither ``def model`` nor the factory runs on tracers (the factory's Python
ints stay Python: the program runs under real jit). A local ``def step`` rebound by ``step = jax.jit(step)`` is
still the function traced."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = '''\
import jax
import jax.numpy as jnp


def make(width, depth):
    def apply(x):
        for _ in range(depth):
            x = x[:width] * 2
        return jnp.reshape(x, (width, -1))
    return apply


def model(width, depth):
    model = make(width, depth)
    return jax.jit(model)


def outer():
    def step(x, n):
        if x.sum() > n:
            return x
        return -x
    step = jax.jit(step)
    return step
'''


def test_a_local_value_hides_the_enclosing_def_and_a_rebound_local_def_is_still_traced():
    found = sorted((f.code, f.location.line) for f in lint_source(SRC, "m.py") if f.severity != "info")
    assert found == [("JS101", 20)], found


def test_the_program_runs_under_real_jit_and_the_look_alike_raises():
    namespace: dict[str, object] = {}
    exec(compile(SRC, "m.py", "exec"), namespace)
    assert namespace["model"](2, 2)(jnp.ones(8)).shape == (2, 1)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        namespace["outer"]()(jnp.ones(3), 1.0)
