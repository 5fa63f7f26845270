"""JS605 (and the other per-call compile claims: JS203, JS204, JS208) in a function that only runs inside an outer
trace: the call graph finds `inner` traced on every way it is reached (`outer`'s jit calls it, a scan body calls
`helper`), so the jitted `solve` it calls is inlined into the outer program: a new local function per call costs
a retrace of `solve` inside the outer trace, and the outer program compiles once (counted below under real jit).
The same helper also called from eager code compiles `solve` per call there and stays reported."""

from __future__ import annotations

import jax.numpy as jnp
from conftest import count_compiles

from jitscope.lint import lint_source

SRC = '''
import functools

import jax


@functools.partial(jax.jit, static_argnums=0)
def solve(fn, x):
    return fn(x)


def inner(x, scale):
    def f(v):
        return v * scale
    return solve(f, x)


@jax.jit
def outer(x):
    return inner(x, 2.0)


def helper(x):
    return solve(lambda v: v + 1, x)


def body(carry, x):
    return carry + helper(x), None


@jax.jit
def run(xs):
    return jax.lax.scan(body, 0.0, xs)[0]


def shared(x):
    return solve(lambda v: v - 1, x)  # JS605


@jax.jit
def traced_use(x):
    return shared(x)


def eager_use(x):
    return shared(x)
'''


def test_calls_inside_an_outer_trace_are_not_reported():
    found = sorted(f.location.line for f in lint_source(SRC, "m.py", select=["JS605"]))
    want = [i for i, line in enumerate(SRC.splitlines(), 1) if "# JS605" in line]
    assert found == want, found


def test_compiles_under_real_jax():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    x = jnp.ones(3)
    ns["outer"](x)
    ns["run"](x)
    assert count_compiles(lambda: (ns["outer"](x), ns["outer"](x), ns["run"](x), ns["run"](x))) == 0
    assert count_compiles(lambda: (ns["eager_use"](x), ns["eager_use"](x))) == 2  # a new lambda per call


SRC_208 = '''
import functools

import jax


@functools.partial(jax.jit, static_argnames=("t",))
def step(x, t):
    return x * t


def inner(x):
    scale = 1.0
    for _ in range(3):
        scale = scale * 0.5
        x = step(x, t=scale)
    return x


@jax.jit
def outer(x):
    return inner(x)
'''


def test_static_per_iteration_inside_an_outer_trace_is_not_reported_nor_at_its_declaration():
    assert lint_source(SRC_208, "m.py", select=["JS208"]) == []
    ns: dict = {}
    exec(compile(SRC_208, "m.py", "exec"), ns)
    x = jnp.ones(2)
    ns["outer"](x)
    assert count_compiles(lambda: (ns["outer"](x), ns["outer"](x))) == 0  # one outer program, step inlined
    assert count_compiles(lambda: ns["inner"](x)) == 3  # run eagerly: one compile per value
