"""JS202 and loops over a program's structure: iterating a dict (`for k in params: params[k]`, or a name the function
uses as a dict, or `range(len(params))` of one) runs once per key, a number fixed by the pytree structure, and
`lax.fori_loop` cannot replace it (a traced index cannot select a dict entry: run below). A loop over
`range(len(trajs))` whose body selects from a Python list by the loop index (`mems[i]`) is unrolled but has no
`fori_loop` rewrite either (a traced index cannot index a list: run below): `info`, saying why. A loop over an
array's rows is reported (`info`: a count the data's shape sets)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from jax import lax

from jitscope.lint import lint_source

SRC = '''
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def total(params, x):
    out = 0.0
    for k in params:
        out = out + jnp.sum(params[k] * x)
    return out


@jax.jit
def total_named(params, x):
    out = 0.0
    for name in params:
        if "bias" in params:
            out = out + jnp.sum(params[name]) * x
    for i in range(len(params)):
        out = out * 2.0 + x
    return out


def rollout(xs, mems):
    def body(c, x):
        return c, [x * 1.0, x * 2.0]
    c, trajs = lax.scan(body, 0.0, xs)
    mems = [m + 1.0 for m in mems]  # JS202 info: a parameter's items, count unknown
    for i in range(len(trajs)):  # JS202 info: selects from a Python list
        c = c + jnp.sum(trajs[i]) + mems[i]
    return c


rollout_jit = jax.jit(rollout)


@jax.jit
def rows(x):
    out = 0.0
    for r in jnp.sin(x):  # JS202 info
        out = out + jnp.sum(r * r)
    return out
'''


def test_structure_loops():
    found = lint_source(SRC, "m.py", select=["JS202"])
    got = sorted((f.location.line, f.severity) for f in found)
    want = sorted((i, line.split("# JS202 ")[1].split(":")[0]) for i, line in enumerate(SRC.splitlines(), 1)
                  if "# JS202 " in line)
    assert got == want, got


def test_under_real_jax():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    params = {"w": jnp.ones(3), "bias": jnp.zeros(3)}
    assert float(ns["total"](params, 2.0)) == 6.0
    assert float(ns["rollout_jit"](jnp.arange(3.0), [1.0, 2.0])) == 3.0 + 6.0 + 2.0 + 3.0
    # the rewrite the warning would suggest does not apply: a traced index selects neither a dict entry nor a list item
    with pytest.raises(TypeError):
        jax.jit(lambda p: lax.fori_loop(0, 2, lambda i, c: c + p[list(p)[0]][i] + [1.0, 2.0][i], 0.0))(params)
    with pytest.raises(TypeError):
        jax.jit(lambda p: lax.fori_loop(0, len(p), lambda i, c: c + jnp.sum(p[i]), 0.0))(params)
