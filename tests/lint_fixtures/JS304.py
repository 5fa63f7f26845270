import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def unrolled(x):
    n = jnp.asarray(x.shape[0]) // 2
    out = 0.0
    for i in range(n):  # JS304
        out = out + x[i]
    return out


@jax.jit
def head(x):
    k = jnp.sum(jnp.array([1, 2]))
    return x[:k]  # JS304


@jax.jit
def window(x, start):
    return x[start:start + 2]  # JS304


@jax.tree_util.register_pytree_node_class
class Chunks:
    def __init__(self, x, size=2):
        self.x = x
        self.size = size
        self.n = jnp.ceil(x.shape[0] / size).astype(int)  # JS304

    def tree_flatten(self):
        return (self.x,), self.size

    @classmethod
    def tree_unflatten(cls, size, children):
        return cls(*children, size)

    def starts(self):
        n = self.n
        return jnp.arange(n) * self.size


@jax.jit
def chunk_starts(c):
    return c.starts()


def make_chunks(x):
    return chunk_starts(Chunks(x))


# ---- negatives ----

@jax.jit
def unrolled_ok(x):
    n = x.shape[0] // 2
    out = 0.0
    for i in range(n):
        out = out + x[i]
    return out


@jax.jit
def head_ok(x):
    k = int(np.sum(np.array([1, 2])))
    return x[:k] + x[k - 1]


@partial(jax.jit, static_argnames="start")
def window_ok(x, start):
    return x[start:start + 2]


@jax.jit
def window_dynamic(x, start):
    return jax.lax.dynamic_slice(x, (start,), (2,))


@jax.tree_util.register_pytree_node_class
class ChunksOk:
    def __init__(self, x, size=2):
        self.x = x
        self.size = size
        self.n = math.ceil(x.shape[0] / size)
        self.scale = jnp.sqrt(x.shape[0])  # an array field used as an array, never as a count

    def tree_flatten(self):
        return (self.x,), self.size

    @classmethod
    def tree_unflatten(cls, size, children):
        return cls(*children, size)

    def starts(self):
        return jnp.arange(self.n) * self.size * self.scale


@jax.jit
def chunk_starts_ok(c):
    return c.starts()


def make_chunks_ok(x):
    return chunk_starts_ok(ChunksOk(x))


class Rebuilt:
    """Not a pytree: nothing rebuilds it inside a trace, and its count is computed eagerly."""

    def __init__(self, x):
        self.x = x
        self.n = jnp.ceil(x.shape[0] / 2).astype(int)

    def starts(self):
        return jnp.arange(self.n)


@jax.jit
def classes(labels):
    n = jnp.max(labels) + 1
    return jax.nn.one_hot(labels, n)  # JS304


@jax.jit
def reduce_over(x, axis):
    return jnp.sum(x, axis=axis)  # JS304


@jax.jit
def window_sized(x, size):
    return jax.lax.dynamic_slice(x, (0,), (size,))  # JS304


@jax.jit
def keys(key, n):
    return jax.random.split(key, n)  # JS304


# ---- negatives: static ints, and traced values where JAX takes them ----

@jax.jit
def classes_ok(labels):
    return jax.nn.one_hot(labels, labels.shape[0])


@jax.jit
def repeat_total(x, r):
    return jnp.repeat(x, r, total_repeat_length=2 * x.shape[0])


@jax.jit
def window_start(x, start):
    return jax.lax.dynamic_slice(x, (start,), (2,)) + jnp.sum(x, axis=0)


import equinox as eqx  # noqa: E402


@eqx.filter_jit
def move_to(x, axis):
    """filter_jit keeps a Python int static: `axis` is one whenever this works."""
    return jnp.moveaxis(x[None], 0, axis)
