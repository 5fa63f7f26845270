"""A jitted call inside a loop of a function that is itself jitted compiles nothing per iteration: the loop
unrolls while the outer function traces and the inner jit is inlined into the outer program. JS208 (static
argument per iteration) and JS203 (jit of a fresh function in a loop) claim a compile per iteration, so they
say nothing there; the same loops run eagerly are still found."""

from __future__ import annotations

import jax.numpy as jnp

from jitscope.lint import lint_source

SRC = '''\
import functools

import jax


@functools.partial(jax.jit, static_argnums=1)
def inner(x, t):
    return x * t


@jax.jit
def outer(x):
    for t in range(5):
        x = inner(x, t)
    for t in range(3):
        x = jax.jit(lambda v: v + t)(x)
    return x


def eager(x):
    for t in range(5):
        x = inner(x, t)
    for t in range(3):
        x = jax.jit(lambda v: v + t)(x)
    return x
'''


def test_lint_is_quiet_under_an_outer_jit_and_finds_the_eager_loops():
    found = sorted((f.code, f.location.line) for f in lint_source(SRC, "m.py") if f.code in ("JS203", "JS208"))
    # 22: a sweep of the 5 values `range(5)` writes out (an info; no fix at `inner`'s declaration for that)
    assert found == [("JS203", 24), ("JS208", 22)], found


def _compiles(fn) -> int:
    from conftest import count_compiles

    return count_compiles(fn)


def test_real_jax_compiles_the_linted_outer_loop_once_and_the_eager_loop_per_iteration():
    ns: dict[str, object] = {}
    exec(compile(SRC, "m.py", "exec"), ns)  # the program linted above, run under real jax.jit
    x = jnp.ones(3)
    x.block_until_ready()
    assert _compiles(lambda: ns["outer"](x).block_until_ready()) == 1
    assert _compiles(lambda: ns["eager"](x).block_until_ready()) == 5 + 3  # a compile per static value and per lambda
