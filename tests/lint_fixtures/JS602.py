from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="axes")
def total(x, axes):
    return x.sum(axis=axes)


def reduce(x, axes):
    return jnp.sum(x, axis=axes)


reduce_jit = jax.jit(reduce, static_argnums=1)


@partial(jax.jit, static_argnums=(1,))
def with_default(x, dims=[0]):  # JS602
    return x.sum(axis=tuple(dims))


def main(x):
    a = total(x, axes=[0, 1])  # JS602
    b = reduce_jit(x, {0: 1})  # JS602
    return a, b


# ---- negatives ----

def main_ok(x):
    return total(x, axes=(0, 1)), reduce_jit(x, 0), total(x, axes=0)
