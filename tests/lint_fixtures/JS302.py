import jax
import jax.numpy as jnp


@jax.jit
def positive_indices(x):
    return jnp.nonzero(x > 0)  # JS302


@jax.jit
def where_one(x):
    return jnp.where(x > 0)  # JS302


@jax.jit
def uniq(x):
    return jnp.unique(x)  # JS302


@jax.jit
def method(x):
    return (x > 0).nonzero()  # JS302


@jax.jit
def aw(x):
    return jnp.argwhere(x), jnp.flatnonzero(x)  # JS302, JS302


# ---- negatives ----

@jax.jit
def positive_indices_ok(x):
    return jnp.nonzero(x > 0, size=x.shape[0], fill_value=-1)


@jax.jit
def where_three(x):
    return jnp.where(x > 0, x, 0.0)


@jax.jit
def uniq_ok(x):
    return jnp.unique(x, size=4, fill_value=0)


def eager(x):
    return jnp.nonzero(x)
