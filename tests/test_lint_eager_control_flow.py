"""JS209: eager `lax.cond`/`scan`/`fori_loop` in a loop with a body made anew each iteration compiles per iteration.

The compiles are counted under real JAX (jax.monitoring's backend-compile events): fresh lambdas compile on
every iteration, the same functions once. Look-alikes not flagged: the body defined before the loop, code
that a jit may trace (a public function of a package, a function called from another function).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
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


def _compiles(fn) -> int:
    seen = []

    def listener(name, _dur, **_kw):
        if name.endswith("backend_compile_duration"):
            seen.append(name)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        fn()
    finally:
        m = jax.monitoring  # public from JAX 0.7; the private name before
        (getattr(m, "unregister_event_duration_listener", None)
         or m._unregister_event_duration_listener_by_callback)(listener)
    return len(seen)


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
    assert _compiles(fresh) >= 4
    assert _compiles(same) == 0


def test_js209_flags_only_certainly_eager_loops(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    result = jitscope.lint([str(path)], config=False, jobs=1, select=["JS209"])
    got = [(f.location.line, f.severity) for f in result.findings]
    assert got == [(13, "warning"), (30, "warning"), (31, "warning")], got
    assert "`lax.cond` called eagerly inside a loop with a lambda as its body" in result.findings[0].message
