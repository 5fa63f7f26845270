import jax
import jax.numpy as jnp
import numpy as np

W = jnp.ones((1024, 1024))
TABLE = np.arange(1000)
SCALE = 2.0


@jax.jit
def layer(x):
    return x @ W  # JS501


@jax.jit
def lookup(i):
    return jnp.asarray(TABLE)[i] + W[0, 0]  # JS501, JS501


# ---- negatives ----

@jax.jit
def layer_ok(x, W):
    return x @ W


@jax.jit
def scalar_constant(x):
    return x * SCALE


def eager(x):
    return x @ W
