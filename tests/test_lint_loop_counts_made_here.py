"""JS202 on ``range(buf.shape[0])`` / ``range(len(buf))`` of an array made in the function: the trip count is
the constructor's (a literal, or a static argument's value the source does not show), not the data's.

Real JAX on CPU: the unrolled graph grows with the static count (``make_jaxpr`` counts the copies), so the cost is
the caller's choice: ``info``; a literal count under 16 is a small unroll (quiet), 16 or more a warning, and a
loop over an argument's rows is `info` too (its count is the data's shape, which the source does not bound).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from jitscope.lint import lint_source

SRC = '''import functools
import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=1)
def smooth(x, n_taps):
    taps = jnp.ones((n_taps, x.shape[0]))
    for i in range(taps.shape[0]):
        x = x + taps[i] * 0.5
    return x


@jax.jit
def small(x):
    buf = jnp.ones((4, 3))
    for i in range(buf.shape[0]):
        x = x + buf[i]
    return x


@jax.jit
def big(x):
    buf = jnp.ones((64, 3))
    for i in range(len(buf)):
        x = x + buf[i]
    return x


@jax.jit
def rows(x):
    y = x * 2
    for i in range(y.shape[0]):
        x = x + y[i]
    return x
'''


def _adds(fn, *args) -> int:
    return sum(e.primitive.name == "add" for e in jax.make_jaxpr(fn)(*args).eqns)


def test_the_unroll_follows_the_static_count():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    smooth = ns["smooth"].__wrapped__
    x = jnp.ones(3)
    assert _adds(functools.partial(smooth, n_taps=3), x) == 3
    assert _adds(functools.partial(smooth, n_taps=7), x) == 7
    assert _adds(ns["small"].__wrapped__, x) == 4
    assert float(ns["smooth"](x, 5)[0]) == 3.5


def test_js202_by_who_sets_the_count():
    found = {f.location.line: f.severity for f in lint_source(SRC, "m.py") if f.code == "JS202"}
    assert found == {9: "info", 25: "warning", 33: "info"}  # small (4 trips) is quiet
