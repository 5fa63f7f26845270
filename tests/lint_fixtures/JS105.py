from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

TABLE = np.arange(10.0)


@jax.jit
def lookup(i):
    return TABLE[i]  # JS105


@jax.jit
def window(x, i):
    w = np.linspace(0.0, 1.0, 8)
    return w[i:i + 2] * x[0]  # JS105


@jax.jit
def scatter(v):
    out = np.zeros(4)
    out[0] = v * 2  # JS105
    return out


@jax.jit
def accumulate(v):
    acc = np.zeros(2)
    acc[1] += v  # JS105
    return acc


# ---- negatives ----

@jax.jit
def lookup_ok(i):
    return jnp.asarray(TABLE)[i]


@jax.jit
def combine(x):
    return TABLE[:6] * x + TABLE[0]  # arithmetic with a tracer and static indexing work


@partial(jax.jit, static_argnames="n")
def static_index(x, n):
    return TABLE[n] + x


LIST = [1.0, 2.0]


@jax.jit
def not_numpy(x):
    return x[0] + LIST[0]


@jax.jit
def whole_array_update(v):
    acc = np.zeros(2)
    acc += 1.0  # a NumPy update with a Python value, before any tracer meets it
    return acc * v
