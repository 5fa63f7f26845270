"""JS601 and dicts of arrays the function does not index by string: a local annotated as a container
(`new: Dict[str, Array] = states.copy()`), a parameter annotated as one, and a copy of a pytree element unpacked
from a scan carry (`states, outs = carry; new = states.copy()`) are not proven arrays. Item assignment into a dict
works under jit (run below under real `lax.scan` in `jax.jit`), so the first two are not reported and the
unannotated copy of an unpacked element is a warning; a copy of a jnp local, or of an annotated array, is still an
error (it raises under real jit)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from jitscope.lint import lint_source

SRC = '''
from typing import Dict, Tuple

import jax
import jax.numpy as jnp
from jax import lax

NODES = ("a", "b")


def run(states: Dict[str, jax.Array], xs):
    def step(carry: Tuple[Dict[str, jax.Array], jax.Array], x):
        states, total = carry
        new_states: Dict[str, jax.Array] = states.copy()
        for node in NODES:
            new_states[node] = states[node] + x
        return (new_states, total + x), total
    return lax.scan(step, (states, jnp.float32(0.0)), xs)


def run_unannotated(states, xs):
    def step(carry, x):
        states, total = carry
        new_states = states.copy()
        for node in NODES:
            new_states[node] = states[node] + x  # JS601 warning: a copy of a carry element may be a dict
        return (new_states, total + x), total
    return lax.scan(step, (states, jnp.float32(0.0)), xs)


@jax.jit
def annotated_param(params: Dict[str, jax.Array], x):
    for node in NODES:
        params[node] = params[node] * x
    return params


@jax.jit
def jnp_copy(x):
    y = jnp.sin(x)
    z = y.copy()
    z[0] = 1.0  # JS601 error: a copy of a jnp array
    return z


@jax.jit
def annotated_array(x):
    y: jax.Array = x * 2
    y[0] = 1.0  # JS601 error
    return y
'''


def _expected(sev):
    return sorted(i for i, line in enumerate(SRC.splitlines(), 1) if f"# JS601 {sev}" in line)


def test_container_locals_and_carry_copies():
    found = lint_source(SRC, "m.py", select=["JS601"])
    assert sorted(f.location.line for f in found if f.severity == "error") == _expected("error"), found
    assert sorted(f.location.line for f in found if f.severity == "warning") == _expected("warning"), found


def test_dict_item_assignment_runs_under_jit_and_arrays_raise():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    states = {"a": jnp.zeros(2), "b": jnp.ones(2)}
    xs = jnp.arange(3.0)
    for fn in (ns["run"], ns["run_unannotated"]):
        (out, total), _ = jax.jit(fn)(states, xs)
        assert float(out["a"][0]) == 3.0 and float(total) == 3.0
    assert float(ns["annotated_param"](dict(states), 2.0)["b"][0]) == 2.0
    for fn in (ns["jnp_copy"], ns["annotated_array"]):
        with pytest.raises(TypeError, match="immutable"):
            fn(jnp.zeros(3))
