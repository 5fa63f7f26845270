from functools import partial

import jax
import jax.numpy as jnp


@jax.jit
def make(n):
    return jnp.ones(n)  # JS303


@jax.jit
def ramp(x, n):
    return x + jnp.arange(n)  # JS303


@jax.jit
def grid(x, k):
    return jnp.zeros((k, 3)) + x  # JS303


@jax.jit
def flat(x, m):
    return x.reshape(m, -1)  # JS303


# ---- negatives ----

@partial(jax.jit, static_argnums=0)
def make_ok(n):
    return jnp.ones(n)


@jax.jit
def like(x):
    return jnp.zeros(x.shape) + jnp.arange(x.shape[0]) + jnp.ones(len(x))


@jax.jit
def literal(x):
    return x + jnp.zeros((3, 4)).sum() + jnp.linspace(0.0, 1.0, 5).sum()


@partial(jax.jit, static_argnames="rows")
def reshape_ok(x, rows):
    return x.reshape(rows, -1)


@jax.jit
def split_by_sizes(y):
    sizes = [2, 2]
    return jnp.split(y, jnp.cumsum(jnp.array(sizes)))[0]  # JS303


@jax.jit
def split_ok(y):
    return jnp.split(y, [2, 4])[0]
