import jax
import jax.numpy as jnp


@jax.jit
def sum_negatives(x):
    return x[x < 0].sum()  # JS301


@jax.jit
def finite(x):
    mask = jnp.isfinite(x)
    return x[mask]  # JS301


@jax.jit
def band(x, lo, hi):
    m = (x > lo) & (x < hi)
    return x[~m]  # JS301


# ---- negatives ----

@jax.jit
def sum_negatives_ok(x):
    return jnp.where(x < 0, x, 0).sum()


@jax.jit
def index_ok(x, i):
    return x[i] + x[1:3] + x[jnp.argmax(x)]


def eager(x):
    return x[x < 0]


@jax.jit
def masked_set(x):
    return x.at[0].set(0.0)
