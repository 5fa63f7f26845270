"""JS209: eager `lax.cond`/`scan`/`fori_loop` in a loop with a body made anew each iteration compiles per iteration.

The compiles are counted under real JAX (jax.monitoring's backend-compile events): fresh lambdas compile on
every iteration, the same functions once. Look-alikes not flagged: the body defined before the loop, code
that a jit may trace (a public function of a package, a function called from another function).
"""

from __future__ import annotations

import jax.numpy as jnp
from conftest import count_compiles
from jax import lax

import jitscope

SCRIPT = '''\
import functools

import jax.numpy as jnp
from jax import lax


def up(v):
    return v + 1


def _train(x, n):
    for _ in range(n):
        x = lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, x)
        x = lax.cond(x.sum() > 0, up, up, x)
    return x


def helper(x):
    for _ in range(3):
        x = lax.fori_loop(0, 3, lambda i, v: v + i, x)
    return x


def uses_helper(x):
    return helper(x)


x = jnp.ones(3)
for i in range(4):
    x = lax.scan(functools.partial(lambda k, c, v: (c + k * v, c), i), 0.0, x)[1]
    x = lax.fori_loop(0, 3, lambda j, v: v + j, x)

if __name__ == "__main__":
    _train(x, 5)
'''


def test_fresh_bodies_compile_every_iteration_under_real_jax():
    x = jnp.ones(3)

    def fresh():
        for _ in range(4):
            lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, x)

    def up(v):
        return v + 1

    def down(v):
        return v - 1

    def same():
        for _ in range(4):
            lax.cond(x.sum() > 0, up, down, x)

    fresh()  # warm JAX's own helpers (the predicate's ops)
    same()
    assert count_compiles(fresh) >= 4
    assert count_compiles(same) == 0


def test_js209_flags_only_certainly_eager_loops(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS209"])
    got = [(f.location.line, f.severity) for f in result.findings]
    assert got == [(13, "warning"), (30, "warning"), (31, "warning")], got
    assert "`lax.cond` called eagerly inside a loop with a lambda as its body" in result.findings[0].message


TESTS_SRC = '''\
from functools import partial

import jax.numpy as jnp
import pytest
from jax import lax


def scale(v, a):
    return v * a


def step(x):
    return lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, x)


def step_named(x):
    return lax.cond(x.sum() > 0, jnp.negative, jnp.positive, x)


def step_once(x):
    return lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, x)


def test_steps():
    x = jnp.ones(3)
    for _ in range(5):
        x = step(x)
        x = step_named(x)
    step_once(x)


@pytest.mark.parametrize("a", [2.0, 3.0])
def test_branches(a):
    x = jnp.ones(3)
    for i in range(4):
        x = lax.switch(i % 2, [partial(scale, a=a), partial(scale, a=-a)], x)
    for _ in range(2):
        x = lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, x)


class TestThing:
    def test_loop(self):
        x = jnp.ones(3)
        for _ in range(3):
            x = lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, x)
'''


def test_js209_in_test_functions_and_helpers_they_call_in_a_loop(tmp_path):
    """The test runner calls test functions eagerly; so is a module function whose every reference is a call
    from them, and it runs once per iteration when one calls it in a loop (``step``). Quiet: named bodies,
    a helper called once (``step_once``), a loop of two iterations (one extra compile at most)."""
    path = tmp_path / "test_cond.py"
    path.write_text(TESTS_SRC)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS209"])
    got = [(f.location.line, f.severity) for f in result.findings]
    assert got == [(13, "warning"), (36, "warning"), (45, "warning")], got
    assert "in `step`, which eager code calls in a loop" in result.findings[0].message
    (tmp_path / "cond_lib.py").write_text(TESTS_SRC)  # not a test file: `test_*` may be anything, called anywhere
    assert not jitscope.lint([str(tmp_path / "cond_lib.py")], config=False, jobs=1, select=["JS209"]).findings


def test_fresh_partials_and_helpers_compile_on_every_eager_call_under_real_jax():
    from functools import partial

    def scale(v, a):
        return v * a

    def step(x):
        return lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, x)

    x = jnp.ones(3)

    def helper_loop():
        y = x
        for _ in range(4):
            y = step(y)

    def switch_loop():
        y = x
        for i in range(4):
            y = lax.switch(i % 2, [partial(scale, a=2.0), partial(scale, a=-2.0)], y)

    helper_loop()
    switch_loop()
    assert count_compiles(helper_loop) >= 4
    assert count_compiles(switch_loop) >= 4
