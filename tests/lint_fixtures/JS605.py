import functools
from functools import partial

import jax


@partial(jax.jit, static_argnums=0)
def solve(cond, x):
    return jax.lax.while_loop(cond, lambda v: v * 0.5, x)


def positive(v):
    return v.sum() > 1.0


def run(x, tol):
    def above(v):
        return v.sum() > tol

    a = solve(lambda v: v.sum() > tol, x)  # JS605
    b = solve(above, x)  # JS605
    c = solve(functools.partial(lambda t, v: v.sum() > t, tol), x)  # JS605
    d = solve(positive, x)
    return a + b + c + d


@jax.jit
def traced(x):
    return solve(lambda v: v.sum() > 1.0, x)
