# vmap's in_axes=None leaves an argument unmapped: the function sees the caller's Python value.
from functools import partial

import jax
import jax.numpy as jnp


def scale(x, n):
    if n > 0:  # unmapped: `n` is the caller's Python int
        return x * n
    return x


def scale_mapped(x, n):
    if n > 0:  # JS101
        return x * n
    return x


def scaled_rows(xs, n):
    return jax.vmap(scale, in_axes=(0, None))(xs, n)


def scaled_rows_positional(xs, n):
    return jax.vmap(scale, (0, None))(xs, n)


def scaled_both(xs, ns):
    return jax.vmap(scale_mapped, in_axes=(0, 0))(xs, ns)


@partial(jax.vmap, in_axes=(0, None))
def shifted(x, k):
    if k:  # unmapped: a Python flag
        return x + 1.0
    return jnp.sin(x)
