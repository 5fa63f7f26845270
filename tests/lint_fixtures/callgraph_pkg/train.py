import jax
import jax.numpy as jnp

from . import ops
from .ops import Solver, clip


@jax.jit
def step(x):
    y = clip(x, 3.0)
    return ops.scale(y, 2)


@jax.jit
def step_ok(x):
    return ops.scale(jnp.where(x.sum() > 3.0, x / x.sum(), x), 2)


@jax.jit
def solve(x):
    return Solver().run(x)
