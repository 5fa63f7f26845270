"""JS202 is a cost claim: a Python loop runs fine under jit and adds one copy of its body per trip. Where the
source fixes a count of 16 or more (`range(32)`) the cost is proven: a warning. Where the arguments' shapes set
it (`range(x.shape[0])`, `for row in x`, a static top-k) the source does not bound it (two steps, a top-3): `info`.
Real JAX: both run under jit, and the graph holds one copy per trip (make_jaxpr)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jitscope.lint import lint_source

SRC = '''
import functools

import jax
import jax.numpy as jnp


@jax.jit
def two_steps(x):
    for i in range(x.shape[0]):  # JS202 info
        x = x.at[i].set(jnp.sin(x[i]))
    return x


@functools.partial(jax.jit, static_argnums=1)
def top_k_rows(x, k):
    _, idx = jax.lax.top_k(x, k)
    out = 0.0
    for j in idx:  # JS202 info
        out = out + jnp.sum(x * j)
    return out


@jax.jit
def fixed(x):
    for i in range(32):  # JS202 warning
        x = jnp.sin(x) + i
    return x
'''


def test_severity_by_what_the_source_fixes():
    got = {f.location.line: f.severity for f in lint_source(SRC, "m.py", select=["JS202"])}
    want = {i: line.split("# JS202 ")[1] for i, line in enumerate(SRC.splitlines(), 1) if "# JS202 " in line}
    assert got == want, got


def test_under_real_jit_the_loops_run_and_unroll():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    assert ns["two_steps"](jnp.ones(2)).shape == (2,)
    assert ns["top_k_rows"](jnp.arange(5.0), 3).shape == ()
    assert ns["fixed"](jnp.ones(2)).shape == (2,)
    eqns = len(jax.make_jaxpr(ns["fixed"].__wrapped__)(jnp.ones(2)).eqns)
    assert eqns >= 32  # one sin per trip: the cost JS202 names
